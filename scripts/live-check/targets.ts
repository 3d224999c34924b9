/**
 * The configuration (src/config, the same variables the worker reads) → what to probe: each
 * provider whose key and voice are set, built with the same codec and defaults the worker uses.
 * A provider without them is skipped, naming the variables it needs.
 */
import type { AppConfig } from '../../src/config/index.js';
import { CARTESIA_DEFAULTS, CARTESIA_SAMPLE_RATES } from '@firstword/agents-plugin-tts';
import { CartesiaCodec, type CartesiaCodecOptions } from '@firstword/agents-plugin-tts/protocol';
import { providerUrl } from '@firstword/agents-plugin-tts/protocol';
import { RESEMBLE_DEFAULTS, RESEMBLE_SAMPLE_RATES } from '@firstword/agents-plugin-tts';
import { ResembleCodec, type ResembleCodecOptions } from '@firstword/agents-plugin-tts/protocol';

export interface ResembleTarget {
  provider: 'resemble';
  options: ResembleCodecOptions;
  /** A codec as the worker builds it, with some options changed. */
  codec(change?: Partial<ResembleCodecOptions>): ResembleCodec;
  /** Settings shown in the report (no key, no voice id). */
  summary: string;
}

export interface CartesiaTarget {
  provider: 'cartesia';
  options: CartesiaCodecOptions;
  codec(change?: Partial<CartesiaCodecOptions>): CartesiaCodec;
  summary: string;
}

export interface Skipped {
  provider: 'resemble' | 'cartesia';
  skipped: string;
}

export const NEEDS = {
  resemble: { required: ['RESEMBLE_API_KEY', 'RESEMBLE_VOICE_UUID'], optional: ['RESEMBLE_MODEL', 'RESEMBLE_PROJECT_UUID', 'RESEMBLE_BASE_URL', 'TTS_SAMPLE_RATE'] },
  cartesia: { required: ['CARTESIA_API_KEY', 'CARTESIA_VOICE'], optional: ['CARTESIA_MODEL', 'CARTESIA_LANGUAGE', 'CARTESIA_API_VERSION', 'CARTESIA_BASE_URL', 'TTS_SAMPLE_RATE'] },
} as const;

function needs(provider: keyof typeof NEEDS, missing: string[]): Skipped {
  const { required, optional } = NEEDS[provider];
  return {
    provider,
    skipped: `set ${required.join(' and ')} to check it (not set: ${missing.join(', ')}; optional: ${optional.join(', ')})`,
  };
}

/** The configured rate if the provider serves it, else its default (the worker would refuse the other). */
function rateFor(configured: number | undefined, served: readonly number[], fallback: number): number {
  return configured !== undefined && served.includes(configured) ? configured : fallback;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

export function resembleTarget(config: AppConfig): ResembleTarget | Skipped {
  const r = config.tts.resemble;
  const missing = [...(r.apiKey ? [] : ['RESEMBLE_API_KEY']), ...(r.voiceUuid ? [] : ['RESEMBLE_VOICE_UUID'])];
  if (!r.apiKey || !r.voiceUuid) return needs('resemble', missing);
  const options: ResembleCodecOptions = {
    apiKey: r.apiKey,
    voiceUuid: r.voiceUuid,
    projectUuid: r.projectUuid,
    model: r.model,
    sampleRate: rateFor(config.tts.sampleRate, RESEMBLE_SAMPLE_RATES, RESEMBLE_DEFAULTS.sampleRate),
    url: providerUrl(r.baseURL ?? RESEMBLE_DEFAULTS.baseURL, '/stream', 'ws'),
    binaryResponse: false,
    connectTimeoutMs: RESEMBLE_DEFAULTS.connectTimeoutMs,
    maxInFlight: RESEMBLE_DEFAULTS.maxInFlight,
  };
  return {
    provider: 'resemble',
    options,
    codec: (change = {}) => new ResembleCodec({ ...options, ...change }),
    summary: `host ${hostOf(options.url)}, model ${options.model ?? "(the voice's own)"}, ${options.sampleRate} Hz, voice from RESEMBLE_VOICE_UUID`,
  };
}

export function cartesiaTarget(config: AppConfig): CartesiaTarget | Skipped {
  const c = config.tts.cartesia;
  const missing = [...(c.apiKey ? [] : ['CARTESIA_API_KEY']), ...(c.voice ? [] : ['CARTESIA_VOICE'])];
  if (!c.apiKey || !c.voice) return needs('cartesia', missing);
  const base = c.baseURL ?? CARTESIA_DEFAULTS.baseURL;
  const options: CartesiaCodecOptions = {
    apiKey: c.apiKey,
    apiVersion: c.apiVersion ?? CARTESIA_DEFAULTS.apiVersion,
    voice: c.voice,
    model: c.model,
    language: c.language,
    sampleRate: rateFor(config.tts.sampleRate, CARTESIA_SAMPLE_RATES, CARTESIA_DEFAULTS.sampleRate),
    url: providerUrl(base, '/tts/websocket', 'ws'),
    bytesUrl: providerUrl(base, '/tts/bytes', 'http'),
    wordTimestamps: false,
    connectTimeoutMs: CARTESIA_DEFAULTS.connectTimeoutMs,
  };
  return {
    provider: 'cartesia',
    options,
    codec: (change = {}) => new CartesiaCodec({ ...options, ...change }),
    summary: `host ${hostOf(options.url)}, Cartesia-Version ${options.apiVersion}, model ${options.model}, ${options.sampleRate} Hz, language ${options.language ?? '(auto)'}, voice from CARTESIA_VOICE`,
  };
}

export function isSkipped(target: ResembleTarget | CartesiaTarget | Skipped): target is Skipped {
  return 'skipped' in target;
}
