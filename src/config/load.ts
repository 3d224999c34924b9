/**
 * Environment → one typed, validated configuration, for every command (worker, demo, web page,
 * SIP setup). Every problem is collected before anything fails, so a person sees the whole list
 * at once, each line naming the variable to fix. Secret values never appear in messages.
 */
import dotenv from 'dotenv';
import { CARTESIA } from '@firstword/agents-plugin-tts/providers';
import { hostCpu } from '../lifecycle/host-cpu.js';
import { DEFAULT_TURN_POLICY } from '../turn/turn-decision.js';
import { CONFIG_DEFAULTS, DEFAULT_CPU_BUDGET_PERCENT, JOB_MALLOC_ARENAS, JOB_PROCESS_START_TIMEOUT_MS, LOOP_BLOCK_WARN_MS, defaultMaxCalls } from './defaults.js';
import { PROVIDER_FACTS } from './providers.js';
import type { AppConfig, ConfigMode, TtsProvider, WebAuthSettings } from './types.js';
import { ACK_AUDIO_DIR_VARIABLE, COMPILE_CACHE_VARIABLE, ENV_SCHEMA, ENV_VARIABLES, type EnvVariable, LEASE_SOCKET_VARIABLE, type ParsedEnv, SECRET_VARIABLES } from './variables.js';

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

type Env = Readonly<Record<string, string | undefined>>;

/** Shows what was received for a bad non-secret value; a secret's value is never echoed. */
function describeReceived(variable: EnvVariable, env: Env): string {
  if (SECRET_VARIABLES.has(variable)) return '';
  const raw = env[variable]?.trim() ?? '';
  const shown = raw.length > 60 ? `${raw.slice(0, 57)}...` : raw;
  return ` (got ${JSON.stringify(shown)})`;
}

/**
 * Parses each variable on its own, so that one bad value neither hides the others' problems nor
 * makes a variable that is present look missing.
 */
function parseEnv(env: Env): { parsed: ParsedEnv; invalid: Set<EnvVariable>; problems: string[] } {
  const parsed: Record<string, unknown> = {};
  const invalid = new Set<EnvVariable>();
  const problems: string[] = [];
  for (const variable of ENV_VARIABLES) {
    const result = ENV_SCHEMA.shape[variable].safeParse(env[variable]);
    if (result.success) {
      parsed[variable] = result.data;
      continue;
    }
    invalid.add(variable);
    for (const issue of result.error.issues) problems.push(`${variable} ${issue.message}${describeReceived(variable, env)}`);
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

const LIVEKIT_REQUIRED: Array<[EnvVariable, string]> = [
  ['LIVEKIT_URL', 'the worker needs your LiveKit server URL (e.g. wss://your-project.livekit.cloud)'],
  ['LIVEKIT_API_KEY', "the worker needs your LiveKit project's API key"],
  ['LIVEKIT_API_SECRET', "the worker needs your LiveKit project's API secret"],
];

const REQUIRED_BY_MODE: Record<ConfigMode, Array<[EnvVariable, string]>> = {
  worker: [...LIVEKIT_REQUIRED, ['OPENAI_API_KEY', 'the worker uses OpenAI for speech-to-text and the LLM']],
  demo: [],
  web: [
    ['LIVEKIT_URL', 'the page server hands browsers your LiveKit server URL'],
    ['LIVEKIT_API_KEY', 'the page server needs it to mint join tokens'],
    ['LIVEKIT_API_SECRET', 'the page server needs it to mint join tokens'],
  ],
  'sip-setup': [
    ...LIVEKIT_REQUIRED,
    ['AGENT_NAME', 'the SIP dispatch rule names the agent to send callers to'],
    ['SIP_NUMBERS', 'list the phone numbers callers dial, comma-separated'],
  ],
  'live-check': [],
};

function requirementProblems(env: ParsedEnv, invalid: ReadonlySet<EnvVariable>, provider: TtsProvider, mode: ConfigMode): string[] {
  const problems: string[] = [];
  const require = (variable: EnvVariable, why: string) => {
    if (env[variable] === undefined && !invalid.has(variable)) problems.push(`${variable} is not set: ${why}`);
  };
  for (const [variable, why] of REQUIRED_BY_MODE[mode]) require(variable, why);
  if (Boolean(env.SIP_AUTH_USERNAME) !== Boolean(env.SIP_AUTH_PASSWORD)) {
    const missing = env.SIP_AUTH_USERNAME ? 'SIP_AUTH_PASSWORD' : 'SIP_AUTH_USERNAME';
    problems.push(`${missing} is not set: set SIP_AUTH_USERNAME and SIP_AUTH_PASSWORD together, or neither`);
  }
  if (mode !== 'worker' && mode !== 'demo') return problems;
  // With TTS_PROVIDER itself invalid, the provider is unknown: asking for some provider's keys
  // would only add noise to the one real problem.
  if (invalid.has('TTS_PROVIDER')) return problems;
  if (provider === 'resemble') {
    require('RESEMBLE_API_KEY', 'TTS_PROVIDER is resemble');
    require('RESEMBLE_VOICE_UUID', 'TTS_PROVIDER is resemble and Resemble has no default voice');
  }
  if (provider === 'cartesia' || provider === 'cartesia-livekit') {
    require('CARTESIA_API_KEY', `TTS_PROVIDER is ${provider}`);
    require('CARTESIA_VOICE', `TTS_PROVIDER is ${provider} and a voice id is needed`);
  }
  const rates: readonly number[] = PROVIDER_FACTS[provider].sampleRates;
  if (env.TTS_SAMPLE_RATE !== undefined && !rates.includes(env.TTS_SAMPLE_RATE)) {
    problems.push(
      `TTS_SAMPLE_RATE must be one of ${rates.join(', ')} for ${provider} (got ${JSON.stringify(String(env.TTS_SAMPLE_RATE))})`,
    );
  }
  return problems;
}

function webAuth(env: ParsedEnv): WebAuthSettings {
  if (env.WEB_AUTH_SHARED_SECRET) return { kind: 'shared-secret', secret: env.WEB_AUTH_SHARED_SECRET };
  if (env.WEB_AUTH_JWT_SECRET || env.WEB_AUTH_JWKS_URL) {
    return { kind: 'jwt', hs256Secret: env.WEB_AUTH_JWT_SECRET, jwksUrl: env.WEB_AUTH_JWKS_URL, issuer: env.WEB_AUTH_JWT_ISSUER, audience: env.WEB_AUTH_JWT_AUDIENCE };
  }
  return { kind: 'none' };
}

/** One way to authenticate `/token`, and JWT claims only with a JWT check to apply them to. */
function webAuthProblems(env: ParsedEnv): string[] {
  const chosen = (['WEB_AUTH_SHARED_SECRET', 'WEB_AUTH_JWT_SECRET', 'WEB_AUTH_JWKS_URL'] as const).filter((name) => env[name] !== undefined);
  const problems: string[] = [];
  if (chosen.length > 1) problems.push(`${chosen.join(' and ')} are both set: choose one way to authenticate /token`);
  const jwt = env.WEB_AUTH_JWT_SECRET !== undefined || env.WEB_AUTH_JWKS_URL !== undefined;
  for (const claim of ['WEB_AUTH_JWT_ISSUER', 'WEB_AUTH_JWT_AUDIENCE'] as const) {
    if (env[claim] !== undefined && !jwt) problems.push(`${claim} is set without WEB_AUTH_JWT_SECRET or WEB_AUTH_JWKS_URL: it only applies to JWT checks`);
  }
  if (env.WEB_AUTH_JWT_SECRET !== undefined && env.WEB_AUTH_JWT_SECRET.length < 32) {
    problems.push('WEB_AUTH_JWT_SECRET must be at least 32 characters (an HS256 key shorter than its hash is guessable)');
  }
  return problems;
}

/** The cap counts calls and the budget watches the CPU; without AGENT_MAX_CALLS the cap is what the budget holds. */
function callCapacity(env: ParsedEnv, cpuCores: number): Pick<AppConfig['worker'], 'maxCalls' | 'maxCallsFrom' | 'cpuCores' | 'cpuBudget'> {
  const budgetPercent = env.AGENT_CPU_BUDGET === undefined || env.AGENT_CPU_BUDGET === 'off' ? undefined : env.AGENT_CPU_BUDGET;
  return {
    maxCalls: env.AGENT_MAX_CALLS ?? defaultMaxCalls(cpuCores, budgetPercent),
    maxCallsFrom: env.AGENT_MAX_CALLS === undefined ? 'cpu cores' : 'AGENT_MAX_CALLS',
    cpuCores,
    cpuBudget: env.AGENT_CPU_BUDGET === 'off' ? undefined : (budgetPercent ?? DEFAULT_CPU_BUDGET_PERCENT) / 100,
  };
}

/**
 * The endpointing delays a detector starts from: the combined decision's own floor and bound
 * (its sweep's knee, src/turn/turn-decision.ts), the framework-style delays for the others.
 */
export function turnDelays(detector: AppConfig['turn']['detector']): { minDelayMs: number; maxDelayMs: number } {
  if (detector === 'combined') return { minDelayMs: DEFAULT_TURN_POLICY.minSilenceMs, maxDelayMs: DEFAULT_TURN_POLICY.maxSilenceMs };
  return CONFIG_DEFAULTS.turn;
}

function buildConfig(env: ParsedEnv, provider: TtsProvider, cpuCores: number): AppConfig {
  const d = CONFIG_DEFAULTS;
  return {
    livekit: { url: env.LIVEKIT_URL, apiKey: env.LIVEKIT_API_KEY, apiSecret: env.LIVEKIT_API_SECRET, workerToken: env.LIVEKIT_WORKER_TOKEN },
    agentName: env.AGENT_NAME,
    worker: {
      httpPort: env.AGENT_HTTP_PORT,
      ...callCapacity(env, cpuCores),
      processStartTimeoutMs: env.AGENT_PROCESS_START_TIMEOUT_S === undefined ? JOB_PROCESS_START_TIMEOUT_MS : env.AGENT_PROCESS_START_TIMEOUT_S * 1000,
      jobMallocArenas: env.MALLOC_ARENA_MAX ?? JOB_MALLOC_ARENAS,
      loopBlockWarnMs: env.LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS ?? LOOP_BLOCK_WARN_MS,
      compileCacheDir: env.NODE_COMPILE_CACHE,
    },
    openai: {
      apiKey: env.OPENAI_API_KEY,
      baseURL: env.OPENAI_BASE_URL,
      llmModel: env.OPENAI_LLM_MODEL ?? d.llmModel,
      sttModel: env.OPENAI_STT_MODEL ?? d.sttModel,
    },
    tts: {
      provider,
      sampleRate: env.TTS_SAMPLE_RATE,
      fallback: env.TTS_FALLBACK,
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
        model: env.CARTESIA_MODEL ?? CARTESIA.defaultModel,
        language: env.CARTESIA_LANGUAGE,
        apiVersion: env.CARTESIA_API_VERSION,
        baseURL: env.CARTESIA_BASE_URL,
        wordTimestamps: env.CARTESIA_WORD_TIMESTAMPS === undefined ? CARTESIA.wordTimestamps : env.CARTESIA_WORD_TIMESTAMPS === 'on',
      },
      localPort: env.LOCAL_VOICE_PORT ?? d.localPort,
      normalize: (env.TTS_NORMALIZE ?? 'on') === 'on',
      resembleSsml: env.RESEMBLE_SSML === 'on',
      startBufferMs: env.TTS_START_BUFFER_MS,
      connections: { maxPerKey: env.TTS_MAX_SOCKETS_PER_KEY ?? d.maxSocketsPerKey, leaseSocket: env.TTS_LEASE_SOCKET },
    },
    chunking: { policy: env.CHUNK_POLICY ?? d.chunkPolicy },
    ack: { mode: env.ACK_MODE ?? d.ackMode, slowMs: env.ACK_SLOW_MS ?? d.ackSlowMs, sharedDir: env.ACK_AUDIO_DIR },
    turn: {
      silenceMs: env.TURN_SILENCE_MS ?? d.turn.silenceMs,
      minDelayMs: env.TURN_MIN_DELAY_MS ?? turnDelays(env.TURN_DETECTOR ?? d.turn.detector).minDelayMs,
      maxDelayMs: env.TURN_MAX_DELAY_MS ?? turnDelays(env.TURN_DETECTOR ?? d.turn.detector).maxDelayMs,
      detector: env.TURN_DETECTOR ?? d.turn.detector,
      preemptive: env.TURN_PREEMPTIVE === undefined ? d.turn.preemptive : env.TURN_PREEMPTIVE === 'on',
      wordLagMs: env.TURN_WORD_LAG_MS ?? d.turn.wordLagMs,
      earlyFinal: env.TURN_EARLY_FINAL === undefined ? d.turn.earlyFinal : env.TURN_EARLY_FINAL === 'on',
      audioModelPath: env.TURN_AUDIO_MODEL,
    },
    bargeIn: { minSpeechMs: env.BARGE_IN_MIN_SPEECH_MS ?? d.bargeInMinSpeechMs },
    metrics: { port: env.METRICS_PORT, host: env.METRICS_HOST ?? d.metricsHost },
    web: {
      host: env.WEB_HOST ?? d.webHost,
      port: env.WEB_PORT ?? d.webPort,
      tokenTtlSeconds: env.WEB_TOKEN_TTL_S ?? d.webTokenTtlS,
      livekitUrl: env.WEB_LIVEKIT_URL ?? env.LIVEKIT_URL,
      auth: webAuth(env),
      rate: { perAddressPerMinute: env.WEB_RATE_PER_ADDRESS ?? d.webRatePerAddress, perUserPerMinute: env.WEB_RATE_PER_USER ?? d.webRatePerUser },
      trustedProxyHops: env.WEB_TRUSTED_PROXY_HOPS ?? 0,
    },
    sip: {
      call: { sampleRate: env.SIP_SAMPLE_RATE ?? d.sipSampleRate, language: env.SIP_LANGUAGE ?? d.sipLanguage, greeting: env.SIP_GREETING },
      setup: {
        numbers: env.SIP_NUMBERS ?? [],
        trunkName: env.SIP_TRUNK_NAME ?? d.sipTrunkName,
        dispatchRuleName: env.SIP_DISPATCH_RULE_NAME ?? d.sipDispatchRuleName,
        roomPrefix: env.SIP_ROOM_PREFIX ?? d.sipRoomPrefix,
        allowedAddresses: env.SIP_ALLOWED_ADDRESSES,
        auth:
          env.SIP_AUTH_USERNAME && env.SIP_AUTH_PASSWORD
            ? { username: env.SIP_AUTH_USERNAME, password: env.SIP_AUTH_PASSWORD }
            : undefined,
      },
    },
    lifecycle: { drainTimeoutMs: (env.SHUTDOWN_DRAIN_TIMEOUT_S ?? d.drainTimeoutS) * 1000 },
    logLevel: env.LOG_LEVEL,
  };
}

/**
 * Reads the configuration from `env` for the command `mode` starts (see {@link ConfigMode}).
 * `cpuCores`: what the default call cap is derived from; unset, this host's (or its container's).
 *
 * @throws {@link ConfigError} listing every missing or invalid variable.
 */
export function loadConfig(env: Env = process.env, opts: { mode: ConfigMode; cpuCores?: number } = { mode: 'worker' }): AppConfig {
  const { parsed, invalid, problems } = parseEnv(env);
  const provider = chooseProvider(parsed);
  problems.push(...requirementProblems(parsed, invalid, provider, opts.mode), ...webAuthProblems(parsed));
  if (problems.length > 0) throw new ConfigError(problems);
  return buildConfig(parsed, provider, opts.cpuCores ?? hostCpu().cores);
}

/**
 * Hands the worker's connection-budget service to the job processes it will fork: LiveKit Agents
 * forks them with this process's environment.
 */
export function shareLeaseSocket(path: string): void {
  process.env[LEASE_SOCKET_VARIABLE] = path;
}

/** Hands the worker's acknowledgement-audio directory to the job processes it will fork. */
export function shareAckAudioDir(path: string): void {
  process.env[ACK_AUDIO_DIR_VARIABLE] = path;
}

/** Hands the worker's compile cache directory to the job processes it will fork (Node reads it as each starts). */
export function shareCompileCacheDir(path: string): void {
  process.env[COMPILE_CACHE_VARIABLE] = path;
}

/**
 * Gives the job processes the worker will fork their settings through the environment they
 * inherit: the malloc arena limit (glibc reads it only as a process starts, so the worker's own
 * process keeps what it started with) and the framework's stall report threshold (read when each
 * process starts its loop monitor, the worker's own included).
 */
export function shareJobProcessSettings(config: Pick<AppConfig, 'worker'>): void {
  process.env.MALLOC_ARENA_MAX = String(config.worker.jobMallocArenas);
  process.env.LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS = String(config.worker.loopBlockWarnMs);
}

/**
 * Loads `.env` (if present) into `process.env` without overriding variables already set, and
 * without dotenv's banner on stdout.
 */
export function loadEnvFile(path?: string): void {
  dotenv.config({ path, quiet: true });
}
