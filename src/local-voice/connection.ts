import { defaultMaxFrameMs, PcmFramer, PcmResampler, pcmBytes } from '@firstword/agents-plugin-tts/pcm';
import WebSocket from 'ws';
import { pickLanguage } from './language.js';
import { type ErrorFrame, type SynthesisRequest, errorFrame, parseRequest, stripMarkup } from './protocol.js';
import type { EspeakSynthesizer } from './synthesizer.js';
import { wavHeader } from './wav.js';

/**
 * One client socket. Requests are answered strictly in the order they arrived, one at a time,
 * each as audio frames followed by `audio_end` — the ordering Resemble clients rely on. Bad
 * requests get an error frame and the socket stays open, as the service does.
 */
export class VoiceConnection {
  #socket: WebSocket;
  #synthesizer: EspeakSynthesizer;
  #frameMs: number;
  #queue: SynthesisRequest[] = [];
  #busy = false;
  #nextAssignedId = 0;
  #closed = new AbortController();

  constructor(socket: WebSocket, synthesizer: EspeakSynthesizer, frameMs: number) {
    this.#socket = socket;
    this.#synthesizer = synthesizer;
    this.#frameMs = frameMs;
    socket.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    socket.on('close', () => this.#closed.abort());
    socket.on('error', () => this.#closed.abort());
  }

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (isBinary) {
      this.#sendJson(errorFrame('BadJSON', 400, 'requests must be JSON text frames'));
      return;
    }
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const parsed = parseRequest(text, () => this.#nextAssignedId++);
    if (!parsed.ok) {
      this.#sendJson(parsed.error);
      return;
    }
    this.#queue.push(parsed.request);
    void this.#drain();
  }

  // Each socket has at most one job in the synthesizer at a time, so sockets take turns on the one
  // worker: a socket still draining stale requests after a barge-in does not hold up a fresh one
  // for more than the sentence being voiced.
  async #drain(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length > 0 && !this.#closed.signal.aborted) {
        await this.#voice(this.#queue.shift()!);
      }
    } finally {
      this.#busy = false;
    }
  }

  async #voice(request: SynthesisRequest): Promise<void> {
    // eSpeak's irregular blocks (about 95 ms at 22.05 kHz) → frames of whole frameMs at the asked
    // rate, one message each: a block's audio in one frame instead of four or five.
    const inputRate = this.#synthesizer.sampleRate;
    const resampler = new PcmResampler(request.sampleRate);
    const framer = PcmFramer.ofDuration(request.sampleRate, this.#frameMs, defaultMaxFrameMs(this.#frameMs));
    let headerPending = request.withHeader;
    const send = (blocks: Int16Array[], last = false) => {
      const frames = blocks.flatMap((block) => framer.write(block));
      if (last) frames.push(...framer.flush());
      for (const frame of frames) {
        const pcm = pcmBytes(frame.data.subarray(0, frame.samplesPerChannel));
        const bytes = headerPending ? Buffer.concat([wavHeader(request.sampleRate, 'streaming'), pcm]) : pcm;
        headerPending = false;
        this.#sendAudio(request, bytes);
      }
    };
    try {
      const text = stripMarkup(request.text);
      const onAudio = (samples: Int16Array) => send(resampler.push(samples, inputRate));
      await this.#synthesizer.synthesize(text, pickLanguage(text), { onAudio }, this.#closed.signal);
      send(resampler.flush(), true);
      this.#sendJson({ type: 'audio_end', request_id: request.requestId });
    } catch (error) {
      const explanation = error instanceof Error ? error.message : String(error);
      this.#sendJson(errorFrame('SynthesisFailed', 500, explanation, request.requestId));
    } finally {
      resampler.close();
    }
  }

  #sendAudio(request: SynthesisRequest, bytes: Buffer): void {
    if (request.binary) {
      if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(bytes, { binary: true });
      return;
    }
    this.#sendJson({
      type: 'audio',
      audio_content: bytes.toString('base64'),
      request_id: request.requestId,
      sample_rate: request.sampleRate,
    });
  }

  #sendJson(message: ErrorFrame | Record<string, unknown>): void {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }
}
