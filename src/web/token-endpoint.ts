/**
 * `POST /token`, in the order that costs an abuser most and the owner least: the client
 * address's rate limit (before auth, so guessing a secret is limited too), the deployer's auth
 * hook, the user's rate limit, the body, then the room — the browser's own when it comes back
 * with its signed session cookie and LiveKit still has it, else a new one with an agent that a
 * worker has taken (busy: 503). Nothing is created before every check has passed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AuthSettings, createAuthenticator } from './auth.js';
import { clientAddress } from './client-address.js';
import { HttpError, readJsonBody, sendJson } from './http-errors.js';
import { createRateLimiter } from './rate-limit.js';
import type { RoomProvisioner } from './rooms.js';
import {
  type BrowserSession,
  SESSION_COOKIE,
  decodeSession,
  encodeSession,
  newSession,
  readCookie,
  sessionCookie,
  sessionKey,
} from './session-cookie.js';
import { type TokenOptions, mintJoinToken, tokenRequestSchema } from './token.js';

export interface TokenEndpointOptions extends TokenOptions {
  /** LiveKit URL returned to the browser with each token. */
  livekitUrl: string;
  rooms: RoomProvisioner;
  /** @defaultValue none */
  auth?: AuthSettings;
  /** Tokens per minute (and burst) per client address and per authenticated user. @defaultValue 10 / 10 */
  rate?: { perAddressPerMinute: number; perUserPerMinute: number };
  /** Proxies in front that append to X-Forwarded-For. @defaultValue 0 (the TCP peer is the client) */
  trustedProxyHops?: number;
  /** The rate limits' clock (ms, monotonic). */
  now?: () => number;
}

/** How long a browser may come back to the room it was given (a reload mid-call). */
const SESSION_LIFETIME_S = 2 * 3600;
/** What the page is told to wait before trying again when every agent is busy. */
const BUSY_RETRY_S = 30;

export type TokenHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createTokenEndpoint(options: TokenEndpointOptions): TokenHandler {
  const authenticate = createAuthenticator(options.auth ?? { kind: 'none' });
  const rate = options.rate ?? { perAddressPerMinute: 10, perUserPerMinute: 10 };
  const byAddress = createRateLimiter({ perMinute: rate.perAddressPerMinute, now: options.now });
  const byUser = createRateLimiter({ perMinute: rate.perUserPerMinute, now: options.now });
  const hops = options.trustedProxyHops ?? 0;
  const key = sessionKey(options.apiSecret);
  const challenge = options.auth?.kind === 'jwt' ? { 'www-authenticate': 'Bearer' } : undefined;

  const limit = (decision: ReturnType<typeof byAddress.take>, who: string) => {
    if (decision.allowed) return;
    throw new HttpError(
      429,
      { error: 'rate_limited', message: `too many token requests from this ${who}; try again in ${decision.retryAfterSeconds} s` },
      { 'retry-after': String(decision.retryAfterSeconds) },
    );
  };

  return async (req, res) => {
    limit(byAddress.take(clientAddress(req, hops)), 'address');
    const auth = await authenticate(req.headers);
    if (!auth.ok) throw new HttpError(401, { error: 'unauthorized', message: auth.reason }, challenge);
    if (auth.user !== undefined) limit(byUser.take(auth.user), 'user');

    const parsed = tokenRequestSchema.safeParse(await readJsonBody(req));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        field: issue.path.length > 0 ? issue.path.join('.') : '(body)',
        message: issue.message,
      }));
      throw new HttpError(400, {
        error: 'invalid_request',
        message: issues.map((i) => `${i.field}: ${i.message}`).join('; '),
        issues,
      });
    }

    const session = await ownRoom(req, key, options.rooms) ?? (await newRoom(options));
    const token = await mintJoinToken({ room: session.room, identity: session.identity, name: parsed.data.name }, options);
    const secure = (req.socket as { encrypted?: boolean }).encrypted === true || (hops > 0 && req.headers['x-forwarded-proto'] === 'https');
    sendJson(
      res,
      200,
      {
        token,
        url: options.livekitUrl,
        room: session.room,
        identity: session.identity,
        agentName: options.agentName ?? null,
        expiresAt: new Date(Date.now() + options.ttlSeconds * 1000).toISOString(),
      },
      { 'set-cookie': sessionCookie(encodeSession(session, key), secure) },
    );
  };
}

/** The room this browser's cookie names, while LiveKit still has it. */
async function ownRoom(req: IncomingMessage, key: Buffer, rooms: RoomProvisioner): Promise<BrowserSession | undefined> {
  const session = decodeSession(readCookie(req.headers.cookie, SESSION_COOKIE), key);
  if (!session) return undefined;
  return (await rooms.exists(session.room)) ? session : undefined;
}

async function newRoom(options: TokenEndpointOptions): Promise<BrowserSession> {
  const session = newSession(SESSION_LIFETIME_S);
  // The caller must join while the token is valid; until then the agent waits in the room.
  const result = await options.rooms.provision({ room: session.room, callerIdentity: session.identity, emptyTimeoutSeconds: options.ttlSeconds });
  if (!result.ok) {
    throw new HttpError(
      503,
      { error: 'busy', message: 'Every agent is busy with other calls right now. Please try again in a minute.' },
      { 'retry-after': String(BUSY_RETRY_S) },
    );
  }
  return session;
}
