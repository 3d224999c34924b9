/**
 * API keys never show up in logs, error messages or error events — on every error path — and
 * provider URLs refuse plain-text schemes to remote hosts unless explicitly allowed.
 */
import { APIError, initializeLogger } from '@livekit/agents';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { providerUrl } from '../../src/protocol/connect.js';
import { CartesiaTTS, ResembleTTS } from '../../src/index.js';
import { startCartesiaServer } from '../../../../test/servers/cartesia-server.js';
import { startResembleServer } from '../../../../test/servers/resemble-server.js';
import { type OutputCapture, captureOutput, captureUnhandledRejections } from '../../../../test/chaos/capture.js';
import { collect, speak } from './harness.js';

const KEY = 'sk-live-Fw7q9Zc0rrectSecretKey0123456789';
const WRONG = 'sk-live-Wr0ngSecretKeyThatMustNotLeak9876';
const SECRETS = [KEY, WRONG];
const CONN = { maxRetry: 1, retryIntervalMs: 10, timeoutMs: 300 };
const POOL = { inactivityTimeoutMs: 150, backoffBaseMs: 5, backoffMaxMs: 20 };

/** Everything a failure left behind, rendered the ways a log line or a crash report would. */
function renderings(value: unknown): string[] {
  if (value instanceof Error) {
    return [value.message, String(value.stack), inspect(value, { depth: 8 }), JSON.stringify(value), JSON.stringify((value as APIError).body ?? null)];
  }
  return [inspect(value, { depth: 8 })];
}

describe('API keys never leak', () => {
  let output: OutputCapture;
  let rejections: ReturnType<typeof captureUnhandledRejections>;
  let surfaced: unknown[];
  let engine: FirstwordTTS | undefined;
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(() => {
    // Every level, so debug-only paths (background reconnects) are checked too.
    initializeLogger({ pretty: false, level: 'trace' });
  });
  beforeEach(() => {
    surfaced = [];
    output = captureOutput();
    rejections = captureUnhandledRejections();
  });
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    for (const c of cleanups.splice(0)) await c();
    await new Promise((r) => setTimeout(r, 20));
    output.restore();
    rejections.restore();
    const evidence = [output.text(), ...[...surfaced, ...rejections.reasons].flatMap(renderings)];
    for (const text of evidence) for (const secret of SECRETS) expect(text.includes(secret), `a key leaked into: ${text.slice(0, 300)}`).toBe(false);
  });

  /** Listens for the engine's error events (what AgentSession logs and reacts to). */
  const watch = (e: FirstwordTTS) => {
    engine = e;
    e.on('error', (ev) => surfaced.push(ev.error, ev));
    return e;
  };
  const turn = async (e: FirstwordTTS, text = 'Hello there, this is a test. And a second sentence.') => {
    const stream = e.stream({ connOptions: CONN });
    speak(stream, [text]);
    return collect(stream, 8000);
  };
  const synthesizeAll = async (e: FirstwordTTS) => {
    try {
      for await (const _ of e.synthesize('Hello there, friend.', CONN)) void _;
    } catch (err) {
      surfaced.push(err);
    }
  };

  for (const authFailure of ['error-frame', 'http-401'] as const) {
    it(`Resemble: a rejected key (${authFailure}) on stream() and synthesize()`, async () => {
      const server = await startResembleServer({ apiKeys: [KEY], authFailure, msPerChar: 1 });
      cleanups.push(() => server.close());
      const e = watch(new ResembleTTS({ apiKey: WRONG, voiceUuid: 'v', baseURL: server.url, sampleRate: 16000, pool: POOL }));
      await turn(e);
      await synthesizeAll(e);
      expect(surfaced.some((x) => x instanceof APIError && /RESEMBLE_API_KEY/.test(x.message))).toBe(true);
    });
  }

  it('Cartesia: a rejected key on the WebSocket and on /tts/bytes', async () => {
    const server = await startCartesiaServer({ apiKeys: [KEY], msPerChar: 1 });
    cleanups.push(() => server.close());
    const e = watch(new CartesiaTTS({ apiKey: WRONG, voice: 'v', baseURL: server.httpUrl, sampleRate: 16000, pool: POOL }));
    await turn(e);
    await synthesizeAll(e);
    await new Promise((r) => setTimeout(r, 20));
    const all = [...surfaced, ...rejections.reasons];
    expect(all.filter((x) => x instanceof APIError && /CARTESIA_API_KEY/.test(x.message)).length).toBeGreaterThanOrEqual(2);
  });

  for (const provider of ['resemble', 'cartesia'] as const) {
    it(`${provider}: 5xx frames, 4xx frames, dropped sockets and stalls with a valid key`, async () => {
      let mode: 'error-5xx' | 'error-4xx' | 'drop' | 'stall' = 'error-5xx';
      const resembleFault = () =>
        mode === 'error-5xx'
          ? { kind: 'error-frame' as const, statusCode: 503 }
          : mode === 'error-4xx'
            ? { kind: 'error-frame' as const, statusCode: 400, errorName: 'BadRequest' }
            : mode === 'drop'
              ? { kind: 'terminate-mid-request' as const, afterBytes: 100 }
              : { kind: 'stall' as const, afterBytes: 100 };
      const cartesiaFault = () =>
        mode === 'error-5xx'
          ? { kind: 'error-event' as const, statusCode: 503 }
          : mode === 'error-4xx'
            ? { kind: 'error-event' as const, statusCode: 400, errorCode: 'invalid_request', message: 'bad field' }
            : mode === 'drop'
              ? { kind: 'terminate' as const, afterBytes: 100 }
              : { kind: 'stall' as const, afterBytes: 100 };
      let e: FirstwordTTS;
      if (provider === 'resemble') {
        const server = await startResembleServer({ apiKeys: [KEY], msPerChar: 1, fault: resembleFault });
        cleanups.push(() => server.close());
        e = watch(new ResembleTTS({ apiKey: KEY, voiceUuid: 'v', baseURL: server.url, sampleRate: 16000, pool: POOL }));
      } else {
        const server = await startCartesiaServer({ apiKeys: [KEY], msPerChar: 1, fault: cartesiaFault });
        cleanups.push(() => server.close());
        e = watch(new CartesiaTTS({ apiKey: KEY, voice: 'v', baseURL: server.httpUrl, sampleRate: 16000, pool: POOL }));
      }
      for (const m of ['error-5xx', 'error-4xx', 'drop', 'stall'] as const) {
        mode = m;
        await turn(e);
        await synthesizeAll(e);
      }
      // Every path failed loudly (so there was something to leak) and the logger was captured.
      expect(surfaced.filter((x) => x instanceof APIError).length).toBeGreaterThanOrEqual(4);
      expect(output.text()).toMatch(/retrying/);
    });
  }

  it('connection refused and connect timeouts', async () => {
    // A port that refuses, then a server that accepts TCP and never answers the upgrade.
    const closed = await listen(createServer());
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const silent = await listen(createServer());
    const sockets = new Set<Socket>();
    silent.on('connection', (s) => sockets.add(s));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => silent.close(() => r()));
    });
    const silentUrl = `ws://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    for (const baseURL of [`ws://127.0.0.1:${port}`, silentUrl]) {
      const r = watch(new ResembleTTS({ apiKey: KEY, voiceUuid: 'v', baseURL, sampleRate: 16000, connectTimeoutMs: 100, pool: POOL }));
      await turn(r);
      await r.close();
      const c = watch(new CartesiaTTS({ apiKey: KEY, voice: 'v', baseURL, sampleRate: 16000, connectTimeoutMs: 100, pool: POOL }));
      await turn(c);
      await synthesizeAll(c);
      await c.close();
    }
    expect(surfaced.some((x) => x instanceof APIError && /timed out/.test(x.message))).toBe(true);
  });

  it('a refusal whose body echoes the request headers (a verbose proxy)', async () => {
    const echo = createServer((req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'denied', headers: req.headers }));
    });
    echo.on('upgrade', (req, socket) => {
      const body = JSON.stringify({ error: 'denied', headers: req.headers });
      socket.end(`HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    await listen(echo);
    cleanups.push(() => new Promise<void>((r) => echo.close(() => r())));
    const base = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    const r = watch(new ResembleTTS({ apiKey: KEY, voiceUuid: 'v', baseURL: base.replace('http', 'ws'), sampleRate: 16000, pool: POOL }));
    await turn(r);
    await r.close();
    const c = watch(new CartesiaTTS({ apiKey: KEY, voice: 'v', baseURL: base, sampleRate: 16000, pool: POOL }));
    await turn(c);
    await synthesizeAll(c);
    await new Promise((res) => setTimeout(res, 20));
    // The refusal's detail is still reported, minus the key.
    const messages = [...surfaced, ...rejections.reasons].filter((x): x is APIError => x instanceof APIError).map((x) => x.message);
    expect(messages.some((m) => /denied/.test(m))).toBe(true);
  });

  it('configuration errors, and inspecting a TTS instance', () => {
    const attempts = [
      () => new ResembleTTS({ apiKey: KEY, voiceUuid: 'v', sampleRate: 12345 }),
      () => new ResembleTTS({ apiKey: KEY, voiceUuid: 'v', baseURL: 'ws://tts.example.com' }),
      () => new CartesiaTTS({ apiKey: KEY, voice: 'v', pool: { inactivityTimeoutMs: NaN } }),
      () => new CartesiaTTS({ apiKey: KEY, voice: '', baseURL: 'https://api.example.com' }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow();
      try {
        attempt();
      } catch (err) {
        surfaced.push(err);
      }
    }
    const r = new ResembleTTS({ apiKey: KEY, voiceUuid: 'v' });
    const c = new CartesiaTTS({ apiKey: KEY, voice: 'v' });
    for (const e of [r, c]) surfaced.push(inspect(e, { depth: Infinity, showHidden: true }), JSON.stringify(Object.entries(e)));
    void r.close();
    void c.close();
  });
});

describe('provider URLs refuse plain text to remote hosts', () => {
  const remote = ['tts.example.com', '10.0.0.5', '0.0.0.0', '127.0.0.1.evil.example', 'localhost.evil.example', '[fe80::1]'];
  const loopback = ['127.0.0.1', '127.5.6.7', 'localhost', '[::1]'];

  it.each(remote)('refuses ws:// and http:// to %s unless allowInsecure', (host) => {
    for (const scheme of ['ws', 'http'] as const) {
      expect(() => providerUrl(`${scheme}://${host}:8080`, '/stream', 'ws')).toThrow(/refusing an unencrypted provider URL/);
      expect(providerUrl(`${scheme}://${host}:8080`, '/stream', 'ws', true)).toBe(`ws://${host}:8080/stream`);
    }
    expect(() => new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', baseURL: `ws://${host}` })).toThrow(/unencrypted/);
    expect(() => new CartesiaTTS({ apiKey: 'k', voice: 'v', baseURL: `http://${host}` })).toThrow(/unencrypted/);
  });

  it.each(loopback)('allows ws:// and http:// to the loopback host %s', (host) => {
    expect(providerUrl(`ws://${host}:9000`, '/stream', 'ws')).toBe(`ws://${host}:9000/stream`);
    expect(providerUrl(`http://${host}:9000`, '/tts/bytes', 'http')).toBe(`http://${host}:9000/tts/bytes`);
  });

  it('keeps encryption when converting between WebSocket and HTTP schemes', () => {
    expect(providerUrl('https://api.cartesia.ai', '/tts/websocket', 'ws')).toBe('wss://api.cartesia.ai/tts/websocket');
    expect(providerUrl('wss://websocket.cluster.resemble.ai/', '/stream', 'ws')).toBe('wss://websocket.cluster.resemble.ai/stream');
    expect(providerUrl('wss://api.cartesia.ai', '/tts/bytes', 'http')).toBe('https://api.cartesia.ai/tts/bytes');
  });
});

function listen(server: Server): Promise<Server> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
