import { z } from 'zod';
import { parseEnvGroup, splitList } from '../lifecycle/env-group.js';

type Env = Readonly<Record<string, string | undefined>>;

/** E.164: `+`, country code, subscriber number; 8–15 digits in all. */
const E164 = /^\+[1-9]\d{6,14}$/;

const phoneList = z
  .string()
  .transform(splitList)
  .pipe(
    z
      .array(z.string().regex(E164, 'each number must be E.164, e.g. +14155550123'))
      .min(1, 'list at least one number'),
  );

/** The sample rates a phone leg can usefully carry; 16 kHz is wideband (HD voice). */
export const TELEPHONY_SAMPLE_RATES = [8000, 16000, 24000] as const;
export type TelephonySampleRate = (typeof TELEPHONY_SAMPLE_RATES)[number];

const callEnvSchema = z.object({
  /** Room audio rate for SIP calls (input and output). @defaultValue 16000 */
  SIP_SAMPLE_RATE: z.coerce
    .number()
    .refine((n): n is TelephonySampleRate => (TELEPHONY_SAMPLE_RATES as readonly number[]).includes(n), {
      message: `must be one of ${TELEPHONY_SAMPLE_RATES.join(', ')}`,
    })
    .default(16000),
  /** Language of the built-in greeting (en, ko). @defaultValue en */
  SIP_LANGUAGE: z
    .string()
    .regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'must be a language tag such as en, ko or ko-KR')
    .default('en'),
  /** Replaces the built-in greeting (any language). */
  SIP_GREETING: z.string().max(300, 'keep the greeting under 300 characters').optional(),
});

export type SipCallEnv = {
  sampleRate: TelephonySampleRate;
  language: string;
  greeting?: string;
};

/** How the worker treats SIP callers; every variable is optional. */
export function readSipCallEnv(env: Env = process.env): SipCallEnv {
  const parsed = parseEnvGroup('SIP call', callEnvSchema, env);
  return {
    sampleRate: parsed.SIP_SAMPLE_RATE as TelephonySampleRate,
    language: parsed.SIP_LANGUAGE,
    greeting: parsed.SIP_GREETING,
  };
}

const setupEnvSchema = z.object({
    LIVEKIT_URL: z.url('must be the LiveKit server URL, e.g. wss://project.livekit.cloud'),
    LIVEKIT_API_KEY: z.string('is required'),
    LIVEKIT_API_SECRET: z.string('is required'),
    AGENT_NAME: z
      .string('is required for SIP: the dispatch rule names the agent to send callers to')
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - only (max 64)'),
    SIP_NUMBERS: z.string('is required: the phone numbers callers dial, comma-separated').pipe(phoneList),
    SIP_TRUNK_NAME: z.string().min(1).max(128).default('firstword-inbound'),
    SIP_DISPATCH_RULE_NAME: z.string().min(1).max(128).default('firstword-dispatch'),
    SIP_ROOM_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, _ - only (max 32)')
      .default('call-'),
    SIP_ALLOWED_ADDRESSES: z.string().transform(splitList).optional(),
    SIP_AUTH_USERNAME: z.string().optional(),
    SIP_AUTH_PASSWORD: z.string().optional(),
});

function authPairCheck(input: Readonly<Record<string, string | undefined>>): string[] {
  if (Boolean(input.SIP_AUTH_USERNAME) === Boolean(input.SIP_AUTH_PASSWORD)) return [];
  const missing = input.SIP_AUTH_USERNAME ? 'SIP_AUTH_PASSWORD' : 'SIP_AUTH_USERNAME';
  return [`${missing}: set SIP_AUTH_USERNAME and SIP_AUTH_PASSWORD together, or neither`];
}

export interface SipSetupEnv {
  livekit: { url: string; apiKey: string; apiSecret: string };
  agentName: string;
  numbers: string[];
  trunkName: string;
  dispatchRuleName: string;
  roomPrefix: string;
  allowedAddresses?: string[];
  auth?: { username: string; password: string };
}

/** What `npm run sip:setup` needs; LiveKit credentials, `AGENT_NAME` and `SIP_NUMBERS` are required. */
export function readSipSetupEnv(env: Env = process.env): SipSetupEnv {
  const parsed = parseEnvGroup('SIP setup', setupEnvSchema, env, authPairCheck);
  return {
    livekit: { url: parsed.LIVEKIT_URL, apiKey: parsed.LIVEKIT_API_KEY, apiSecret: parsed.LIVEKIT_API_SECRET },
    agentName: parsed.AGENT_NAME,
    numbers: parsed.SIP_NUMBERS,
    trunkName: parsed.SIP_TRUNK_NAME,
    dispatchRuleName: parsed.SIP_DISPATCH_RULE_NAME,
    roomPrefix: parsed.SIP_ROOM_PREFIX,
    allowedAddresses: parsed.SIP_ALLOWED_ADDRESSES,
    auth:
      parsed.SIP_AUTH_USERNAME && parsed.SIP_AUTH_PASSWORD
        ? { username: parsed.SIP_AUTH_USERNAME, password: parsed.SIP_AUTH_PASSWORD }
        : undefined,
  };
}
