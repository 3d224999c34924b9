import { AccessToken, RoomAgentDispatch, RoomConfiguration, TrackSource } from 'livekit-server-sdk';
import { z } from 'zod';
import { dispatchMetadata } from './rooms.js';

/**
 * What a browser may send to `/token`: at most a display name. The room and the identity are
 * the server's to choose (src/web/rooms.ts, session-cookie.ts); a body that names them is refused.
 */
export const tokenRequestSchema = z.strictObject(
  {
    name: z
      .string()
      .max(64, 'use at most 64 characters')
      .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters')
      .optional(),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `the server chooses the room and identity; send only "name" (got ${issue.keys.join(', ')})` : undefined) },
);

export type TokenRequest = z.infer<typeof tokenRequestSchema>;

/** Whom a token lets into which room (chosen by the server). */
export interface JoinRequest {
  room: string;
  identity: string;
  name?: string;
}

export interface TokenOptions {
  apiKey: string;
  apiSecret: string;
  /** Seconds until the token expires. */
  ttlSeconds: number;
  /** Dispatch this agent into the room when the token creates it (explicit dispatch). */
  agentName?: string;
}

/**
 * A join token for one room and nothing else: join it, publish the microphone only, subscribe,
 * send data (the agent's text input); no admin, create, list or recording grants. Its room
 * configuration applies when this join creates the room: one caller at most (agents do not
 * count), and with an agent name, that agent dispatched to talk to this identity only.
 */
export async function mintJoinToken(request: JoinRequest, options: TokenOptions): Promise<string> {
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
  const agents = options.agentName
    ? [new RoomAgentDispatch({ agentName: options.agentName, metadata: dispatchMetadata(request.identity) })]
    : [];
  token.roomConfig = new RoomConfiguration({ maxParticipants: 1, agents });
  return token.toJwt();
}
