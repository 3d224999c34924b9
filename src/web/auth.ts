/**
 * The deployer's own authentication in front of `/token`, chosen by one setting:
 * - `shared-secret`: a backend that fronts the page sends `X-Firstword-Auth: <secret>` (compared
 *   in constant time) and may name its user in `X-Firstword-User`, believed only with the secret;
 * - `jwt`: the page sends `Authorization: Bearer <JWT>` issued by the deployer's app, verified
 *   with an HS256 secret or the keys at a JWKS URL; the user is its `sub`.
 * Every refusal is a 401 with a reason that names no secret.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { type JWTVerifyGetKey, createRemoteJWKSet, errors, jwtVerify } from 'jose';

import type { WebAuthSettings } from '../config/index.js';

export type AuthSettings = WebAuthSettings;

export type AuthResult = { ok: true; user?: string } | { ok: false; reason: string };

export type Authenticator = (headers: IncomingHttpHeaders) => Promise<AuthResult>;

export const SHARED_SECRET_HEADER = 'x-firstword-auth';
export const USER_HEADER = 'x-firstword-user';
const USER = /^[\x21-\x7e]{1,128}$/;

/** Equal-length digests, so neither the comparison nor its length check leaks the secret's length. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value;
}

export function createAuthenticator(settings: AuthSettings): Authenticator {
  switch (settings.kind) {
    case 'none':
      return async () => ({ ok: true });
    case 'shared-secret':
      return async (headers) => {
        const given = single(headers[SHARED_SECRET_HEADER]);
        if (given === undefined) return { ok: false, reason: `send the ${SHARED_SECRET_HEADER} header` };
        if (!sameSecret(given, settings.secret)) return { ok: false, reason: `the ${SHARED_SECRET_HEADER} header is wrong` };
        const user = single(headers[USER_HEADER]);
        return { ok: true, user: user !== undefined && USER.test(user) ? user : undefined };
      };
    case 'jwt':
      return jwtAuthenticator(settings);
  }
}

function jwtAuthenticator(settings: Extract<AuthSettings, { kind: 'jwt' }>): Authenticator {
  const options = {
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    ...(settings.audience ? { audience: settings.audience } : {}),
    clockTolerance: 5,
  };
  const verify = settings.hs256Secret
    ? (() => {
        const key = new TextEncoder().encode(settings.hs256Secret);
        return (jwt: string) => jwtVerify(jwt, key, { ...options, algorithms: ['HS256'] });
      })()
    : (() => {
        const keys: JWTVerifyGetKey = createRemoteJWKSet(new URL(settings.jwksUrl!), { timeoutDuration: 5000 });
        return (jwt: string) => jwtVerify(jwt, keys, { ...options, algorithms: ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'] });
      })();
  return async (headers) => {
    const header = single(headers.authorization);
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9_.-]{1,8192})$/.exec(header);
    if (!match) return { ok: false, reason: 'send Authorization: Bearer <token from your sign-in>' };
    try {
      const { payload } = await verify(match[1]!);
      if (typeof payload.sub !== 'string' || !USER.test(payload.sub)) return { ok: false, reason: 'the token names no user (sub)' };
      return { ok: true, user: payload.sub };
    } catch (error) {
      return { ok: false, reason: describeJwtError(error) };
    }
  };
}

function describeJwtError(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'the token is signed with an unknown key';
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JOSEError && error.code === 'ERR_JWKS_INVALID') {
    return 'the signing keys could not be fetched';
  }
  return 'the token is not valid';
}
