import type { ChunkPolicy } from '@firstword/agents-plugin-tts/chunking';
import type { TtsProvider } from './providers.js';
import type { LOG_LEVELS, METRICS_HOSTS, TELEPHONY_SAMPLE_RATES } from './variables.js';

export type { TtsProvider } from './providers.js';
export type AckMode = 'off' | 'early' | 'always' | 'slow';
/** `transcript`: src/turn's judge of the words so far; `audio`: LiveKit's local audio model. */
export type TurnDetectorChoice = 'off' | 'transcript' | 'audio' | 'combined';
export type MetricsHost = (typeof METRICS_HOSTS)[number];
export type TelephonySampleRate = (typeof TELEPHONY_SAMPLE_RATES)[number];
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * What the command being started needs; every mode validates every variable, but each requires
 * only its own: `worker` LiveKit + OpenAI credentials, `web` LiveKit credentials, `sip-setup`
 * LiveKit credentials + AGENT_NAME + SIP_NUMBERS, `demo` (the offline pipeline) none, `live-check`
 * none (it checks each provider whose key and voice are set, and names what a skipped one needs).
 * The pipeline modes (`worker`, `demo`) also require the chosen TTS provider's keys.
 */
export type ConfigMode = 'worker' | 'demo' | 'web' | 'sip-setup' | 'live-check';

export interface AppConfig {
  livekit: { url?: string; apiKey?: string; apiSecret?: string; workerToken?: string };
  /** Set: explicit dispatch under this name (needed by SIP dispatch rules and token dispatch). */
  agentName?: string;
  worker: {
    /** The worker's own HTTP health port (`start` mode); unset keeps the framework's 8081. */
    httpPort?: number;
    /**
     * Calls this worker takes at once: it reports itself full at that many and refuses a call
     * beyond it. AGENT_MAX_CALLS, else derived from `cpuCores` (defaults.ts, defaultMaxCalls).
     */
    maxCalls: number;
    maxCallsFrom: 'AGENT_MAX_CALLS' | 'cpu cores';
    /** Cores the calls may use: a container's CPU quota, else the host's (lifecycle/host-cpu.ts). */
    cpuCores: number;
    /**
     * Share of that CPU (0–1) in use at which the worker reports itself full, whatever the call
     * count; undefined (AGENT_CPU_BUDGET=off): full at `maxCalls` alone.
     */
    cpuBudget?: number;
    /**
     * How long a job process may take to start (import the agent, load the VAD, open the TTS
     * socket) before the framework gives up on it. The framework's own 10 s is overrun on a
     * CPU-starved host (every call then waits for a process that never comes).
     */
    processStartTimeoutMs: number;
    /** glibc malloc arenas for each job process (MALLOC_ARENA_MAX, read by glibc as a process starts). */
    jobMallocArenas: number;
    /** The framework's event-loop stall report threshold (LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS), 0 = off. */
    loopBlockWarnMs: number;
    /** Where job processes keep what they compile (NODE_COMPILE_CACHE): V8's code (Node 22.1+), the VAD's optimized graph; unset, the worker makes one. */
    compileCacheDir?: string;
  };
  /** `baseURL` reaches both the LLM and the (realtime) STT: the plugin's STT ignores OPENAI_BASE_URL. */
  openai: { apiKey?: string; baseURL?: string; llmModel: string; sttModel: string };
  tts: {
    provider: TtsProvider;
    /** Output sample rate asked of the provider; each provider has its own default when unset. */
    sampleRate?: number;
    resemble: { apiKey?: string; voiceUuid?: string; projectUuid?: string; model?: string; baseURL?: string };
    /** `wordTimestamps`: Cartesia's word times on the frames (heard text is exact with them). */
    cartesia: {
      apiKey?: string;
      voice?: string;
      model: string;
      language?: string;
      apiVersion?: string;
      baseURL?: string;
      wordTimestamps: boolean;
    };
    /** Loopback port of the local voice server; 0 picks a free one. */
    localPort: number;
    /**
     * The voice a call speaks with when the provider cannot be reached as the call starts
     * (src/tts/call-voice.ts): `local`, the embedded voice. Unset: the call keeps the provider.
     */
    fallback?: 'local';
    /** Rewrite numbers, dates and aliases into spoken form before sending (packages/agents-plugin-tts/src/chunking/speech). */
    normalize: boolean;
    /** Send SSML to Resemble (LLM markup escaped). */
    resembleSsml: boolean;
    /** Audio (ms) gathered before a reply's first frame plays; unset: the provider's own (packages/agents-plugin-tts/src/driver/start-buffer.ts). */
    startBufferMs?: number;
    /**
     * `maxPerKey`: provider sockets all job processes of one worker may hold per API key.
     * `leaseSocket`: where the worker's budget service listens (set for job processes only).
     */
    connections: { maxPerKey: number; leaseSocket?: string };
  };
  /** `asymmetric` is paced (packages/agents-plugin-tts/src/pacing/pacer.ts): the first clause at once when it can keep the audio going. */
  chunking: { policy: ChunkPolicy };
  /** `sharedDir`: where the worker's job processes share acknowledgement audio (set for job processes only). */
  ack: { mode: AckMode; slowMs: number; sharedDir?: string };
  /**
   * How the caller's turn is taken: Silero's silence before it declares the end of speech, the
   * endpointing delays (min when the detector says the turn is over, max when not), the detector,
   * and preemptive generation (LLM and TTS before the turn is committed).
   */
  turn: TurnSettings;
  /** Caller speech over the agent (ms) that pauses it (a cough resumes the reply). */
  bargeIn: { minSpeechMs: number };
  /** `port` unset: no Prometheus endpoint. */
  metrics: { port?: number; host: MetricsHost };
  web: {
    host: string;
    port: number;
    tokenTtlSeconds: number;
    /** Given to browsers with each token: WEB_LIVEKIT_URL, else LIVEKIT_URL. */
    livekitUrl?: string;
    /** Who may ask `/token` for a room: anyone, a fronting backend's shared secret, or a JWT. */
    auth: WebAuthSettings;
    /** Token requests per minute (and at once) per client address and per authenticated user. */
    rate: { perAddressPerMinute: number; perUserPerMinute: number };
    /** Proxies in front of the page server that append to X-Forwarded-For (0: none trusted). */
    trustedProxyHops: number;
  };
  sip: {
    call: SipCallConfig;
    setup: SipSetupConfig;
  };
  lifecycle: { drainTimeoutMs: number };
  /** Unset: each command's own default (worker `info`; the demo keeps the framework quiet). */
  logLevel?: LogLevel;
}

export type WebAuthSettings =
  | { kind: 'none' }
  | { kind: 'shared-secret'; secret: string }
  | { kind: 'jwt'; hs256Secret?: string; jwksUrl?: string; issuer?: string; audience?: string };

export interface TurnSettings {
  silenceMs: number;
  minDelayMs: number;
  maxDelayMs: number;
  detector: TurnDetectorChoice;
  preemptive: boolean;
  /** How long a live STT's words trail their audio, ms: words younger than this may lack the last ones. */
  wordLagMs: number;
  /** A live STT's settled words commit the turn, without waiting for its final (src/stt/preflight.ts). */
  earlyFinal: boolean;
  /** The Smart Turn model file of the `combined` detector; unset: models/ (scripts/peers/ensure-smart-turn.sh). */
  audioModelPath?: string;
}

export interface SipCallConfig {
  sampleRate: TelephonySampleRate;
  language: string;
  greeting?: string;
}

export interface SipSetupConfig {
  /** Required by `sip-setup` mode only. */
  numbers: string[];
  trunkName: string;
  dispatchRuleName: string;
  roomPrefix: string;
  allowedAddresses?: string[];
  auth?: { username: string; password: string };
}
