import { initializeLogger, type tts } from '@livekit/agents';
import { afterEach } from 'vitest';
import { EventEmitter } from 'node:events';
import { tts as ttsNs } from '@livekit/agents';
import { CartesiaTTS, type CartesiaTTSOptions, ResembleTTS, type ResembleTTSOptions } from '../../src/index.js';
import type { FirstwordTTS } from '../../src/driver/base.js';
import type { TimelineEvents } from '../../src/driver/timeline.js';
import { type CartesiaServer, startCartesiaServer, type CartesiaServerOptions } from '../../../../test/servers/cartesia-server.js';
import { type ResembleServer, startResembleServer, type ResembleServerOptions } from '../../../../test/servers/resemble-server.js';
import { tagForText } from '../../../../test/servers/audio-tag.js';

initializeLogger({ pretty: false, level: 'error' });

export interface Collected {
  frames: tts.SynthesizedAudio[];
  samples: Int16Array;
  endOfStream: boolean;
}

/** Reads a stream until END_OF_STREAM or its end, bounded by `timeoutMs`. */
export async function collect(stream: AsyncIterable<tts.SynthesizedAudio | symbol>, timeoutMs = 10_000): Promise<Collected> {
  const frames: tts.SynthesizedAudio[] = [];
  let endOfStream = false;
  const read = (async () => {
    for await (const ev of stream) {
      if (ev === ttsNs.SynthesizeStream.END_OF_STREAM) {
        endOfStream = true;
        break;
      }
      frames.push(ev as tts.SynthesizedAudio);
    }
  })();
  await withTimeout(read, timeoutMs, 'stream did not finish');
  return { frames, samples: concatSamples(frames), endOfStream };
}

export function concatSamples(frames: tts.SynthesizedAudio[]): Int16Array {
  const total = frames.reduce((n, f) => n + f.frame.samplesPerChannel, 0);
  const out = new Int16Array(total);
  let o = 0;
  for (const f of frames) {
    out.set(f.frame.data.subarray(0, f.frame.samplesPerChannel), o);
    o += f.frame.samplesPerChannel;
  }
  return out;
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms: ${what}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pushes `deltas` as an LLM would, then ends the input. */
export function speak(stream: tts.SynthesizeStream, deltas: string[]): void {
  for (const d of deltas) stream.pushText(d);
  stream.endInput();
}

/** Cuts text into token-like deltas (3–6 chars), deterministic. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  let k = 0;
  while (i < text.length) {
    const n = 3 + (k++ % 4);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

export { heardRuns as heardTags } from '../../../../test/servers/audio-tag.js';

/** A provider under test: its server, a TTS factory, and what it sent (texts in send order). */
export interface ProviderFixture {
  name: 'resemble' | 'cartesia';
  server: ResembleServer | CartesiaServer;
  make(opts?: Record<string, unknown>): FirstwordTTS;
  /** Texts the server received for synthesis, in arrival order (per connection, optionally). */
  sentTexts(): string[];
  /** The exact text on the wire for a text the driver sent (as seen in the timeline). */
  wireText(text: string): string;
  /** Tag the server put on the audio of a text the driver sent. */
  tagOf(text: string): number;
  setServer(patch: Record<string, unknown>): void;
  close(): Promise<void>;
}

export async function resembleFixture(server: Partial<ResembleServerOptions> = {}): Promise<ProviderFixture> {
  const srv = await startResembleServer({ msPerChar: 2, ...server });
  return {
    name: 'resemble',
    server: srv,
    make: (opts = {}) =>
      new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: srv.url, sampleRate: 16000, ...(opts as Partial<ResembleTTSOptions>) }),
    sentTexts: () => srv.received.map((r) => String(r.payload.data)),
    wireText: (text) => text,
    tagOf: (text) => tagForText(text),
    setServer: (patch) => srv.setOptions(patch as Partial<ResembleServerOptions>),
    close: () => srv.close(),
  };
}

export async function cartesiaFixture(server: Partial<CartesiaServerOptions> = {}): Promise<ProviderFixture> {
  const srv = await startCartesiaServer({ msPerChar: 2, ...server });
  return {
    name: 'cartesia',
    server: srv,
    make: (opts = {}) =>
      new CartesiaTTS({ apiKey: 'test-key', voice: 'voice-1', baseURL: srv.httpUrl, sampleRate: 16000, ...(opts as Partial<CartesiaTTSOptions>) }),
    sentTexts: () =>
      srv.received
        .map((r) => r.message)
        .filter((m) => typeof m.transcript === 'string' && (m.transcript as string).length > 0)
        .map((m) => String(m.transcript)),
    // The codec appends the space that separates continuations; the server tags the exact transcript.
    wireText: (text) => `${text} `,
    tagOf: (text) => tagForText(`${text} `),
    setServer: (patch) => srv.setOptions(patch as Partial<CartesiaServerOptions>),
    close: () => srv.close(),
  };
}

const TIMELINE_EVENTS = ['chunk', 'pacing', 'sent', 'first_byte', 'first_frame', 'track_done', 'interrupted', 'heard', 'retry'] as const;

/**
 * Every event of every stream `engine` makes from now on, on one emitter: a test's view across
 * streams (the TTS itself gives each stream its own timeline).
 */
export function everyStream(engine: FirstwordTTS): EventEmitter<TimelineEvents> {
  const all = new EventEmitter<TimelineEvents>();
  engine.onStream((_, timeline) => {
    for (const name of TIMELINE_EVENTS) (timeline as EventEmitter).on(name, (e: unknown) => (all as EventEmitter).emit(name, e));
  });
  return all;
}

/** Texts the driver sent, per stream id, from the streams' timelines. */
export function recordSent(engine: FirstwordTTS): Map<string, string[]> {
  const sent = new Map<string, string[]>();
  everyStream(engine).on('sent', (e) => {
    const list = sent.get(e.streamId) ?? [];
    list.push(e.text);
    sent.set(e.streamId, list);
  });
  return sent;
}

export const fixtures = { resemble: resembleFixture, cartesia: cartesiaFixture };

/** A test's provider fixture and engine, both closed after each test. */
export function fixtureEachTest<E extends FirstwordTTS = FirstwordTTS>(): { fx?: ProviderFixture; engine?: E } {
  const current: { fx?: ProviderFixture; engine?: E } = {};
  afterEach(async () => {
    await current.engine?.close();
    current.engine = undefined;
    await current.fx?.close();
    current.fx = undefined;
  });
  return current;
}
