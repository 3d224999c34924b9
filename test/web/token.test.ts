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
  });

  it('leaves dispatch to the server when no agent name is set (automatic dispatch)', async () => {
    const claims = await verify(
      await mintJoinToken({ room: 'lobby', identity: 'alice' }, { apiKey: API_KEY, apiSecret: API_SECRET, ttlSeconds: 600 }),
    );
    expect(claims.roomConfig).toBeUndefined();
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

  it('returns a verifiable token for the requested room with the URL to connect to', async () => {
    const { status, headers, body } = await postToken(web.base, { room: 'demo-1', identity: 'bob' });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toMatchObject({ url: 'wss://lk.example.test', room: 'demo-1', identity: 'bob', agentName: 'firstword' });
    const claims = await verify(body.token as string);
    expect(claims.video?.room).toBe('demo-1');
    expect(claims.sub).toBe('bob');
    expect(claims.exp! - claims.nbf!).toBe(300);
    expect(dispatchedAgents(claims)).toEqual(['firstword']);
  });

  it.each([
    [{ identity: 'bob' }, 'room'],
    [{ room: '', identity: 'bob' }, 'room'],
    [{ room: '../etc', identity: 'bob' }, 'room'],
    [{ room: 'x'.repeat(65), identity: 'bob' }, 'room'],
    [{ room: 'demo', identity: 'bob smith' }, 'identity'],
    [{ room: 'demo', identity: 'sip_+14155550100' }, 'identity'],
    [{ room: 'demo', identity: 'bob', name: 'a\u0000b' }, 'name'],
    [{ room: 'demo', identity: 'bob', admin: true }, '(body)'],
    [{ room: 42, identity: 'bob' }, 'room'],
  ])('rejects %j with 400 naming %s', async (request, field) => {
    const { status, body } = await postToken(web.base, request);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_request');
    expect(body.token).toBeUndefined();
    const issues = body.issues as { field: string; message: string }[];
    expect(issues.map((i) => i.field)).toContain(field);
    expect(typeof body.message).toBe('string');
  });

  it('lists every bad field at once', async () => {
    const { body } = await postToken(web.base, { room: '!', identity: '?' });
    expect((body.issues as { field: string }[]).map((i) => i.field).sort()).toEqual(['identity', 'room']);
  });

  it('rejects malformed JSON, other content types, oversized bodies and other methods', async () => {
    expect((await postToken(web.base, '{not json')).body).toMatchObject({ error: 'invalid_json' });
    const wrongType = await postToken(web.base, 'room=a&identity=b', 'application/x-www-form-urlencoded');
    expect(wrongType.status).toBe(415);
    const huge = await postToken(web.base, { room: 'a', identity: 'b', name: 'x'.repeat(5000) });
    expect(huge.status).toBe(413);

    const get = await fetch(`${web.base}/token`, { signal: AbortSignal.timeout(5000) });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
