/** A valid offline configuration for tests, built through the real loader. */
import { type AppConfig, loadConfig } from '../../src/config/index.js';

export function testConfig(env: NodeJS.ProcessEnv = {}): AppConfig {
  return loadConfig({ TTS_PROVIDER: 'local', ...env }, { mode: 'demo' });
}
