/**
 * One Cartesia context on one socket: inputs queue up and are generated one after another
 * (B.5.2); events go out tagged with the context id, and the context ends with `done`, an error,
 * or a cancel. Different contexts run their own pumps, so their chunks interleave.
 */
import { bytesPerSample, synthesizePiece } from './audio.js';
import type { CartesiaFault, CartesiaServerOptions, VoicedPiece } from './options.js';
import { streamFrames } from './pacing.js';
import {
  type ErrorSpec,
  chunkEvent,
  doneEvent,
  errors,
  flushDoneEvent,
  phonemeTimestampsEvent,
  wordTimestampsEvent,
} from './protocol.js';
import { ContextTimeline, type TimedUnit, toTimedUnits } from './timeline.js';
import { OneShotTimer, isAbort, wait } from './timing.js';
import type { GenerationRequest } from './validate.js';

/** What a context needs from its socket. */
export interface ContextHost {
  readonly connectionId: number;
  options(): CartesiaServerOptions;
  random(): number;
  toneFor(piece: Omit<VoicedPiece, 'hz'>): number;
  /** The context sent its last audio (and `done`, where the version sends one). */
  finished(contextId: string): void;
  send(event: Record<string, unknown>): void;
  errorEvent(spec: ErrorSpec, contextId: string): Record<string, unknown>;
  /** Outgoing audio counts as activity for the idle timeout. */
  noteActivity(): void;
  terminateSocket(): void;
  /** The context is gone (`expired`: it sat idle past `contextExpiryMs`): stop counting it and refuse its id from now on. */
  released(context: CartesiaContext, why: 'expired' | 'ended'): void;
}

type QueueItem =
  | { kind: 'piece'; text: string; index: number; arrivedAt: number }
  | { kind: 'flush'; explicit: boolean }
  | { kind: 'end' };

/** `active` accepts input or is generating; `finished` sent `done` and waits to expire. */
export type ContextState = 'active' | 'finished' | 'released';

const SENTENCE_END = /[.!?。！？…]["'”’)\]]*\s*$/u;

export class CartesiaContext {
  readonly id: string;
  readonly request: GenerationRequest;
  #host: ContextHost;
  #state: ContextState = 'active';
  #inputOpen = true;
  #inputCount = 0;
  #queue: QueueItem[] = [];
  #pumping = false;
  #abort = new AbortController();
  #timeline = new ContextTimeline();
  #flushId = 1;
  #flushInUse = false;
  #buffered = '';
  #bufferedIndex = 0;
  #bufferTimer = new OneShotTimer();
  #earlyDoneTimer = new OneShotTimer();
  #expiryTimer = new OneShotTimer();
  #cancelled = false;
  #lateChunksLeft = 0;
  #stalled = false;
  #suppressDone = false;
  #lastChunkAt = performance.now();

  constructor(host: ContextHost, first: GenerationRequest) {
    this.#host = host;
    this.request = first;
    this.id = first.contextId!;
  }

  get state(): ContextState {
    return this.#state;
  }

  /** False once `continue:false` arrived (or the context finished). */
  get acceptsInput(): boolean {
    return this.#state === 'active' && this.#inputOpen && !this.#cancelled;
  }

  /** One validated input (the first one included) whose fields match the context's. */
  accept(input: GenerationRequest): void {
    this.#earlyDoneTimer.cancel();
    this.#expiryTimer.cancel();
    const index = this.#inputCount++;
    const options = this.#host.options();
    const immediate = input.maxBufferDelayMs === 0;
    const autoFlush = immediate && options.flushDoneAfterEachInput && input.transcript.length > 0;
    if (autoFlush || input.flush) this.#flushInUse = true;

    if (immediate) {
      if (input.transcript.length > 0) {
        this.#queue.push({ kind: 'piece', text: input.transcript, index, arrivedAt: performance.now() });
      }
    } else {
      if (this.#buffered.length === 0) this.#bufferedIndex = index;
      this.#buffered += input.transcript;
      if (input.flush || !input.continue || SENTENCE_END.test(this.#buffered)) {
        this.#releaseBuffer();
      } else if (!this.#bufferTimer.pending && this.#buffered.length > 0) {
        this.#bufferTimer.start(input.maxBufferDelayMs, () => {
          this.#releaseBuffer();
          this.#kick();
        });
      }
    }
    if (autoFlush || input.flush) this.#queue.push({ kind: 'flush', explicit: input.flush });
    if (!input.continue) {
      this.#inputOpen = false;
      this.#queue.push({ kind: 'end' });
    }
    this.#kick();
  }

  /** `{cancel:true}`: nothing queued is generated; the piece in flight may leak a few late chunks. */
  cancel(): void {
    if (this.#state !== 'active' || this.#cancelled) return;
    this.#cancelled = true;
    this.#queue = [];
    this.#buffered = '';
    this.#bufferTimer.cancel();
    this.#earlyDoneTimer.cancel();
    this.#lateChunksLeft = this.#host.options().lateChunksAfterCancel;
    if (!this.#pumping) this.#afterCancel();
    else if (this.#lateChunksLeft <= 0 || this.#stalled) this.#abort.abort();
  }

  /** Ends the context with an `error` event (done:true). */
  fail(spec: ErrorSpec): void {
    if (this.#state === 'released') return;
    this.#host.send(this.#host.errorEvent(spec, this.id));
    this.release();
  }

  /** Stops everything without telling the client (socket gone, expiry, server shutdown). */
  release(why: 'expired' | 'ended' = 'ended'): void {
    if (this.#state === 'released') return;
    this.#state = 'released';
    this.#abort.abort();
    this.#queue = [];
    this.#bufferTimer.cancel();
    this.#earlyDoneTimer.cancel();
    this.#expiryTimer.cancel();
    this.#host.released(this, why);
  }

  #releaseBuffer(): void {
    this.#bufferTimer.cancel();
    if (this.#buffered.length > 0) {
      this.#queue.push({
        kind: 'piece',
        text: this.#buffered,
        index: this.#bufferedIndex,
        arrivedAt: performance.now(),
      });
    }
    this.#buffered = '';
  }

  #kick(): void {
    if (this.#pumping || this.#state !== 'active') return;
    this.#pumping = true;
    void this.#pump();
  }

  async #pump(): Promise<void> {
    try {
      while (this.#queue.length > 0 && this.#state === 'active' && !this.#cancelled) {
        const item = this.#queue.shift()!;
        if (item.kind === 'piece') await this.#generate(item.text, item.index, item.arrivedAt);
        else if (item.kind === 'flush') this.#sendFlushDone(item.explicit);
        else this.#finish();
      }
    } catch (error) {
      if (!isAbort(error)) this.fail(errors.serverFault({ message: String(error) }));
    } finally {
      this.#pumping = false;
    }
    if (this.#state !== 'active') return;
    if (this.#cancelled) this.#afterCancel();
    else if (this.#inputOpen && this.#buffered.length === 0) {
      this.#armEarlyDone();
      this.#armExpiry();
    }
  }

  async #generate(text: string, index: number, arrivedAt: number): Promise<void> {
    const options = this.#host.options();
    const { encoding, sampleRate } = this.request;
    const fault = options.fault?.({
      connectionId: this.#host.connectionId,
      contextId: this.id,
      transcript: text,
      index,
    });
    if (fault?.kind === 'no-done') this.#suppressDone = true;

    const audio = synthesizePiece(text, encoding, sampleRate, options, (transcript) =>
      this.#host.toneFor({ connectionId: this.#host.connectionId, contextId: this.id, transcript }),
    );
    const bytesPerSecond = bytesPerSample(encoding) * sampleRate;
    const timings = this.#timeline.addPiece(text, audio.length / bytesPerSecond, options.msPerChar / 1000);
    let wordsSent = 0;
    let phonemesSent = 0;
    const sendTimingsUpTo = (contextSec: number): void => {
      const words = timings.words.slice(wordsSent).filter((w) => w.start < contextSec);
      const phonemes = timings.phonemes.slice(phonemesSent).filter((p) => p.start < contextSec);
      wordsSent += words.length;
      phonemesSent += phonemes.length;
      this.#sendTimings(words, phonemes);
    };

    const completed = await streamFrames(
      {
        audio,
        bytesPerSecond,
        faultAt: fault && fault.kind !== 'no-done' ? (fault.afterBytes ?? 0) : undefined,
        arrivedAt,
      },
      () => this.#host.options(),
      () => this.#host.random(),
      this.#abort.signal,
      {
        frame: (bytes, sentBytes) => {
          const now = performance.now();
          this.#host.send(chunkEvent(this.id, bytes, round3(now - this.#lastChunkAt), this.#currentFlushId()));
          this.#lastChunkAt = now;
          this.#host.noteActivity();
          if (this.#cancelled) return --this.#lateChunksLeft > 0;
          sendTimingsUpTo(timings.startSec + sentBytes / bytesPerSecond);
          return true;
        },
        strike: () => this.#strike(fault!),
      },
    );
    if (completed && !this.#cancelled) sendTimingsUpTo(Infinity);
  }

  /** Applies a fault; true means the piece stops here. */
  async #strike(fault: CartesiaFault): Promise<boolean> {
    switch (fault.kind) {
      case 'error-event':
        this.fail(errors.serverFault(fault));
        return true;
      case 'terminate':
        this.#host.terminateSocket();
        this.release();
        return true;
      case 'stall':
        this.#stalled = true;
        try {
          await wait(fault.stallMs ?? Infinity, this.#abort.signal);
        } finally {
          this.#stalled = false;
        }
        return false;
      case 'no-done':
        return false;
    }
  }

  #sendTimings(words: TimedUnit[], phonemes: TimedUnit[]): void {
    const flushId = this.#currentFlushId();
    if (this.request.addTimestamps && words.length > 0) {
      this.#host.send(wordTimestampsEvent(this.id, toTimedUnits(words), flushId));
    }
    if (this.request.addPhonemeTimestamps && phonemes.length > 0) {
      this.#host.send(phonemeTimestampsEvent(this.id, toTimedUnits(phonemes), flushId));
    }
  }

  #currentFlushId(): number | undefined {
    return this.#flushInUse ? this.#flushId : undefined;
  }

  /** An explicit flush ends a segment (a word split across it is complete); the automatic one only acknowledges. */
  #sendFlushDone(explicit: boolean): void {
    if (explicit) this.#sendTimings(this.#timeline.release(), []);
    this.#host.send(flushDoneEvent(this.id, this.#flushId));
    this.#flushId++;
  }

  #finish(): void {
    this.#sendTimings(this.#timeline.release(), []);
    if (this.#sendsDone) this.#host.send(doneEvent(this.id));
    this.#state = 'finished';
    this.#host.finished(this.id);
    this.#earlyDoneTimer.cancel();
    this.#armExpiry();
  }

  get #sendsDone(): boolean {
    return !this.#suppressDone && this.#host.options().sendsDone;
  }

  /**
   * Documented: a context expires 1 s (`contextExpiryMs`) after its last audio was streamed out,
   * an open one that waits for more input as much as a finished one.
   */
  #armExpiry(): void {
    const due = this.#lastChunkAt + this.#host.options().contextExpiryMs - performance.now();
    this.#expiryTimer.start(Math.max(0, due), () => {
      if (this.#pumping || this.#queue.length > 0 || this.#buffered.length > 0) return; // input arrived meanwhile
      this.release('expired');
    });
  }

  #afterCancel(): void {
    if (this.#state !== 'active') return;
    if (this.#host.options().doneAfterCancel) this.#host.send(doneEvent(this.id));
    this.release();
  }

  /** The observed gotcha (B.5.5): an open context that goes quiet is reported `done` early. */
  #armEarlyDone(): void {
    const idleMs = this.#host.options().earlyDoneIdleMs;
    if (idleMs === undefined) return;
    this.#earlyDoneTimer.start(idleMs, () => {
      if (this.#state !== 'active' || this.#pumping || !this.#inputOpen) return;
      this.#sendTimings(this.#timeline.release(), []);
      if (this.#sendsDone) this.#host.send(doneEvent(this.id));
    });
  }
}

function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
