export {
  CALL_CPU_CORES,
  CONFIG_DEFAULTS,
  DEFAULT_CPU_BUDGET_PERCENT,
  DEFAULT_DRAIN_TIMEOUT_S,
  JOB_PROCESS_START_TIMEOUT_MS,
  defaultMaxCalls,
} from './defaults.js';
export { PROVIDER_FACTS, TTS_PROVIDERS } from './providers.js';
export { ConfigError, loadConfig, loadEnvFile, shareAckAudioDir, shareCompileCacheDir, shareJobProcessSettings, shareLeaseSocket, turnDelays } from './load.js';
export { redactedConfig } from './redact.js';
export type {
  WebAuthSettings,
  AckMode,
  AppConfig,
  ConfigMode,
  LogLevel,
  MetricsHost,
  SipCallConfig,
  SipSetupConfig,
  TelephonySampleRate,
  TtsProvider,
  TurnDetectorChoice,
  TurnSettings,
} from './types.js';
export { ENV_VARIABLES, LOG_LEVELS, METRICS_HOSTS, SECRET_VARIABLES, TELEPHONY_SAMPLE_RATES, type EnvVariable } from './variables.js';
