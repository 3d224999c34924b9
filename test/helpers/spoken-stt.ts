/**
 * What the live speech-to-text suites share: eSpeak and Silero loaded once per suite, and a local
 * OpenAI server per test, closed after it whatever the test did.
 */
import type { VAD } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { type OpenAIServer, type OpenAIServerOptions, startOpenAIServer } from '../servers/openai-server.js';
import { withTimeout } from './async.js';

export interface SpokenStt {
  readonly synthesizer: EspeakSynthesizer;
  readonly vad: VAD;
  /** A fresh server for this test; closed after it. */
  startServer(options: Partial<OpenAIServerOptions>): Promise<OpenAIServer>;
}

/** Registers the suite's hooks; call inside a `describe`. */
export function useSpokenStt(vadOptions: Parameters<typeof silero.VAD.load>[0] = {}): SpokenStt {
  let synthesizer: EspeakSynthesizer | undefined;
  let vad: VAD | undefined;
  let server: OpenAIServer | undefined;

  beforeAll(async () => {
    synthesizer = await withTimeout(EspeakSynthesizer.start(), 30_000, 'eSpeak start');
    vad = await withTimeout(silero.VAD.load(vadOptions), 15_000, 'Silero load');
  }, 60_000);

  afterAll(async () => {
    await synthesizer?.close();
  });

  afterEach(async () => {
    await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
    server = undefined;
  });

  const loaded = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is not loaded: use it inside a test`);
    return value;
  };
  return {
    get synthesizer() {
      return loaded(synthesizer, 'eSpeak');
    },
    get vad() {
      return loaded(vad, 'Silero');
    },
    async startServer(options) {
      server = await startOpenAIServer(options);
      return server;
    },
  };
}
