/**
 * Each provider's facts are declared once, in the TTS plugin's descriptors, and everything else
 * derives from them. These tests probe each place that applies a fact (the configuration, the
 * plugin, the factory, the local voice, the protocol fakes) and compare what it does with the
 * descriptor, so a list declared again somewhere and drifting apart fails here.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { initializeLogger } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { CartesiaTTS, ResembleTTS } from '@firstword/agents-plugin-tts';
import { CARTESIA, MAX_START_BUFFER_MS, PROVIDERS, RESEMBLE } from '@firstword/agents-plugin-tts/providers';
import { ConfigError, ENV_VARIABLES, PROVIDER_FACTS, TTS_PROVIDERS, loadConfig } from '../../src/config/index.js';
import { parseRequest } from '../../src/local-voice/protocol.js';
import { type CreatedTTS, createTTS } from '../../src/tts/factory.js';
import { CARTESIA_SERVER_DEFAULTS } from '../servers/cartesia/options.js';
import { featuresFor } from '../servers/cartesia/protocol.js';
import { validateGeneration } from '../servers/cartesia/validate.js';
import { DEFAULT_ERROR_NAMES, RESEMBLE_SERVER_DEFAULTS } from '../servers/resemble/options.js';
import { validateRequest } from '../servers/resemble/request.js';

initializeLogger({ pretty: false, level: 'error' });

/** Every rate any provider serves, and common rates none of them might. */
const CANDIDATE_RATES = [...new Set([...RESEMBLE.sampleRates, ...CARTESIA.sampleRates, 11025, 12000, 24000, 32000, 96000])].sort((a, b) => a - b);

/** The candidates `accepts` lets through, to compare with a descriptor's list. */
const acceptedBy = (accepts: (rate: number) => boolean): number[] => CANDIDATE_RATES.filter(accepts);

/** The keys a pipeline needs for each choice, so only the rate can be wrong. */
const KEYS: Record<(typeof TTS_PROVIDERS)[number], Record<string, string>> = {
  resemble: { RESEMBLE_API_KEY: 'k', RESEMBLE_VOICE_UUID: 'v' },
  cartesia: { CARTESIA_API_KEY: 'k', CARTESIA_VOICE: 'v' },
  local: {},
  'cartesia-livekit': { CARTESIA_API_KEY: 'k', CARTESIA_VOICE: 'v' },
};

function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, { mode: 'demo' });
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

describe('the configuration', () => {
  it.each(TTS_PROVIDERS)('%s: accepts exactly its descriptor’s rates and names them when it refuses one', (provider) => {
    const rates = PROVIDER_FACTS[provider].sampleRates;
    const accepted = acceptedBy((rate) => configProblems({ TTS_PROVIDER: provider, ...KEYS[provider], TTS_SAMPLE_RATE: String(rate) }).length === 0);
    expect(accepted).toEqual([...rates]);
    const refused = CANDIDATE_RATES.find((rate) => rate <= 48000 && !(rates as readonly number[]).includes(rate))!;
    expect(configProblems({ TTS_PROVIDER: provider, ...KEYS[provider], TTS_SAMPLE_RATE: String(refused) })).toEqual([
      `TTS_SAMPLE_RATE must be one of ${rates.join(', ')} for ${provider} (got "${refused}")`,
    ]);
  });

  it('takes Cartesia’s model and word timestamps from its descriptor when unset', () => {
    const cartesia = loadConfig({ TTS_PROVIDER: 'cartesia', ...KEYS.cartesia }, { mode: 'demo' }).tts.cartesia;
    expect(cartesia.model).toBe(CARTESIA.defaultModel);
    expect(cartesia.wordTimestamps).toBe(CARTESIA.wordTimestamps);
  });

  it('bounds the start buffer by the plugin’s maximum', () => {
    expect(configProblems({ TTS_START_BUFFER_MS: String(MAX_START_BUFFER_MS) })).toEqual([]);
    expect(configProblems({ TTS_START_BUFFER_MS: String(MAX_START_BUFFER_MS + 1) })).toHaveLength(1);
    expect(() => new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', startBufferMs: MAX_START_BUFFER_MS + 1 })).toThrow(String(MAX_START_BUFFER_MS));
  });

  it('reads every variable a descriptor names, and .env.example documents each', () => {
    const documented = readFileSync(resolve(import.meta.dirname, '../../.env.example'), 'utf8');
    const variables = Object.values(PROVIDERS).flatMap((p) => Object.keys(p.environment));
    expect(variables.length).toBeGreaterThan(0);
    expect(variables.filter((name) => !(ENV_VARIABLES as string[]).includes(name))).toEqual([]);
    expect(variables.filter((name) => !new RegExp(`^${name}=`, 'm').test(documented))).toEqual([]);
    for (const p of Object.values(PROVIDERS)) expect(Object.keys(p.environment)).toContain(p.keyVariable);
  });
});

describe('the plugin', () => {
  it('each TTS accepts exactly its descriptor’s rates and defaults to its default rate', () => {
    expect(acceptedBy((rate) => succeeds(() => new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', sampleRate: rate })))).toEqual([...RESEMBLE.sampleRates]);
    expect(acceptedBy((rate) => succeeds(() => new CartesiaTTS({ apiKey: 'k', voice: 'v', sampleRate: rate })))).toEqual([...CARTESIA.sampleRates]);
    const resemble = new ResembleTTS({ apiKey: 'k', voiceUuid: 'v' });
    const cartesia = new CartesiaTTS({ apiKey: 'k', voice: 'v' });
    expect([resemble.sampleRate, resemble.capabilities.alignedTranscript]).toEqual([RESEMBLE.defaultSampleRate, RESEMBLE.wordTimestamps]);
    expect([cartesia.sampleRate, cartesia.model, cartesia.capabilities.alignedTranscript]).toEqual([
      CARTESIA.defaultSampleRate,
      CARTESIA.defaultModel,
      CARTESIA.wordTimestamps,
    ]);
    void resemble.close();
    void cartesia.close();
  });
});

function succeeds(make: () => { close(): Promise<void> }): boolean {
  try {
    void make().close();
    return true;
  } catch {
    return false;
  }
}

describe('the factory', () => {
  let created: CreatedTTS | undefined;
  afterEach(async () => {
    await created?.close();
    created = undefined;
  });

  it.each(TTS_PROVIDERS.filter((p) => p !== 'cartesia-livekit'))('%s without TTS_SAMPLE_RATE speaks at its descriptor’s default rate', async (provider) => {
    created = await createTTS(loadConfig({ TTS_PROVIDER: provider, ...KEYS[provider] }, { mode: 'demo' }));
    expect(created.tts.sampleRate).toBe(PROVIDER_FACTS[provider].defaultSampleRate);
  });
});

describe('the servers that speak a provider’s protocol', () => {
  it('the local voice accepts exactly Resemble’s rates', () => {
    const accepts = (rate: number) =>
      parseRequest(JSON.stringify({ voice_uuid: 'v', data: 'Hi.', precision: 'PCM_16', output_format: 'wav', sample_rate: rate }), () => 0).ok;
    expect(acceptedBy(accepts)).toEqual([...RESEMBLE.sampleRates]);
    const unset = parseRequest(JSON.stringify({ voice_uuid: 'v', data: 'Hi.', precision: 'PCM_16' }), () => 0);
    expect(unset.ok && unset.request.sampleRate).toBe(RESEMBLE.defaultSampleRate);
  });

  it('the local voice and the Resemble fake take text up to Resemble’s request limit', () => {
    const limit = RESEMBLE.maxRequestChars;
    const request = (chars: number) => JSON.stringify({ voice_uuid: 'v', data: 'x'.repeat(chars), precision: 'PCM_16' });
    expect([parseRequest(request(limit), () => 0).ok, parseRequest(request(limit + 1), () => 0).ok]).toEqual([true, false]);
    expect(RESEMBLE_SERVER_DEFAULTS.maxChars).toBe(limit);
  });

  it('the Resemble fake accepts exactly Resemble’s rates', () => {
    const accepts = (rate: number) =>
      validateRequest(JSON.stringify({ voice_uuid: 'v', data: 'Hi.', precision: 'PCM_16', sample_rate: rate }), false, {
        assignRequestId: () => 0,
        maxChars: RESEMBLE_SERVER_DEFAULTS.maxChars,
        voices: undefined,
        defaultSampleRate: RESEMBLE.defaultSampleRate,
        errorNames: DEFAULT_ERROR_NAMES,
        modelUnavailableStatus: 500,
        streamingPlan: true,
      }).ok;
    expect(acceptedBy(accepts)).toEqual([...RESEMBLE.sampleRates]);
  });

  it('the Cartesia fake accepts exactly Cartesia’s rates, with its default model and API version', () => {
    const accepts = (rate: number) =>
      validateGeneration(
        {
          model_id: CARTESIA.defaultModel,
          transcript: 'Hi.',
          voice: { mode: 'id', id: 'v' },
          output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: rate },
          context_id: 'c',
        },
        featuresFor(CARTESIA.defaultApiVersion),
        CARTESIA_SERVER_DEFAULTS,
        'ws',
      ).ok;
    expect(acceptedBy(accepts)).toEqual([...CARTESIA.sampleRates]);
  });
});
