/**
 * The voice a call starts with (src/tts/call-voice.ts), against real servers: the Cartesia
 * protocol server answering, a port that refuses connections, and the embedded voice as the
 * fallback. What the caller would hear is the fallback's audio; what the operator reads is one
 * log line.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { voiceForCall, type CallVoice } from '../../src/tts/call-voice.js';
import { createTTS } from '../../src/tts/factory.js';
import { ResembleTTS } from '@firstword/agents-plugin-tts';
import { startCartesiaServer } from '../servers/cartesia-server.js';
import { testConfig } from '../helpers/config.js';
import { collect, speak } from '../../packages/agents-plugin-tts/test/driver/harness.js';

/** A loopback port nothing listens on: connections to it are refused at once. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function recordingLogger() {
  const lines: Array<{ level: 'warn' | 'error'; fields: Record<string, unknown>; msg: string }> = [];
  return {
    lines,
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', fields, msg }),
    error: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'error', fields, msg }),
  };
}

const cartesia = (baseURL: string, extra: Record<string, string> = {}) =>
  testConfig({ TTS_PROVIDER: 'cartesia', CARTESIA_API_KEY: 'test-key', CARTESIA_VOICE: 'v', CARTESIA_BASE_URL: baseURL, ...extra });

describe('the voice a call starts with', () => {
  let chosen: CallVoice | undefined;
  afterEach(async () => {
    await chosen?.voice.close();
    chosen = undefined;
  });

  it('keeps the provider, silently, when it answers', async () => {
    const server = await startCartesiaServer({ msPerChar: 5 });
    try {
      const config = cartesia(server.httpUrl);
      const log = recordingLogger();
      chosen = await voiceForCall(config, createTTS(config), log, { create: createTTS });
      expect(chosen).toMatchObject({ provider: 'cartesia', fallback: false });
      expect(log.lines).toEqual([]);
      expect(server.connectionsOpened).toBeGreaterThanOrEqual(1);
    } finally {
      await chosen?.voice.close();
      chosen = undefined;
      await server.close();
    }
  });

  it('speaks with the fallback voice when the provider refuses connections, saying so in one warning', async () => {
    const config = cartesia(`http://127.0.0.1:${await refusingPort()}`, { TTS_FALLBACK: 'local' });
    const log = recordingLogger();
    chosen = await voiceForCall(config, createTTS(config), log, { create: createTTS });
    expect(chosen).toMatchObject({ provider: 'local', fallback: true });
    expect(chosen.voice.tts).toBeInstanceOf(ResembleTTS);
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'warn', fields: { provider: 'cartesia', fallback: 'local' } });
    expect(log.lines[0]!.msg).toMatch(/unreachable as the call starts; this call speaks with the fallback voice \(local\)/);
    expect(String(log.lines[0]!.fields.error)).not.toBe('');
    // The caller hears it: the fallback voice makes audio.
    const stream = chosen.voice.tts.stream();
    speak(stream, ['Hello, how can I help you today?']);
    const out = await collect(stream, 20_000);
    expect(out.samples.length).toBeGreaterThan(chosen.voice.tts.sampleRate / 2);
  }, 40_000);

  it('without a fallback, keeps the provider (turns retry it) and says once that replies stay silent', async () => {
    const config = cartesia(`http://127.0.0.1:${await refusingPort()}`);
    const log = recordingLogger();
    chosen = await voiceForCall(config, createTTS(config), log, { create: createTTS });
    expect(chosen).toMatchObject({ provider: 'cartesia', fallback: false });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'error', fields: { provider: 'cartesia' } });
    expect(log.lines[0]!.msg).toMatch(/no TTS_FALLBACK is set; replies stay silent until it answers/);
  });

  it('counts a provider that accepts TCP but never completes the handshake as unreachable', async () => {
    // A listener that never answers the WebSocket upgrade.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const config = cartesia(`http://127.0.0.1:${(silent.address() as { port: number }).port}`, { TTS_FALLBACK: 'local' });
      const log = recordingLogger();
      // The fallback itself is not under test here: a stand-in spares starting the embedded voice.
      const standIn = { tts: {} as CallVoice['voice']['tts'], prewarm: async () => {}, close: async () => {} };
      const create = (c: typeof config) => (c.tts.provider === 'local' ? Promise.resolve(standIn) : createTTS(c));
      const result = await voiceForCall(config, createTTS(config), log, { create, checkMs: 500 });
      expect(result).toMatchObject({ provider: 'local', fallback: true });
      expect(result.voice).toBe(standIn);
      expect(log.lines).toHaveLength(1);
    } finally {
      silent.close();
    }
  });
});
