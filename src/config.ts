/**
 * Environment → one typed, validated configuration.
 *
 * Every problem is collected before anything fails, so a person starting the worker sees the whole
 * list at once, each line naming the variable to fix. Secret values never appear in messages or in
 * {@link redactedConfig}: a secret is only ever reported as present or missing.
 */
import dotenv from 'dotenv';
import { z } from 'zod';

export type TtsProvider = 'resemble' | 'cartesia' | 'local';
export type ChunkPolicy = 'asymmetric' | 'sentence' | 'unit';
export type AckMode = 'off' | 'always' | 'slow';
export type ConfigMode = 'worker' | 'demo';

export interface AppConfig {
  livekit: { url?: string; apiKey?: string; apiSecret?: string };
  /** Set: explicit dispatch under this name (needed by SIP dispatch rules and token dispatch). */
  agentName?: string;
  openai: { apiKey?: string; llmModel: string; sttModel: string };
  tts: {
    provider: TtsProvider;
    /** Output sample rate asked of the provider; each provider has its own default when unset. */
    sampleRate?: number;
    resemble: {
      apiKey?: string;
      voiceUuid?: string;
      projectUuid?: string;
      model?: string;
      baseURL?: string;
    };
    cartesia: {
      apiKey?: string;
      voice?: string;
      model: string;
      language?: string;
      apiVersion?: string;
      baseURL?: string;
    };
    /** Loopback port of the local voice server; 0 picks a free one. */
    localPort: number;
    /** Rewrite numbers, dates and aliases into spoken form before sending (src/chunking/speech). */
    normalize: boolean;
    /** Send SSML to Resemble (LLM markup escaped). */
    resembleSsml: boolean;
  };
  /** `adaptive`: size each reply's first chunk from measured LLM rate and provider latency. */
  chunking: { policy: ChunkPolicy; adaptive: boolean };
  tuning: { ackMode: AckMode; ackSlowMs: number; metricsPort?: number };
  logLevel: string;
}

export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(
      [
        `Invalid configuration (${count}):`,
        ...problems.map((problem) => `  - ${problem}`),
        'Set these in the environment or in .env (see .env.example for every variable).',
      ].join('\n'),
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export const CONFIG_DEFAULTS = {
  llmModel: 'gpt-4.1-mini',
  sttModel: 'gpt-4o-transcribe',
  cartesiaModel: 'sonic-3',
  localPort: 0,
  chunkPolicy: 'asymmetric',
  ackMode: 'off',
  ackSlowMs: 600,
  logLevel: 'info',
} as const satisfies {
  llmModel: string;
  sttModel: string;
  cartesiaModel: string;
  localPort: number;
  chunkPolicy: ChunkPolicy;
  ackMode: AckMode;
  ackSlowMs: number;
  logLevel: string;
};

const SECRET_VARIABLES = new Set([
  'LIVEKIT_API_KEY',
  'LIVEKIT_API_SECRET',
  'OPENAI_API_KEY',
  'RESEMBLE_API_KEY',
  'CARTESIA_API_KEY',
]);

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

/** `KEY=` in a .env file means "not set", not "set to nothing". */
function blankToUndefined(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

const text = () => z.preprocess(blankToUndefined, z.string().optional());

const choice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (value) => {
      const cleaned = blankToUndefined(value);
      return typeof cleaned === 'string' ? cleaned.toLowerCase() : cleaned;
    },
    z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional(),
  );

const wholeNumber = (min: number, max: number, unit: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+$/, { error: `must be a whole number of ${unit} from ${min} to ${max}` })
      .transform(Number)
      .refine((n) => n >= min && n <= max, {
        error: `must be a whole number of ${unit} from ${min} to ${max}`,
      })
      .optional(),
  );

const url = (schemes: readonly string[]) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine(
        (value) => {
          try {
            return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
          } catch {
            return false;
          }
        },
        { error: `must be a URL starting with ${schemes.map((s) => `${s}://`).join(', ')}` },
      )
      .optional(),
  );

const WEB_SCHEMES = ['ws', 'wss', 'http', 'https'] as const;

const envSchema = z.object({
  LIVEKIT_URL: url(WEB_SCHEMES),
  LIVEKIT_API_KEY: text(),
  LIVEKIT_API_SECRET: text(),
  AGENT_NAME: text(),
  OPENAI_API_KEY: text(),
  OPENAI_LLM_MODEL: text(),
  OPENAI_STT_MODEL: text(),
  TTS_PROVIDER: choice(['resemble', 'cartesia', 'local'] as const),
  TTS_SAMPLE_RATE: wholeNumber(8000, 48000, 'Hz'),
  RESEMBLE_API_KEY: text(),
  RESEMBLE_VOICE_UUID: text(),
  RESEMBLE_PROJECT_UUID: text(),
  RESEMBLE_MODEL: text(),
  RESEMBLE_BASE_URL: url(WEB_SCHEMES),
  CARTESIA_API_KEY: text(),
  CARTESIA_VOICE: text(),
  CARTESIA_MODEL: text(),
  CARTESIA_LANGUAGE: text(),
  CARTESIA_API_VERSION: text(),
  CARTESIA_BASE_URL: url(WEB_SCHEMES),
  LOCAL_VOICE_PORT: wholeNumber(0, 65535, 'port'),
  TTS_NORMALIZE: choice(['on', 'off'] as const),
  RESEMBLE_SSML: choice(['on', 'off'] as const),
  CHUNK_POLICY: choice(['asymmetric', 'sentence', 'unit'] as const),
  CHUNK_ADAPTIVE: choice(['on', 'off'] as const),
  ACK_MODE: choice(['off', 'always', 'slow'] as const),
  ACK_SLOW_MS: wholeNumber(0, 10_000, 'milliseconds'),
  METRICS_PORT: wholeNumber(1, 65535, 'port'),
  LOG_LEVEL: choice(LOG_LEVELS),
});

type ParsedEnv = z.infer<typeof envSchema>;

/** Shows what was received for a bad non-secret value; a secret's value is never echoed. */
function describeReceived(variable: string, env: NodeJS.ProcessEnv): string {
  if (SECRET_VARIABLES.has(variable)) return '';
  const raw = env[variable]?.trim() ?? '';
  const shown = raw.length > 60 ? `${raw.slice(0, 57)}...` : raw;
  return ` (got ${JSON.stringify(shown)})`;
}

/**
 * Parses each variable on its own, so that one bad value neither hides the others' problems nor
 * makes a variable that is present look missing.
 */
function parseEnv(env: NodeJS.ProcessEnv): { parsed: ParsedEnv; invalid: Set<string>; problems: string[] } {
  const parsed: Record<string, unknown> = {};
  const invalid = new Set<string>();
  const problems: string[] = [];
  for (const [variable, schema] of Object.entries(envSchema.shape)) {
    const result = schema.safeParse(env[variable]);
    if (result.success) {
      parsed[variable] = result.data;
    } else {
      invalid.add(variable);
      for (const issue of result.error.issues) {
        problems.push(`${variable} ${issue.message}${describeReceived(variable, env)}`);
      }
    }
  }
  return { parsed: parsed as ParsedEnv, invalid, problems };
}

/** Explicit TTS_PROVIDER wins; otherwise the provider whose key is set, else the local voice. */
function chooseProvider(env: ParsedEnv): TtsProvider {
  if (env.TTS_PROVIDER) return env.TTS_PROVIDER;
  if (env.RESEMBLE_API_KEY) return 'resemble';
  if (env.CARTESIA_API_KEY) return 'cartesia';
  return 'local';
}

/** Rates each provider serves (Resemble's documented list; the local voice speaks Resemble). */
const PROVIDER_SAMPLE_RATES: Record<TtsProvider, readonly number[]> = {
  resemble: [8000, 16000, 22050, 32000, 44100, 48000],
  local: [8000, 16000, 22050, 32000, 44100, 48000],
  cartesia: [8000, 16000, 22050, 24000, 44100, 48000],
};

function requirementProblems(
  env: ParsedEnv,
  invalid: ReadonlySet<string>,
  provider: TtsProvider,
  mode: ConfigMode,
): string[] {
  const problems: string[] = [];
  const require = (variable: keyof ParsedEnv, why: string) => {
    if (env[variable] === undefined && !invalid.has(variable)) {
      problems.push(`${variable} is not set: ${why}`);
    }
  };

  if (mode === 'worker') {
    require(
      'LIVEKIT_URL',
      'the worker needs your LiveKit server URL (e.g. wss://your-project.livekit.cloud)',
    );
    require('LIVEKIT_API_KEY', "the worker needs your LiveKit project's API key");
    require('LIVEKIT_API_SECRET', "the worker needs your LiveKit project's API secret");
    require('OPENAI_API_KEY', 'the worker uses OpenAI for speech-to-text and the LLM');
  }
  // With TTS_PROVIDER itself invalid, the provider is unknown: asking for some provider's keys
  // would only add noise to the one real problem.
  if (invalid.has('TTS_PROVIDER')) return problems;
  if (provider === 'resemble') {
    require('RESEMBLE_API_KEY', 'TTS_PROVIDER is resemble');
    require('RESEMBLE_VOICE_UUID', 'TTS_PROVIDER is resemble and Resemble has no default voice');
  }
  if (provider === 'cartesia') {
    require('CARTESIA_API_KEY', 'TTS_PROVIDER is cartesia');
    require('CARTESIA_VOICE', 'TTS_PROVIDER is cartesia and a voice id is needed');
  }
  const rates = PROVIDER_SAMPLE_RATES[provider];
  if (env.TTS_SAMPLE_RATE !== undefined && !rates.includes(env.TTS_SAMPLE_RATE)) {
    problems.push(
      `TTS_SAMPLE_RATE must be one of ${rates.join(', ')} for ${provider} (got ${JSON.stringify(String(env.TTS_SAMPLE_RATE))})`,
    );
  }
  return problems;
}

function buildConfig(env: ParsedEnv, provider: TtsProvider): AppConfig {
  return {
    livekit: { url: env.LIVEKIT_URL, apiKey: env.LIVEKIT_API_KEY, apiSecret: env.LIVEKIT_API_SECRET },
    agentName: env.AGENT_NAME,
    openai: {
      apiKey: env.OPENAI_API_KEY,
      llmModel: env.OPENAI_LLM_MODEL ?? CONFIG_DEFAULTS.llmModel,
      sttModel: env.OPENAI_STT_MODEL ?? CONFIG_DEFAULTS.sttModel,
    },
    tts: {
      provider,
      sampleRate: env.TTS_SAMPLE_RATE,
      resemble: {
        apiKey: env.RESEMBLE_API_KEY,
        voiceUuid: env.RESEMBLE_VOICE_UUID,
        projectUuid: env.RESEMBLE_PROJECT_UUID,
        model: env.RESEMBLE_MODEL,
        baseURL: env.RESEMBLE_BASE_URL,
      },
      cartesia: {
        apiKey: env.CARTESIA_API_KEY,
        voice: env.CARTESIA_VOICE,
        model: env.CARTESIA_MODEL ?? CONFIG_DEFAULTS.cartesiaModel,
        language: env.CARTESIA_LANGUAGE,
        apiVersion: env.CARTESIA_API_VERSION,
        baseURL: env.CARTESIA_BASE_URL,
      },
      localPort: env.LOCAL_VOICE_PORT ?? CONFIG_DEFAULTS.localPort,
      normalize: (env.TTS_NORMALIZE ?? 'on') === 'on',
      resembleSsml: env.RESEMBLE_SSML === 'on',
    },
    chunking: { policy: env.CHUNK_POLICY ?? CONFIG_DEFAULTS.chunkPolicy, adaptive: env.CHUNK_ADAPTIVE === 'on' },
    tuning: {
      ackMode: env.ACK_MODE ?? CONFIG_DEFAULTS.ackMode,
      ackSlowMs: env.ACK_SLOW_MS ?? CONFIG_DEFAULTS.ackSlowMs,
      metricsPort: env.METRICS_PORT,
    },
    logLevel: env.LOG_LEVEL ?? CONFIG_DEFAULTS.logLevel,
  };
}

/**
 * Reads the configuration from `env`.
 *
 * `worker` needs LiveKit and OpenAI credentials; `demo` (the offline pipeline) needs neither.
 * Both need the keys of the chosen TTS provider.
 *
 * @throws {@link ConfigError} listing every missing or invalid variable.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  opts: { mode: ConfigMode } = { mode: 'worker' },
): AppConfig {
  const { parsed, invalid, problems } = parseEnv(env);
  const provider = chooseProvider(parsed);
  problems.push(...requirementProblems(parsed, invalid, provider, opts.mode));
  if (problems.length > 0) throw new ConfigError(problems);

  return buildConfig(parsed, provider);
}

/**
 * Loads `.env` (if present) into `process.env` without overriding variables already set, and
 * without dotenv's banner on stdout.
 */
export function loadEnvFile(path?: string): void {
  dotenv.config({ path, quiet: true });
}

const MASK = '***';

function maskSecret(value: string | undefined): string | undefined {
  return value === undefined ? undefined : MASK;
}

/** Credentials can hide in a URL's user-info or query string; keep only what locates the server. */
function maskUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = new URL(value);
    if (parsed.username || parsed.password) {
      parsed.username = MASK;
      parsed.password = '';
    }
    for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, MASK);
    return parsed.toString();
  } catch {
    return MASK;
  }
}

/** A copy of the configuration that is safe to log: secrets masked, URLs stripped of credentials. */
export function redactedConfig(config: AppConfig): Record<string, unknown> {
  return {
    livekit: {
      url: maskUrl(config.livekit.url),
      apiKey: maskSecret(config.livekit.apiKey),
      apiSecret: maskSecret(config.livekit.apiSecret),
    },
    agentName: config.agentName,
    openai: { ...config.openai, apiKey: maskSecret(config.openai.apiKey) },
    tts: {
      provider: config.tts.provider,
      sampleRate: config.tts.sampleRate,
      resemble: {
        ...config.tts.resemble,
        apiKey: maskSecret(config.tts.resemble.apiKey),
        baseURL: maskUrl(config.tts.resemble.baseURL),
      },
      cartesia: {
        ...config.tts.cartesia,
        apiKey: maskSecret(config.tts.cartesia.apiKey),
        baseURL: maskUrl(config.tts.cartesia.baseURL),
      },
      localPort: config.tts.localPort,
      normalize: config.tts.normalize,
      resembleSsml: config.tts.resembleSsml,
    },
    chunking: { ...config.chunking },
    tuning: { ...config.tuning },
    logLevel: config.logLevel,
  };
}
