import { z } from 'zod';
import { parseEnvGroup } from '../lifecycle/env-group.js';

const port = z.coerce
  .number('must be a port number (0-65535)')
  .int('must be a port number (0-65535)')
  .min(0, 'must be a port number (0-65535)')
  .max(65535, 'must be a port number (0-65535)');

const webEnvSchema = z.object({
  LIVEKIT_URL: z.url('must be the LiveKit URL browsers connect to, e.g. wss://project.livekit.cloud'),
  LIVEKIT_API_KEY: z.string('is required to mint access tokens'),
  LIVEKIT_API_SECRET: z.string('is required to mint access tokens'),
  AGENT_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only (max 64)')
    .optional(),
  /** Address the page server binds to; loopback unless you put it behind your own auth. */
  WEB_HOST: z.string().default('127.0.0.1'),
  WEB_PORT: port.default(3000),
  /** Lifetime of a minted token, in seconds (it only has to last until the browser joins). */
  WEB_TOKEN_TTL_S: z.coerce
    .number()
    .int('must be a whole number of seconds')
    .min(30, 'must be at least 30 seconds')
    .max(3600, 'must be at most 3600 (1 hour)')
    .default(600),
  /** LiveKit URL handed to browsers when it differs from the worker's (e.g. public vs internal). */
  WEB_LIVEKIT_URL: z.url('must be a ws:// or wss:// URL').optional(),
});

export interface WebEnv {
  host: string;
  port: number;
  /** Given to the browser with each token. */
  livekitUrl: string;
  apiKey: string;
  apiSecret: string;
  tokenTtlSeconds: number;
  agentName?: string;
}

/** `npm run web` settings: LiveKit credentials are required; everything else has a default. */
export function readWebEnv(env: Readonly<Record<string, string | undefined>> = process.env): WebEnv {
  const parsed = parseEnvGroup('web', webEnvSchema, env);
  return {
    host: parsed.WEB_HOST,
    port: parsed.WEB_PORT,
    livekitUrl: parsed.WEB_LIVEKIT_URL ?? parsed.LIVEKIT_URL,
    apiKey: parsed.LIVEKIT_API_KEY,
    apiSecret: parsed.LIVEKIT_API_SECRET,
    tokenTtlSeconds: parsed.WEB_TOKEN_TTL_S,
    agentName: parsed.AGENT_NAME,
  };
}
