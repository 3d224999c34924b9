import { APIConnectionError, type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, shortuuid, tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { handshakeError } from '../../protocol/connect.js';
import { PcmFramer } from '../../pcm/framer.js';
import { Pcm16Reassembler } from '../../pcm/pcm.js';

export interface BytesRequest {
  url: string;
  init: RequestInit;
  /** The headers that were sent (credentials are redacted from any refusal quoted in an error). */
  headers: Record<string, string>;
}

/** Cartesia's `synthesize()`: one `/tts/bytes` request, its body streamed back as frames of `frameMs`. */
export class CartesiaBytesStream extends tts.ChunkedStream {
  readonly label = 'firstword.cartesia.ChunkedStream';
  #request: BytesRequest;
  #sampleRate: number;
  #timeoutMs: number;
  #samplesPerFrame: number;
  /** Samples delivered by earlier attempts (kept across the base class's retries). */
  #delivered = 0;

  constructor(
    text: string,
    owner: tts.TTS,
    request: BytesRequest,
    frameMs: number,
    connOptions?: APIConnectOptions,
    abortSignal?: AbortSignal,
  ) {
    super(text, owner, connOptions, abortSignal);
    this.#request = request;
    this.#sampleRate = owner.sampleRate;
    this.#samplesPerFrame = Math.round((owner.sampleRate * frameMs) / 1000);
    this.#timeoutMs = connOptions?.timeoutMs ?? DEFAULT_API_CONNECT_OPTIONS.timeoutMs;
  }

  protected async run(): Promise<void> {
    const { url, init, headers } = this.#request;
    // The timeout bounds silence (before the response and between body parts), not how long a
    // long reply may stream.
    const silence = new AbortController();
    let timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(() => silence.abort(), this.#timeoutMs);
    };
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
    const requestId = shortuuid('fwbytes_');
    const bytes = new PcmFramer(this.#sampleRate, 1, this.#samplesPerFrame);
    const pcm = new Pcm16Reassembler();
    // A retry after a broken body re-synthesizes the text: skip what an earlier attempt delivered.
    let skip = this.#delivered;
    const put = (frame: AudioFrame) => {
      if (this.abortSignal.aborted) return;
      let f = frame;
      if (skip > 0) {
        const n = Math.min(skip, f.samplesPerChannel);
        skip -= n;
        if (n === f.samplesPerChannel) return;
        f = new AudioFrame(f.data.slice(n), f.sampleRate, 1, f.samplesPerChannel - n);
      }
      this.#delivered += f.samplesPerChannel;
      this.queue.put({ requestId, segmentId: requestId, frame: f, final: false });
    };
    try {
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
        heard();
        if (this.abortSignal.aborted) return;
        const even = pcm.push(Buffer.from(part));
        if (even.length) for (const f of bytes.write(even)) put(f);
      }
    } catch (err) {
      if (this.abortSignal.aborted) return;
      const what = silence.signal.aborted ? `no audio for ${this.#timeoutMs} ms` : String(err);
      throw new APIConnectionError({ message: `Cartesia /tts/bytes stream broke: ${what}` });
    } finally {
      clearTimeout(timer);
    }
    const tail = pcm.end();
    if (tail.length) for (const f of bytes.write(tail)) put(f);
    for (const f of bytes.flush()) put(f);
  }
}
