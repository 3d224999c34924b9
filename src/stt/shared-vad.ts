/**
 * One Silero inference per call, heard by both of its listeners.
 *
 * A live transcription model (gpt-realtime-whisper) has no server-side turn detection, so
 * `@livekit/agents-plugin-openai` 1.9 commits the audio at a VAD's end of speech and opens its own
 * stream on the VAD it is given (plugin stt.ts `#forwardVadEvents`). Given the session's Silero,
 * that is a second inference over the same frames beside the session's own: twice the VAD CPU of
 * every call, and on a busy host two streams falling behind realtime instead of one ("VAD
 * inference is slower than realtime", seconds behind at job start), where they can also disagree
 * on where an utterance ends, so the STT commits a segment the session never saw end.
 *
 * `shareVad` hands the session the real VAD, tapped, and the STT a VAD that runs no model: its
 * streams drop the frames pushed to them and report the session stream's starts and ends of
 * speech, the only events the plugin reads. So the STT commits exactly when the session's turn
 * ends, from one inference.
 *
 * The frames pushed to the session's stream are the caller's audio as the session hears it; they
 * are published too (`frames`), so whatever else needs the caller's voice reads these instead of
 * opening another stream of the same track.
 */
import type { EventEmitter } from 'node:events';
import { VAD, type VADCapabilities, type VADEvent, VADEventType, VADStream } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';

type SpeechBoundaryListener = (event: VADEvent) => void;
type FrameListener = (frame: AudioFrame) => void;

/** Listeners of one kind of thing the session's stream hears, each told in turn. */
class Listeners<T> {
  readonly #listeners = new Set<(value: T) => void>();

  subscribe(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(value: T): void {
    for (const listener of this.#listeners) listener(value);
  }
}

/** The session stream's starts and ends of speech, for whoever follows them. */
class SpeechBoundaries extends Listeners<VADEvent> {
  override publish(event: VADEvent): void {
    if (event.type === VADEventType.START_OF_SPEECH || event.type === VADEventType.END_OF_SPEECH) super.publish(event);
  }
}

/** The session's VAD: the real one, each of its streams' events also published to the STT. */
class TappedVAD extends VAD {
  readonly label: string;
  readonly #inner: VAD;
  readonly #boundaries: SpeechBoundaries;
  readonly #frames: Listeners<AudioFrame>;
  readonly #forwardMetrics: Parameters<VAD['on']>[1] = (metrics) => this.emit('metrics_collected', metrics);

  constructor(inner: VAD, boundaries: SpeechBoundaries, frames: Listeners<AudioFrame>) {
    super(inner.capabilities);
    this.#inner = inner;
    this.#boundaries = boundaries;
    this.#frames = frames;
    this.label = inner.label;
    // The inner VAD outlives this call (loaded once per process): listen to it only while the
    // session listens here, so a finished call leaves no listener behind. ('newListener' comes
    // before the listener is added, 'removeListener' after it is gone.)
    const emitter = this as unknown as EventEmitter;
    emitter.on('newListener', (event: string | symbol) => {
      if (event === 'metrics_collected' && this.listenerCount('metrics_collected') === 0) inner.on('metrics_collected', this.#forwardMetrics);
    });
    emitter.on('removeListener', (event: string | symbol) => {
      if (event === 'metrics_collected' && this.listenerCount('metrics_collected') === 0) inner.off('metrics_collected', this.#forwardMetrics);
    });
  }

  override get minSilenceDuration(): number | null {
    return this.#inner.minSilenceDuration;
  }

  stream(): VADStream {
    const stream = this.#inner.stream();
    const next = stream.next.bind(stream);
    // The session reads its events through next() (for await); each one it reads is published.
    stream.next = async () => {
      const result = await next();
      if (!result.done) this.#boundaries.publish(result.value);
      return result;
    };
    // The session feeds its VAD through updateInputStream (agents 1.9: a deferred stream pumped
    // into the stream's input writer), pushFrame through the same writer: the one place every
    // frame passes exactly once, without another stream hop.
    const writer = (stream as unknown as { inputWriter: WritableStreamDefaultWriter<AudioFrame | symbol> }).inputWriter;
    const write = writer.write.bind(writer);
    writer.write = (chunk: AudioFrame | symbol) => {
      if (typeof chunk !== 'symbol') this.#frames.publish(chunk);
      return write(chunk);
    };
    return stream;
  }
}

/** The STT's VAD: no model, the session stream's boundaries. */
class FollowingVAD extends VAD {
  readonly label: string;
  readonly #boundaries: SpeechBoundaries;

  constructor(capabilities: VADCapabilities, label: string, boundaries: SpeechBoundaries) {
    super(capabilities);
    this.label = `firstword.Following<${label}>`;
    this.#boundaries = boundaries;
  }

  stream(): VADStream {
    return new FollowingStream(this, this.#boundaries);
  }
}

class FollowingStream extends VADStream {
  readonly #unsubscribe: () => void;

  constructor(vad: VAD, boundaries: SpeechBoundaries) {
    super(vad);
    this.#unsubscribe = boundaries.subscribe((event) => this.sendVADEvent(event));
    void this.#discardInput();
  }

  /** The session's stream hears these frames; read them only so the input queue stays empty. */
  async #discardInput(): Promise<void> {
    for (;;) {
      const { done } = await this.inputReader.read().catch(() => ({ done: true }));
      if (done) return;
    }
  }

  /** VADStream.endInput closes the writable its own writer holds, which rejects: close the writer. */
  override endInput(): void {
    if (this.inputClosed || this.closed) return;
    this.inputClosed = true;
    this.inputWriter.close().catch(() => {});
  }

  override close(): void {
    this.#unsubscribe();
    super.close();
  }
}

export interface SharedVad {
  /** Give this to the session: it runs the model. */
  session: VAD;
  /** Give this to the speech-to-text: it follows the session's stream. */
  stt: VAD;
  /** The session stream's starts and ends of speech (with the segment's audio), for a turn detector that hears the voice. */
  speech: { subscribe(listener: SpeechBoundaryListener): () => void };
  /** Every frame of the caller's audio the session's stream is given, as it is given. */
  frames: CallerFrames;
}

export interface CallerFrames {
  subscribe(listener: FrameListener): () => void;
}

export function shareVad(vad: VAD): SharedVad {
  const boundaries = new SpeechBoundaries();
  const frames = new Listeners<AudioFrame>();
  return { session: new TappedVAD(vad, boundaries, frames), stt: new FollowingVAD(vad.capabilities, vad.label, boundaries), speech: boundaries, frames };
}
