/**
 * Every environment variable firstword reads, in one schema. `.env.example` documents exactly
 * these (a test holds the two together); nothing else in `src/` reads the environment, except the
 * TTS plugin's API-key fallback, which a library used outside this worker needs.
 */
import { z } from 'zod';
import { CHUNK_POLICIES } from '@firstword/agents-plugin-tts/chunking';
import { type CartesiaVariable, MAX_START_BUFFER_MS, type ResembleVariable } from '@firstword/agents-plugin-tts/providers';
import { TTS_PROVIDERS } from './providers.js';
import { boundedText, choice, list, oneOfNumbers, onOff, pattern, text, url, wholeNumber, wholeNumberOrOff } from './fields.js';

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
/** Hosts the metrics endpoint may bind: loopback (the default) or every interface, nothing in between. */
export const METRICS_HOSTS = ['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'] as const;
/** The sample rates a phone leg can usefully carry; 16 kHz is wideband (HD voice). */
export const TELEPHONY_SAMPLE_RATES = [8000, 16000, 24000] as const;

const WEB_SCHEMES = ['ws', 'wss', 'http', 'https'] as const;
const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** A Cartesia model id: a name (`sonic-3.5`) or a dated snapshot (`sonic-3.5-2026-05-04`). */
const MODEL_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** E.164: `+`, country code, subscriber number; 8–15 digits in all. */
const E164 = /^\+[1-9]\d{6,14}$/;

/** How each of Resemble's variables is read; its descriptor names them (and says what each means). */
const RESEMBLE_FIELDS = {
  RESEMBLE_API_KEY: text(),
  RESEMBLE_VOICE_UUID: text(),
  RESEMBLE_PROJECT_UUID: text(),
  RESEMBLE_MODEL: text(),
  RESEMBLE_BASE_URL: url(WEB_SCHEMES),
  RESEMBLE_SSML: onOff(),
} satisfies Record<ResembleVariable, z.ZodType>;

/** How each of Cartesia's variables is read; its descriptor names them (and says what each means). */
const CARTESIA_FIELDS = {
  CARTESIA_API_KEY: text(),
  CARTESIA_VOICE: text(),
  CARTESIA_MODEL: pattern(MODEL_ID, 'must be a Cartesia model id such as sonic-3.5, or a dated one such as sonic-3.5-2026-05-04'),
  CARTESIA_LANGUAGE: text(),
  CARTESIA_API_VERSION: text(),
  CARTESIA_WORD_TIMESTAMPS: onOff(),
  CARTESIA_BASE_URL: url(WEB_SCHEMES),
} satisfies Record<CartesiaVariable, z.ZodType>;

export const ENV_SCHEMA = z.object({
  // LiveKit
  LIVEKIT_URL: url(WEB_SCHEMES),
  LIVEKIT_API_KEY: text(),
  LIVEKIT_API_SECRET: text(),
  LIVEKIT_WORKER_TOKEN: text(),
  AGENT_NAME: pattern(NAME, 'may hold letters, digits, _ . - only (max 64)'),
  AGENT_HTTP_PORT: wholeNumber(1, 65535, 'port'),
  AGENT_MAX_CALLS: wholeNumber(1, 10_000, 'calls'),
  AGENT_CPU_BUDGET: wholeNumberOrOff(10, 100, 'percent'),
  AGENT_PROCESS_START_TIMEOUT_S: wholeNumber(1, 600, 's'),
  MALLOC_ARENA_MAX: wholeNumber(1, 1024, 'arenas'),
  LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS: wholeNumber(0, 60_000, 'ms'),
  NODE_COMPILE_CACHE: text(),
  // OpenAI
  OPENAI_API_KEY: text(),
  OPENAI_BASE_URL: url(['http', 'https']),
  OPENAI_LLM_MODEL: text(),
  OPENAI_STT_MODEL: text(),
  // TTS
  TTS_PROVIDER: choice(TTS_PROVIDERS),
  TTS_SAMPLE_RATE: wholeNumber(8000, 48000, 'Hz'),
  TTS_FALLBACK: choice(['local'] as const),
  ...RESEMBLE_FIELDS,
  ...CARTESIA_FIELDS,
  LOCAL_VOICE_PORT: wholeNumber(0, 65535, 'port'),
  TTS_MAX_SOCKETS_PER_KEY: wholeNumber(1, 1000, 'sockets'),
  TTS_LEASE_SOCKET: text(),
  // Tuning
  TTS_NORMALIZE: onOff(),
  TTS_START_BUFFER_MS: wholeNumber(0, MAX_START_BUFFER_MS, 'milliseconds'),
  CHUNK_POLICY: choice(CHUNK_POLICIES),
  ACK_MODE: choice(['off', 'early', 'always', 'slow'] as const),
  ACK_SLOW_MS: wholeNumber(0, 10_000, 'milliseconds'),
  ACK_AUDIO_DIR: text(),
  BARGE_IN_MIN_SPEECH_MS: wholeNumber(50, 5000, 'milliseconds'),
  TURN_SILENCE_MS: wholeNumber(50, 3000, 'milliseconds'),
  TURN_MIN_DELAY_MS: wholeNumber(0, 5000, 'milliseconds'),
  TURN_MAX_DELAY_MS: wholeNumber(0, 10_000, 'milliseconds'),
  TURN_DETECTOR: choice(['off', 'transcript', 'audio', 'combined'] as const),
  TURN_AUDIO_MODEL: text(),
  TURN_PREEMPTIVE: onOff(),
  TURN_WORD_LAG_MS: wholeNumber(0, 3000, 'milliseconds'),
  TURN_EARLY_FINAL: onOff(),
  METRICS_PORT: wholeNumber(1, 65535, 'port'),
  METRICS_HOST: choice(METRICS_HOSTS),
  LOG_LEVEL: choice(LOG_LEVELS),
  // Browser page
  WEB_HOST: text(),
  WEB_PORT: wholeNumber(0, 65535, 'port'),
  WEB_TOKEN_TTL_S: wholeNumber(30, 3600, 'seconds'),
  WEB_LIVEKIT_URL: url(WEB_SCHEMES),
  WEB_AUTH_SHARED_SECRET: text(),
  WEB_AUTH_JWT_SECRET: text(),
  WEB_AUTH_JWKS_URL: url(['https', 'http']),
  WEB_AUTH_JWT_ISSUER: text(),
  WEB_AUTH_JWT_AUDIENCE: text(),
  WEB_RATE_PER_ADDRESS: wholeNumber(1, 10_000, 'requests per minute'),
  WEB_RATE_PER_USER: wholeNumber(1, 10_000, 'requests per minute'),
  WEB_TRUSTED_PROXY_HOPS: wholeNumber(0, 10, 'proxies'),
  // Phone calls
  SIP_SAMPLE_RATE: oneOfNumbers(TELEPHONY_SAMPLE_RATES, 'Hz'),
  SIP_LANGUAGE: pattern(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en, ko or ko-KR'),
  SIP_GREETING: boundedText(300, 'must be under 300 characters'),
  SIP_NUMBERS: list(E164, 'must list E.164 numbers, e.g. +14155550123'),
  SIP_TRUNK_NAME: pattern(/^.{1,128}$/, 'must be 1-128 characters'),
  SIP_DISPATCH_RULE_NAME: pattern(/^.{1,128}$/, 'must be 1-128 characters'),
  SIP_ROOM_PREFIX: pattern(/^[A-Za-z0-9_-]{1,32}$/, 'may hold letters, digits, _ - only (max 32)'),
  SIP_ALLOWED_ADDRESSES: list(/^[0-9A-Fa-f:.]+(\/\d{1,3})?$/, 'must list IP addresses or CIDR ranges'),
  SIP_AUTH_USERNAME: text(),
  SIP_AUTH_PASSWORD: text(),
  // Process management
  SHUTDOWN_DRAIN_TIMEOUT_S: wholeNumber(1, 86_400, 'seconds'),
});

export type EnvVariable = keyof typeof ENV_SCHEMA.shape;

/** Set by the worker's main process for the job processes it forks (the connection budget's service). */
export const LEASE_SOCKET_VARIABLE = 'TTS_LEASE_SOCKET' satisfies EnvVariable;
/** Set by the worker's main process for the job processes it forks (acknowledgement audio they share). */
export const COMPILE_CACHE_VARIABLE = 'NODE_COMPILE_CACHE' satisfies EnvVariable;
export const ACK_AUDIO_DIR_VARIABLE = 'ACK_AUDIO_DIR' satisfies EnvVariable;
export type ParsedEnv = z.output<typeof ENV_SCHEMA>;

export const ENV_VARIABLES = Object.keys(ENV_SCHEMA.shape) as EnvVariable[];

/** Values that are never echoed in an error message nor logged. */
export const SECRET_VARIABLES: ReadonlySet<EnvVariable> = new Set<EnvVariable>([
  'LIVEKIT_API_KEY',
  'LIVEKIT_API_SECRET',
  'LIVEKIT_WORKER_TOKEN',
  'OPENAI_API_KEY',
  'RESEMBLE_API_KEY',
  'CARTESIA_API_KEY',
  'SIP_AUTH_PASSWORD',
  'WEB_AUTH_SHARED_SECRET',
  'WEB_AUTH_JWT_SECRET',
]);
