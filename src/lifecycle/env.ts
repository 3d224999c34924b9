import { z } from 'zod';
import { parseEnvGroup } from './env-group.js';

/**
 * How long a stopping worker waits for live calls to end before it hangs up on them.
 * Process managers must allow more than this (see ecosystem.config.cjs, deploy/, Dockerfile).
 * @defaultValue 1800 (30 minutes)
 */
export const DEFAULT_DRAIN_TIMEOUT_S = 1800;

const lifecycleEnvSchema = z.object({
  SHUTDOWN_DRAIN_TIMEOUT_S: z.coerce
    .number()
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1 second')
    .max(24 * 3600, 'must be at most 86400 (a day)')
    .default(DEFAULT_DRAIN_TIMEOUT_S),
});

export interface LifecycleEnv {
  drainTimeoutMs: number;
}

export function readLifecycleEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): LifecycleEnv {
  const parsed = parseEnvGroup('shutdown', lifecycleEnvSchema, env);
  return { drainTimeoutMs: parsed.SHUTDOWN_DRAIN_TIMEOUT_S * 1000 };
}
