import { AccessToken, RoomAgentDispatch, RoomConfiguration, TrackSource } from 'livekit-server-sdk';
import { z } from 'zod';

/**
 * What a browser may ask for. Room names and identities end up in URLs, logs and
 * dispatch metadata, so they are kept to a plain, bounded alphabet.
 */
export const tokenRequestSchema = z.strictObject({
  room: z
    .string('is required')
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
      'use 1-64 letters, digits, _ or -, starting with a letter or digit',
    ),
  identity: z
    .string('is required')
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/,
      'use 1-64 letters, digits, _ . @ or -, starting with a letter or digit',
    )
    .refine((value) => !value.toLowerCase().startsWith('sip_'), 'sip_ is reserved for phone callers'),
  name: z
    .string()
    .max(64, 'use at most 64 characters')
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
    .optional(),
});

export type TokenRequest = z.infer<typeof tokenRequestSchema>;

export interface TokenOptions {
  apiKey: string;
  apiSecret: string;
  /** Seconds until the token expires. */
  ttlSeconds: number;
  /** Dispatch this agent into the room when the token creates it (explicit dispatch). */
  agentName?: string;
}

/**
 * A join token for one room: publish the microphone only, subscribe, send data (the
 * agent's text input). With an agent name, the token also carries a room configuration
 * that dispatches that agent when this join creates the room.
 */
export async function mintJoinToken(request: TokenRequest, options: TokenOptions): Promise<string> {
  const token = new AccessToken(options.apiKey, options.apiSecret, {
    identity: request.identity,
    name: request.name,
    ttl: options.ttlSeconds,
  });
  token.addGrant({
    roomJoin: true,
    room: request.room,
    canPublish: true,
    canPublishSources: [TrackSource.MICROPHONE],
    canSubscribe: true,
    canPublishData: true,
  });
  if (options.agentName) {
    const dispatch = new RoomAgentDispatch({ agentName: options.agentName });
    token.roomConfig = new RoomConfiguration({ agents: [dispatch] });
  }
  return token.toJwt();
}
