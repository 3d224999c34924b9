/**
 * What the clients that talk to the production agent share: the join token the project's page
 * gets (src/web/token.ts, with or without an agent dispatch), how the agent is recognised, a
 * per-frame pitch estimate for the Cartesia fake's audible tones, and the fakes' control routes.
 */
import type { Participant } from '@livekit/rtc-node';
import { ParticipantKind } from '@livekit/rtc-node';
import { mintJoinToken } from '../../../src/web/token.js';
import { need } from './common.js';

export const AGENT_STATE = 'lk.agent.state';

/** The production token: microphone, subscribe, data; `agentName` adds the RoomAgentDispatch. */
export function callerToken(room: string, identity: string, agentName?: string): Promise<string> {
  return mintJoinToken(
    { room, identity },
    { apiKey: need('LIVEKIT_API_KEY'), apiSecret: need('LIVEKIT_API_SECRET'), ttlSeconds: 600, ...(agentName ? { agentName } : {}) },
  );
}

export const isAgent = (participant: Participant): boolean => participant.kind === ParticipantKind.AGENT;

export const kindName = (kind: ParticipantKind): string => ParticipantKind[kind] ?? String(kind);

/**
 * Frequency of a tone from its positive-going zero crossings (interpolated), in Hz; 0 when the
 * frame has fewer than two crossings. Accurate to about 1 Hz for the fake's pure tones
 * (150–650 Hz, 3–13 periods in 20 ms); meaningless, but harmless, for speech.
 */
export function zeroCrossingHz(samples: Int16Array, sampleRate: number): number {
  let first = -1;
  let last = -1;
  let count = 0;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (a < 0 && b >= 0) {
      const at = i - 1 + -a / (b - a);
      if (first < 0) first = at;
      last = at;
      count++;
    }
  }
  if (count < 2 || last <= first) return 0;
  return ((count - 1) * sampleRate) / (last - first);
}

async function control(base: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(new URL(path, base), body === undefined ? {} : {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

/** The OpenAI fake's `/_control/*` (STACK_OPENAI_URL ends in /v1; control routes sit at the root). */
export const openaiControl = (path: string, body?: unknown) => control(new URL('/', need('STACK_OPENAI_URL')).href, path, body);

/** The Cartesia fake's `/_control/*`. */
export const cartesiaControl = (path: string, body?: unknown) => control(need('STACK_CARTESIA_URL'), path, body);
