import { TokenVerifier } from 'livekit-server-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mintJoinToken } from '../../src/web/token.js';
import { API_KEY, API_SECRET, type RunningWebServer, postToken, startWebServer } from './helpers.js';

/** Agent names in the token's room configuration (the JWT carries it as protobuf JSON). */
const dispatchedAgents = (claims: { roomConfig?: unknown }) =>
  ((claims.roomConfig as { agents?: { agentName: string }[] } | undefined)?.agents ?? []).map((a) => a.agentName);

const verify = (token: string) => new TokenVerifier(API_KEY, API_SECRET).verify(token);

describe('mintJoinToken', () => {
  it('grants joining one room with microphone-only publishing', async () => {
    const claims = await verify(
      await mintJoinToken({ room: 'lobby', identity: 'alice', name: 'Alice' }, { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 600 }),
    );
    expect(claims.sub).toBe('alice');
    expect(claims.name).toBe('Alice');
    expect(claims.iss).toBe(API_KEY);
    expect(claims.video).toEqual({
      roomJoin: true,
      room: 'lobby',
      canPublish: true,
      canPublishSources: ['microphone'],
      canSubscribe: true,
      canPublishData: true,
    });
    expect(claims.video?.roomAdmin).toBeUndefined();
    expect(claims.video?.roomCreate).toBeUndefined();
  });

  it('expires after the configured TTL', async () => {
    const claims = await verify(
      await mintJoinToken({ room: 'lobby', identity: 'alice' }, { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 120 }),
    );
    expect(claims.exp! - claims.nbf!).toBe(120);
    expect(Math.abs(claims.exp! - (Date.now() / 1000 + 120))).toBeLessThan(30);
  });

  it('dispatches the agent by name through the room configuration', async () => {
    const claims = await verify(
      await mintJoinToken(
        { room: 'lobby', identity: 'alice' },
        { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 600, agentName: 'firstword' },
      ),
    );
    expect(dispatchedAgents(claims)).toEqual(['firstword']);
    // the agent is told whom to talk to
    const agents = (claims.roomConfig as { agents: { metadata: string }[] }).agents;
    expect(JSON.parse(agents[0]!.metadata)).toEqual({ caller: 'alice' });
  });

  it('bounds the room it creates to one caller (agents do not count), with or without an agent name', async () => {
    for (const agentName of ['firstword', undefined]) {
      const claims = await verify(
        await mintJoinToken({ room: 'lobby', identity: 'alice' }, { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 600, agentName }),
      );
      expect((claims.roomConfig as { maxParticipants?: number }).maxParticipants).toBe(1);
    }
  });

  it('leaves dispatch to the server when no agent name is set (automatic dispatch)', async () => {
    const claims = await verify(
      await mintJoinToken({ room: 'lobby', identity: 'alice' }, { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 600 }),
    );
    expect(dispatchedAgents(claims)).toEqual([]);
  });

  it('is rejected by a verifier holding another secret', async () => {
    const token = await mintJoinToken({ room: 'lobby', identity: 'alice' }, { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 600 });
    await expect(new TokenVerifier(API_KEY, 'another-secret-long-enough-0123456789abcdef').verify(token)).rejects.toThrow();
  });
});

describe('POST /token', () => {
  let web: RunningWebServer;
  beforeEach(async () => {
    web = await startWebServer({ livekitUrl: 'wss://lk.example.test', ttlSeconds: 300 });
  });
  afterEach(async () => {
    await web.close();
  });

  it('names a fresh, unguessable room and identity, makes the room, and returns a token for it alone', async () => {
    const { status, headers, body } = await postToken(web.base, { name: 'Bob' });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toMatchObject({ url: 'wss://lk.example.test', agentName: 'firstword' });
    expect(body.room).toMatch(/^web-[A-Za-z0-9_-]{22}$/);
    expect(body.identity).toMatch(/^caller-[A-Za-z0-9_-]{22}$/);
    expect(web.rooms.made).toEqual([{ room: body.room, callerIdentity: body.identity, emptyTimeoutSeconds: 300 }]);
    const claims = await verify(body.token as string);
    expect(claims.video?.room).toBe(body.room);
    expect(claims.sub).toBe(body.identity);
    expect(claims.name).toBe('Bob');
    expect(claims.exp! - claims.nbf!).toBe(300);
    expect(dispatchedAgents(claims)).toEqual(['firstword']);
    const cookie = headers.get('set-cookie')!;
    expect(cookie).toMatch(/^firstword_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict$/);
  });

  it('gives a browser that comes back with its cookie the same room while it lives, and a new one after', async () => {
    const first = await postToken(web.base, {});
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    const again = await postToken(web.base, {}, 'application/json', { cookie });
    expect(again.body).toMatchObject({ room: first.body.room, identity: first.body.identity });
    expect(web.rooms.made).toHaveLength(1);

    web.rooms.live.delete(first.body.room as string);
    const later = await postToken(web.base, {}, 'application/json', { cookie });
    expect(later.body.room).not.toBe(first.body.room);
    expect(web.rooms.made).toHaveLength(2);
  });

  it('never lets a browser without that cookie into the room: a forged or altered cookie gets a room of its own', async () => {
    const first = await postToken(web.base, {});
    const value = first.headers.get('set-cookie')!.split(';')[0]!.split('=')[1]!;
    const [payload, signature] = value.split('.');
    const forgedPayload = Buffer.from(JSON.stringify([first.body.room, 'caller-evil', 9_999_999_999])).toString('base64url');
    for (const cookie of [`firstword_session=${forgedPayload}.${signature}`, `firstword_session=${payload}.${'A'.repeat(signature!.length)}`, `firstword_session=${payload}`]) {
      const other = await postToken(web.base, {}, 'application/json', { cookie });
      expect(other.status).toBe(200);
      expect(other.body.room).not.toBe(first.body.room);
    }
  });

  it('answers 503 busy, makes no token, and tells when to retry when no worker takes the call', async () => {
    web.rooms.busy = true;
    const { status, headers, body } = await postToken(web.base, {});
    expect(status).toBe(503);
    expect(body).toMatchObject({ error: 'busy' });
    expect(String(body.message)).toMatch(/busy/);
    expect(body.token).toBeUndefined();
    expect(headers.get('retry-after')).toBe('30');
    expect(headers.get('set-cookie')).toBeNull();
  });

  it.each([
    [{ room: 'demo-1' }, 'the server chooses the room'],
    [{ identity: 'bob' }, 'the server chooses the room and identity'],
    [{ name: 'a\u0000b' }, 'control characters'],
    [{ name: 'x'.repeat(65) }, 'at most 64'],
    [{ name: 42 }, 'name'],
    [[], 'object'],
  ])('rejects %j with 400 (%s) and makes no room', async (request, words) => {
    const { status, body } = await postToken(web.base, request);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(body.token).toBeUndefined();
    expect(String(body.message)).toContain(words.split(' ').at(-1));
    expect(web.rooms.made).toEqual([]);
  });

  it('rejects malformed JSON, other content types, oversized bodies and other methods', async () => {
    expect((await postToken(web.base, '{not json')).body).toMatchObject({ error: 'invalid_json' });
    const wrongType = await postToken(web.base, 'name=a', 'application/x-www-form-urlencoded');
    expect(wrongType.status).toBe(415);
    const huge = await postToken(web.base, { name: 'x'.repeat(5000) });
    expect(huge.status).toBe(413);

    const get = await fetch(`${web.base}/token`, { signal: AbortSignal.timeout(5000) });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(web.rooms.made).toEqual([]);
  });
});
