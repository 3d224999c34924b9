/** A valid offline configuration for tests, built through the real loader. */
import { type AppConfig, loadConfig } from '../../src/config/index.js';

export function testConfig(env: NodeJS.ProcessEnv = {}): AppConfig {
  return loadConfig({ TTS_PROVIDER: 'local', ...env }, { mode: 'demo' });
}

/** The least a worker's environment holds (`loadConfig` in `worker` mode): for what is forked with it. */
export const WORKER_TEST_ENV = {
  LIVEKIT_URL: 'ws://127.0.0.1:7880',
  LIVEKIT_API_KEY: 'devkey',
  LIVEKIT_API_SECRET: 'secret-for-tests-only-0123456789',
  OPENAI_API_KEY: 'sk-test',
  TTS_PROVIDER: 'local',
} as const;
