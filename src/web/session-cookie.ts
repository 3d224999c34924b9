/**
 * The browser session: which room and identity this browser was given. The server names both;
 * the cookie only lets the same browser come back to its own room (a page reload mid-call). It
 * is signed (HMAC-SHA256), HttpOnly (page scripts cannot read it) and SameSite=Strict (other
 * sites cannot make the browser send it).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'firstword_session';

export interface BrowserSession {
  room: string;
  identity: string;
  /** Seconds since the epoch after which the cookie is no longer honoured. */
  expires: number;
}

/** 128 random bits, URL- and room-name-safe. */
export function randomName(prefix: string): string {
  return `${prefix}${randomBytes(16).toString('base64url')}`;
}

export function newSession(lifetimeSeconds: number, nowMs = Date.now()): BrowserSession {
  return { room: randomName('web-'), identity: randomName('caller-'), expires: Math.floor(nowMs / 1000) + lifetimeSeconds };
}

/** The signing key is derived from the LiveKit secret, so there is no second secret to manage. */
export function sessionKey(apiSecret: string): Buffer {
  return createHmac('sha256', apiSecret).update('firstword web session cookie v1').digest();
}

const sign = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export function encodeSession(session: BrowserSession, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify([session.room, session.identity, session.expires])).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

/** The session in a cookie value, or undefined when it is malformed, forged or expired. */
export function decodeSession(value: string | undefined, key: Buffer, nowMs = Date.now()): BrowserSession | undefined {
  if (!value || value.length > 512) return undefined;
  const [payload, signature, extra] = value.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const [room, identity, expires] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    if (typeof room !== 'string' || typeof identity !== 'string' || typeof expires !== 'number') return undefined;
    if (expires * 1000 <= nowMs) return undefined;
    return { room, identity, expires };
  } catch {
    return undefined;
  }
}

/** One cookie's value from a Cookie header; the first wins when a name repeats. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** A session cookie (gone when the browser closes; the signed expiry bounds it otherwise). */
export function sessionCookie(value: string, secure: boolean): string {
  return [`${SESSION_COOKIE}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}
