import { APIConnectionError, APIError, type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, shortuuid, tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { handshakeError } from '../../protocol/connect.js';
import { AudioSink, type AudioSinkOptions } from '../../driver/audio-sink.js';
import { type StreamTimeline, now } from '../../driver/timeline.js';

export interface BytesRequest {
  url: string;
  init: RequestInit;
  /** The headers that were sent (credentials are redacted from any refusal quoted in an error). */
  headers: Record<string, string>;
  /** The transcript as sent (for the timeline). */
  text: string;
}

/**
 * Cartesia's `synthesize()`: one `/tts/bytes` request, its body through the same audio sink as a
 * stream's tracks (reassembly, rate, frames of `frameMs`, start buffer; the last frame `final`).
 * Failures are `APIError`s the framework retries as it retries a stream: a refused request by its
 * status (429 and 5xx), a lost connection or a silent one always; a retry skips the audio that
 * already went out. `request` undefined: the text had nothing to speak, and no frame comes.
 */
export class CartesiaBytesStream extends tts.ChunkedStream {
  readonly label = 'firstword.cartesia.ChunkedStream';
  readonly id: string;
  /** This stream's events. */
  readonly timeline: StreamTimeline;
  #request: BytesRequest | undefined;
  #timeoutMs: number;
  #sink: AudioSink;
  /** Samples framed by earlier attempts (kept across the base class's retries). */
  #framed = 0;
  #held: tts.SynthesizedAudio | undefined;
  #firstFrame = true;

  constructor(
    text: string,
    owner: tts.TTS,
    request: BytesRequest | undefined,
    parts: { sink: AudioSinkOptions; timeline: StreamTimeline },
    connOptions?: APIConnectOptions,
    abortSignal?: AbortSignal,
  ) {
    super(text, owner, connOptions, abortSignal);
    this.#request = request;
    this.timeline = parts.timeline;
    this.id = parts.timeline.streamId;
    this.#timeoutMs = connOptions?.timeoutMs ?? DEFAULT_API_CONNECT_OPTIONS.timeoutMs;
    this.#sink = new AudioSink(parts.sink, (audio) => this.#deliver(audio));
    this.abortSignal.addEventListener('abort', () => this.#sink.drop(), { once: true });
  }

  protected async run(): Promise<void> {
    if (!this.#request) return;
    try {
      await this.#attempt(this.#request);
    } catch (err) {
      if (this.abortSignal.aborted) return;
      const error = err instanceof APIError ? err : new APIConnectionError({ message: String(err) });
      this.timeline.emit('retry', { streamId: this.id, at: now(), error: error.message, retryable: error.retryable });
      throw error;
    }
    if (this.abortSignal.aborted) return;
    if (this.#held) this.#held.final = true;
    this.#release();
    this.#sink.release();
  }

  async #attempt({ url, init, headers, text }: BytesRequest): Promise<void> {
    // The timeout bounds silence (before the response and between body parts), not how long a
    // long reply may stream.
    const silence = new AbortController();
    let timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    };
    const requestId = shortuuid('fwbytes_');
    this.timeline.emit('sent', { streamId: this.id, segmentId: this.id, track: requestId, text, at: now() });
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal: AbortSignal.any([this.abortSignal, silence.signal]) });
    } catch (err) {
      clearTimeout(timer);
      if (this.abortSignal.aborted) return;
      const what = silence.signal.aborted ? `no response within ${this.#timeoutMs} ms` : String(err);
      throw new APIConnectionError({ message: `Cartesia /tts/bytes request failed: ${what}` });
    }
    if (!res.ok) {
      clearTimeout(timer);
      throw handshakeError({ provider: 'Cartesia', keyEnvName: 'CARTESIA_API_KEY', headers }, res.status, await res.text().catch(() => ''));
    }
    const input = this.#sink.input();
    // A retry re-synthesizes the text: skip what an earlier attempt already framed.
    let skip = this.#framed;
    const play = (pcm: Buffer) => {
      const skipBytes = Math.min(pcm.length, skip * 2);
      skip -= skipBytes / 2;
      const rest = pcm.subarray(skipBytes);
      if (!rest.length || this.abortSignal.aborted) return;
      this.#framed += rest.length / 2;
      for (const frame of this.#sink.frames(rest)) this.#hold(requestId, frame);
    };
    let first = true;
    try {
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
        heard();
        if (this.abortSignal.aborted) return;
        if (first) this.timeline.emit('first_byte', { streamId: this.id, segmentId: this.id, track: requestId, at: now() });
        first = false;
        play(input.push(Buffer.from(part)));
      }
    } catch (err) {
      if (this.abortSignal.aborted) return;
      const what = silence.signal.aborted ? `no audio for ${this.#timeoutMs} ms` : String(err);
      throw new APIConnectionError({ message: `Cartesia /tts/bytes stream broke: ${what}` });
    } finally {
      clearTimeout(timer);
      input.close();
    }
    play(input.end());
    for (const frame of this.#sink.flushFrames()) this.#hold(requestId, frame);
  }

  /** The last frame is held back so it can carry `final`. */
  #hold(requestId: string, frame: AudioFrame): void {
    this.#release();
    this.#held = { requestId, segmentId: this.id, frame, final: false };
  }

  #release(): void {
    if (this.#held) this.#sink.put(this.#held);
    this.#held = undefined;
  }

  #deliver(audio: tts.SynthesizedAudio): void {
    if (this.abortSignal.aborted || this.queue.closed) return;
    if (this.#firstFrame) {
      this.#firstFrame = false;
      this.timeline.emit('first_frame', { streamId: this.id, segmentId: audio.segmentId, at: now() });
    }
    this.queue.put(audio);
  }
}
