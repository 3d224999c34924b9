import { type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/web/auth.js';
import { decodeSession, encodeSession, newSession, readCookie, sessionKey } from '../../src/web/session-cookie.js';
import { type RunningWebServer, postToken, startWebServer } from './helpers.js';

const HS_SECRET = 'a-deployer-hs256-secret-of-at-least-32-chars';
const hs256 = (claims: Record<string, unknown>, secret = HS_SECRET, expiresIn = '5m') =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(secret));
const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

describe('shared-secret auth', () => {
  const auth = createAuthenticator({ kind: 'shared-secret', secret: 'fronting-backend-secret' });

  it('accepts the secret, and believes the user header only with it', async () => {
    expect(await auth({ 'x-firstword-auth': 'fronting-backend-secret', 'x-firstword-user': 'u-42' })).toEqual({ ok: true, user: 'u-42' });
    expect(await auth({ 'x-firstword-auth': 'fronting-backend-secret' })).toEqual({ ok: true, user: undefined });
    expect(await auth({ 'x-firstword-user': 'u-42' })).toMatchObject({ ok: false, reason: 'send the x-firstword-auth header' });
  });

  it('refuses a wrong, prefixed, longer or repeated secret', async () => {
    for (const given of ['wrong', 'fronting-backend-secre', 'fronting-backend-secretX', '']) {
      expect(await auth({ 'x-firstword-auth': given })).toMatchObject({ ok: false, reason: 'the x-firstword-auth header is wrong' });
    }
    expect((await auth({ 'x-firstword-auth': ['fronting-backend-secret', 'x'] })).ok).toBe(false);
  });
});

describe('JWT auth (HS256)', () => {
  const auth = createAuthenticator({ kind: 'jwt', hs256Secret: HS_SECRET, issuer: 'https://app.example', audience: 'firstword' });
  const good = { sub: 'user-1', iss: 'https://app.example', aud: 'firstword' };

  it('accepts a valid token and names its subject', async () => {
    expect(await auth(bearer(await hs256(good)))).toEqual({ ok: true, user: 'user-1' });
  });

  it('refuses a forged, expired, mis-addressed, subject-less or alg:none token, and a missing header', async () => {
    const refused = async (headers: Record<string, string>) => {
      const result = await auth(headers);
      expect(result.ok).toBe(false);
      return (result as { reason: string }).reason;
    };
    expect(await refused(bearer(await hs256(good, 'another-secret-that-is-also-32-chars-long')))).toBe('the token is not valid');
    expect(await refused(bearer(await hs256(good, HS_SECRET, '-1 minute')))).toBe('the token has expired');
    expect(await refused(bearer(await hs256({ ...good, aud: 'other-app' })))).toBe("the token's aud claim is not accepted");
    expect(await refused(bearer(await hs256({ ...good, iss: 'https://evil.example' })))).toBe("the token's iss claim is not accepted");
    expect(await refused(bearer(await hs256({ iss: good.iss, aud: good.aud })))).toBe('the token names no user (sub)');
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(good)).toString('base64url')}.`;
    expect(await refused(bearer(none))).toBe('the token is not valid');
    expect(await refused({})).toMatch(/^send Authorization: Bearer/);
    expect(await refused({ authorization: 'Basic dXNlcjpwYXNz' })).toMatch(/^send Authorization: Bearer/);
  });
});

describe('JWT auth (JWKS URL)', () => {
  let jwksUrl: string;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  let signOther: (claims: Record<string, unknown>) => Promise<string>;
  const server = createServer();

  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    server.on('request', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime('5m').sign(privateKey);
    signOther = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime('5m').sign(other.privateKey);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts a token signed by a published key and refuses one signed by another key', async () => {
    const auth = createAuthenticator({ kind: 'jwt', jwksUrl });
    expect(await auth(bearer(await sign({ sub: 'user-7' })))).toEqual({ ok: true, user: 'user-7' });
    expect((await auth(bearer(await signOther({ sub: 'user-7' })))).ok).toBe(false);
    // an HS256 token "signed" with the public key (the classic algorithm confusion) is refused
    const published = JSON.stringify(await fetch(jwksUrl).then((r) => r.json()));
    expect((await auth(bearer(await hs256({ sub: 'user-7' }, published)))).ok).toBe(false);
  });
});

describe('session cookie', () => {
  const key = sessionKey('livekit-secret');

  it('round-trips, and refuses tampering, another key, expiry and junk', () => {
    const session = newSession(60, 1_000_000);
    const value = encodeSession(session, key);
    expect(decodeSession(value, key, 1_000_000)).toEqual(session);
    expect(decodeSession(value, sessionKey('other-secret'), 1_000_000)).toBeUndefined();
    expect(decodeSession(value, key, 1_000_000 + 61_000)).toBeUndefined();
    const [payload, signature] = value.split('.');
    expect(decodeSession(`${payload}x.${signature}`, key, 1_000_000)).toBeUndefined();
    for (const junk of ['', '.', 'a.b.c', 'x'.repeat(600), `${payload}.`, `.${signature}`]) expect(decodeSession(junk, key, 1_000_000)).toBeUndefined();
  });

  it('names a different, unguessable room and identity each time', () => {
    const rooms = new Set(Array.from({ length: 1000 }, () => newSession(60).room));
    expect(rooms.size).toBe(1000);
    expect(newSession(60).room).toMatch(/^web-[A-Za-z0-9_-]{22}$/);
  });

  it('reads one cookie from a Cookie header', () => {
    expect(readCookie('a=1; firstword_session=abc.def; b=2', 'firstword_session')).toBe('abc.def');
    expect(readCookie('firstword_sessionx=1', 'firstword_session')).toBeUndefined();
    expect(readCookie(undefined, 'firstword_session')).toBeUndefined();
  });
});

describe('POST /token with auth and rate limits', () => {
  let web: RunningWebServer;
  let t = 0;
  beforeAll(async () => {
    web = await startWebServer({
      auth: { kind: 'jwt', hs256Secret: HS_SECRET },
      rate: { perAddressPerMinute: 6, perUserPerMinute: 3 },
      now: () => t,
    });
  });
  afterAll(() => web.close());

  it('refuses a request without a valid JWT with 401 and a Bearer challenge, making no room', async () => {
    const missing = await postToken(web.base, {});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.body).toMatchObject({ error: 'unauthorized' });
    const expired = await postToken(web.base, {}, 'application/json', bearer(await hs256({ sub: 'u' }, HS_SECRET, '-1 minute')));
    expect(expired.body).toMatchObject({ error: 'unauthorized', message: 'the token has expired' });
    expect(web.rooms.made).toEqual([]);
  });

  it("limits each user, then each address, with 429 and Retry-After; refilled with time", async () => {
    t += 3_600_000;
    const alice = bearer(await hs256({ sub: 'alice' }));
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await postToken(web.base, {}, 'application/json', alice)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await postToken(web.base, {}, 'application/json', alice);
    expect(limited.body).toMatchObject({ error: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);

    // alice took 5 of the address's 6; bob gets the last, then the address is spent whoever signs in
    const bob = bearer(await hs256({ sub: 'bob' }));
    expect((await postToken(web.base, {}, 'application/json', bob)).status).toBe(200);
    expect((await postToken(web.base, {}, 'application/json', bob)).body).toMatchObject({ error: 'rate_limited', message: expect.stringMatching(/this address/) });
    t += 60_000;
    expect((await postToken(web.base, {}, 'application/json', bob)).status).toBe(200);
  });
});
