/**
 * One accepted WebSocket: validates each request, queues it (FIFO, one at a time, unless
 * `interleave`), streams its audio with real timers, and injects the request's fault. Every timer
 * hangs off one AbortController, so ending the socket ends all of its work.
 */
import { performance } from 'node:perf_hooks';
import { WebSocket, type RawData } from 'ws';
import { audioMsBefore, renderAudio, timestampsFor, type RenderedAudio } from './audio.js';
import { audioEndFrame, audioFrame, errorFrame } from './frames.js';
import {
  DEFAULT_ERROR_NAMES,
  type ReceivedRequest,
  type RejectedRequest,
  type ResembleFault,
  type ResembleServerOptions,
} from './options.js';
import { nextFrameLength, pause, pauseUntil, randomForRequest, releaseOffsetMs } from './pacing.js';
import { validateRequest, type SynthesisSpec } from './request.js';

/** What a session needs from the server that owns it. */
export interface SessionHost {
  options(): ResembleServerOptions;
  /** Records a valid request; returns it with its index in `received`. */
  accept(request: ReceivedRequest): number;
  reject(rejection: RejectedRequest): void;
}

interface Job {
  spec: SynthesisSpec;
  request: ReceivedRequest;
  index: number;
  /** Options as they were when the request arrived: `setOptions` only affects later requests. */
  options: ResembleServerOptions;
  fault: ResembleFault | undefined;
}

/** The error frame of an injected `reject` or `error-frame` fault. */
function faultFrame(fault: ResembleFault, defaults: { statusCode: number; errorName: string }, requestId: number): string {
  return errorFrame({
    errorName: fault.errorName ?? defaults.errorName,
    statusCode: fault.statusCode === undefined ? defaults.statusCode : fault.statusCode,
    message: fault.message ?? 'Injected server fault',
    requestId: fault.withRequestId === false ? undefined : requestId,
  });
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export class ResembleSession {
  readonly connectionId: number;
  #ws: WebSocket;
  #host: SessionHost;
  #abort = new AbortController();
  #queue: Job[] = [];
  #pumping = false;
  #streaming = 0;
  #nextAutoId = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  /** The socket's own close(); the instance method is replaced to be able to ignore peer closes. */
  #closeSocket: WebSocket['close'];
  #closingByServer = false;
  #silent = false;

  constructor(ws: WebSocket, connectionId: number, host: SessionHost) {
    this.#ws = ws;
    this.connectionId = connectionId;
    this.#host = host;
    this.#closeSocket = ws.close.bind(ws);
    // ws answers a peer's close frame by calling ws.close(); this server calls #closeSocket itself,
    // so any call to the instance method comes from the peer (or a protocol error).
    ws.close = ((code?: number, reason?: string | Buffer) => {
      this.end();
      if (this.#silent) return;
      if (this.#closingByServer || !this.#host.options().ignoreClientClose) this.#closeSocket(code, reason);
    }) as WebSocket['close'];
    ws.on('ping', (data) => {
      if (!this.#silent) ws.pong(data);
    });
    ws.on('message', (data, isBinary) => this.#onMessage(toBuffer(data), isBinary));
    ws.on('close', () => this.end());
    ws.on('error', () => this.end());
    this.#touch();
  }

  /** Stops all work of this socket (the socket itself is closed by the caller or already gone). */
  end(): void {
    this.#abort.abort();
    this.#queue.length = 0;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  get silent(): boolean {
    return this.#silent;
  }

  /** From now on nothing is answered or sent (pongs included); TCP stays open until the client drops it. */
  silence(): void {
    this.#silent = true;
    this.end();
  }

  /** A normal close initiated by the server (close frame, then wait for the peer's). */
  close(code: number, reason: string): void {
    this.end();
    this.#closingByServer = true;
    this.#closeSocket(code, reason);
  }

  terminate(): void {
    this.end();
    this.#ws.terminate();
  }

  #onMessage(frame: Buffer, isBinary: boolean): void {
    if (this.#abort.signal.aborted) return;
    this.#touch();
    const options = this.#host.options();
    const receivedAt = performance.now();
    const result = validateRequest(frame, isBinary, {
      assignRequestId: () => this.#nextAutoId++,
      maxChars: options.maxChars,
      voices: options.voices,
      defaultSampleRate: options.defaultSampleRate ?? 48000,
      errorNames: { ...DEFAULT_ERROR_NAMES, ...options.errorNames },
      availableModels: options.availableModels,
      modelUnavailableStatus: options.modelUnavailableStatus === undefined ? 500 : options.modelUnavailableStatus,
      streamingPlan: options.streamingPlan ?? true,
    });
    if (!result.ok) {
      const { payload, requestId, errorName } = result;
      this.#host.reject({ connectionId: this.connectionId, requestId, payload, errorName, receivedAt });
      this.#send(result.frame);
      return;
    }
    const request: ReceivedRequest = {
      connectionId: this.connectionId,
      requestId: result.spec.requestId,
      payload: result.payload,
      receivedAt,
    };
    const index = this.#host.accept(request);
    const job: Job = { spec: result.spec, request, index, options, fault: options.fault?.(request, index) };
    if (job.fault?.kind === 'reject') {
      this.#send(faultFrame(job.fault, { statusCode: 400, errorName: 'BadJSON' }, job.spec.requestId));
      return;
    }
    if (options.interleave) {
      void this.#stream(job);
    } else {
      this.#queue.push(job);
      void this.#pump();
    }
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
      await this.#stream(job);
    }
    this.#pumping = false;
  }

  async #stream(job: Job): Promise<void> {
    this.#streaming++;
    try {
      await this.#deliver(job);
    } finally {
      this.#streaming--;
      this.#touch();
    }
  }

  async #deliver(job: Job): Promise<void> {
    const { options, fault } = job;
    const spec = options.serveSampleRate ? { ...job.spec, sampleRate: options.serveSampleRate } : job.spec;
    const signal = this.#abort.signal;
    const audio = renderAudio(spec, options.msPerChar);
    const random = randomForRequest(options.seed, job.index);
    const total = audio.bytes.length;
    let start = performance.now();
    let sent = 0;
    let frameIndex = 0;

    const sendUpTo = async (limit: number): Promise<boolean> => {
      while (sent < limit) {
        const drawn = nextFrameLength(random, options.frameBytes, options.oddFrameProbability);
        const length = Math.min(drawn, limit - sent);
        const release = start + releaseOffsetMs(options, frameIndex, audioMsBefore(audio, sent));
        if (!(await pauseUntil(release, signal))) return false;
        this.#sendAudio(job, audio, sent, sent + length);
        sent += length;
        frameIndex++;
      }
      return true;
    };

    // Even a request that fails before its first byte takes the model latency to do so.
    if (!(await pauseUntil(start + options.firstByteDelayMs, signal))) return;
    const faultAt = fault ? Math.min(total, Math.max(0, fault.afterBytes ?? 0)) : total;
    if (!(await sendUpTo(faultAt))) return;

    switch (fault?.kind) {
      case undefined:
        break;
      case 'reject': // answered on arrival, never queued
      case 'error-frame':
        this.#send(faultFrame(fault, { statusCode: 500, errorName: 'ServerError' }, spec.requestId));
        return;
      case 'no-audio-end':
        return;
      case 'close-mid-request':
        this.close(fault.closeCode ?? 1011, 'injected fault');
        return;
      case 'terminate-mid-request':
        this.terminate();
        return;
      case 'stall': {
        const stallMs = fault.stallMs ?? Infinity;
        if (!(await pause(stallMs, signal))) return;
        start += stallMs;
        if (!(await sendUpTo(total))) return;
        break;
      }
    }
    this.#send(audioEndFrame(spec.requestId));
  }

  #sendAudio(job: Job, audio: RenderedAudio, from: number, to: number): void {
    const bytes = audio.bytes.subarray(from, to);
    if (job.spec.binary) {
      this.#send(bytes);
      return;
    }
    const timestamps = job.options.timestamps ? timestampsFor(audio, from, to) : undefined;
    this.#send(audioFrame(bytes, job.spec.requestId, audio.sampleRate, timestamps));
  }

  #send(data: string | Buffer): void {
    if (this.#ws.readyState !== WebSocket.OPEN || this.#abort.signal.aborted) return;
    this.#ws.send(data, { binary: typeof data !== 'string' });
    this.#touch();
  }

  /** (Re)arms the idle close; a socket with work queued or streaming is never idle. */
  #touch(): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const idleMs = this.#host.options().idleCloseMs;
    if (idleMs === undefined || this.#abort.signal.aborted) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#streaming > 0 || this.#queue.length > 0) {
        this.#touch();
        return;
      }
      this.close(1000, 'idle timeout');
    }, idleMs);
  }
}
