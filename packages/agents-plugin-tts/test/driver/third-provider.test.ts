/**
 * The driver contract from the outside: a made-up provider ("Echo": JSON requests by id, audio
 * back in base64 pieces, concurrent on one socket) written as src/README.md says a third
 * provider is — a codec and a FirstwordTTS subclass, nothing else — speaks a reply in order,
 * splits long text at its limit, survives a barge-in on the same socket, and reports a rejected
 * key as a non-retryable error. Nothing in the driver knows this protocol.
 */
import { APIStatusError, initializeLogger } from '@livekit/agents';
import type { AddressInfo } from 'node:net';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FirstwordTTS } from '../../src/driver/base.js';
import { type ProviderCodec, type ProviderEvent, type SendChunk, rawBytes } from '../../src/protocol/codec.js';
import { openWebSocket } from '../../src/protocol/connect.js';
import { createMessageParser } from '../../src/protocol/message-parser.js';
import { FIRSTWORD_TTS_DEFAULTS, type FirstwordTTSOptions, checkSharedOptions, driverOptions, endpoint } from '../../src/driver/options.js';
import { heardRuns, samplesForText, synthesizeTaggedPcm16, tagForText } from '../../../../test/servers/audio-tag.js';
import { collect, sleep, speak, tokens, withTimeout } from './harness.js';

const SAMPLE_RATE = 16000;
const MS_PER_CHAR = 8;

// ---- the provider: a codec and its TTS class, as a new provider file pair would be ----------

const echoMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('audio'), id: z.string(), pcm: z.string() }),
  z.object({ type: z.literal('done'), id: z.string() }),
  z.object({ type: z.literal('error'), id: z.string().optional(), status: z.number(), message: z.string() }),
]);

class EchoCodec implements ProviderCodec {
  readonly provider = 'echo';
  readonly ordering = 'multiplexed' as const;
  readonly tracks = 'request' as const;
  readonly maxRequestChars = 60;
  readonly maxInFlight = 8;
  readonly sampleRate = SAMPLE_RATE;
  #next = 1;
  #parse = createMessageParser('echo', echoMessage);

  constructor(
    private readonly url: string,
    private readonly apiKey: string,
  ) {}

  connect(signal?: AbortSignal): Promise<WebSocket> {
    return openWebSocket(this.url, { provider: 'Echo', keyEnvName: 'ECHO_API_KEY', headers: { 'x-key': this.apiKey }, timeoutMs: 2000, signal });
  }

  newTrack(): string {
    return `e${this.#next++}`;
  }

  encode(chunk: SendChunk): string[] {
    return [JSON.stringify({ id: chunk.track, text: chunk.text })];
  }

  encodeClose(): string[] {
    return [];
  }

  encodeCancel(track: string): string[] {
    return [JSON.stringify({ cancel: track })];
  }

  decode(data: RawData): ProviderEvent[] {
    const msg = this.#parse(JSON.parse(rawBytes(data).toString('utf8')));
    if (!msg) return [];
    if (msg.type === 'audio') return [{ type: 'audio', track: msg.id, pcm: Buffer.from(msg.pcm, 'base64') }];
    if (msg.type === 'done') return [{ type: 'end', track: msg.id }];
    const error = new APIStatusError({ message: `Echo error ${msg.status}: ${msg.message}`, options: { statusCode: msg.status, retryable: msg.status >= 500 } });
    return [{ type: 'error', track: msg.id, error, closesSocket: msg.status === 401 }];
  }
}

class EchoTTS extends FirstwordTTS {
  readonly label = 'test.echo.TTS';

  constructor(opts: Partial<FirstwordTTSOptions> = {}) {
    const merged: FirstwordTTSOptions = { ...FIRSTWORD_TTS_DEFAULTS, wordTimestamps: false, sampleRate: SAMPLE_RATE, baseURL: 'ws://127.0.0.1:1', speech: false, ...opts };
    const apiKey = checkSharedOptions({ name: 'Echo', keyVariable: 'ECHO_API_KEY', sampleRates: [SAMPLE_RATE] }, merged);
    super(new EchoCodec(endpoint(merged, '/echo', 'ws'), apiKey), driverOptions(merged), merged.pool, { alignedTranscript: false });
  }
}

// ---- its local server --------------------------------------------------------------------

interface EchoServer {
  url: string;
  connections: number;
  received: string[];
  cancelled: string[];
  close(): Promise<void>;
}

/** Streams each request's tagged audio in 20 ms pieces, 2 ms apart, until done or cancelled. */
async function startEchoServer(): Promise<EchoServer> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const server: EchoServer = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    connections: 0,
    received: [],
    cancelled: [],
    close: () => {
      for (const c of wss.clients) c.terminate();
      return new Promise((resolve) => wss.close(() => resolve()));
    },
  };
  wss.on('connection', (ws, req) => {
    if (req.headers['x-key'] !== 'good') {
      ws.send(JSON.stringify({ type: 'error', status: 401, message: 'bad key' }));
      ws.close();
      return;
    }
    server.connections++;
    const cancelled = new Set<string>();
    ws.on('message', async (data) => {
      const msg = JSON.parse(String(data)) as { id?: string; text?: string; cancel?: string };
      if (msg.cancel) {
        cancelled.add(msg.cancel);
        server.cancelled.push(msg.cancel);
        return;
      }
      server.received.push(msg.text!);
      const pcm = synthesizeTaggedPcm16(msg.text!, SAMPLE_RATE, MS_PER_CHAR);
      for (let at = 0; at < pcm.length && !cancelled.has(msg.id!); at += 640) {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify({ type: 'audio', id: msg.id, pcm: pcm.subarray(at, at + 640).toString('base64') }));
        await sleep(2);
      }
      if (ws.readyState === ws.OPEN && !cancelled.has(msg.id!)) ws.send(JSON.stringify({ type: 'done', id: msg.id }));
    });
  });
  return server;
}

// ---- the contract ------------------------------------------------------------------------

describe('a third provider, written as src/README.md says', () => {
  let server: EchoServer;
  let engine: EchoTTS | undefined;
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await server?.close();
  });

  it('speaks every chunk once, in order, long text split at its limit, on one prewarmed socket', async () => {
    server = await startEchoServer();
    engine = new EchoTTS({ apiKey: 'good', baseURL: server.url, pool: { warmSpare: false } });
    await engine.prewarm();
    const reply = 'Sure, happy to help. This second sentence is long enough that the Echo limit of sixty characters splits it in two.';
    const stream = engine.stream();
    speak(stream, tokens(reply));
    const out = await collect(stream, 10_000);
    expect(out.endOfStream).toBe(true);
    expect(server.received.every((t) => t.length <= 60)).toBe(true);
    expect(server.received.join(' ')).toBe(reply);
    const expected = server.received.map((t) => ({ tag: tagForText(t), samples: samplesForText(t, SAMPLE_RATE, MS_PER_CHAR) }));
    expect(heardRuns(out.samples)).toEqual(expected);
    expect(out.frames.at(-1)!.final).toBe(true);
    expect(server.connections).toBe(1);
  });

  it('stops at a barge-in, cancels what was outstanding, and serves the next reply on the same socket', async () => {
    server = await startEchoServer();
    engine = new EchoTTS({ apiKey: 'good', baseURL: server.url, pool: { warmSpare: false } });
    await engine.prewarm();
    const first = engine.stream();
    speak(first, tokens('One two three four five. Six seven eight nine ten. Eleven twelve thirteen fourteen.'));
    const iterator = first[Symbol.asyncIterator]();
    await withTimeout(iterator.next(), 5000, 'the first frame');
    first.close();
    await withTimeout(
      (async () => {
        while (server.cancelled.length === 0) await sleep(5);
      })(),
      5000,
      'a cancel from the barge-in',
    );

    const second = engine.stream();
    speak(second, tokens('Next reply.'));
    const out = await collect(second, 10_000);
    expect(heardRuns(out.samples)).toEqual([{ tag: tagForText('Next reply.'), samples: samplesForText('Next reply.', SAMPLE_RATE, MS_PER_CHAR) }]);
    expect(server.connections).toBe(1);
  });

  it('reports a rejected key as a non-retryable error that names the variable', async () => {
    server = await startEchoServer();
    engine = new EchoTTS({ apiKey: 'bad', baseURL: server.url });
    const error = await engine.prewarm().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).retryable).toBe(false);
  });
});
