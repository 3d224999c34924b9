import { describe, expect, it } from 'vitest';
import { TokenRefused, connectFailureMessage, disconnectMessage, errorText, fetchToken, readAccessToken, readPageOptions } from '../../web/connection.js';

const jsonResponse = (status: number, body: unknown, statusText = '') =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, statusText, headers: { 'content-type': 'application/json' } });

describe('page options', () => {
  it('reads a display name, autoconnect, debug and the agent wait from the URL (never a room or identity)', () => {
    expect(readPageOptions('', 15_000)).toEqual({ name: null, autoconnect: false, debug: false, agentTimeoutMs: 15_000 });
    expect(readPageOptions('?room=lobby&identity=alice&name=Alice&autoconnect=1&debug=1&agentTimeout=2.5', 15_000)).toEqual({
      name: 'Alice',
      autoconnect: true,
      debug: true,
      agentTimeoutMs: 2500,
    });
    expect(readPageOptions('?autoconnect=true&debug=0&agentTimeout=soon', 15_000)).toMatchObject({ autoconnect: false, debug: false, agentTimeoutMs: 15_000 });
    expect(readPageOptions('?agentTimeout=0', 15_000).agentTimeoutMs).toBe(15_000);
  });

  it('reads a sign-in token from the URL fragment only', () => {
    expect(readAccessToken('#access_token=eyJ.abc.def')).toBe('eyJ.abc.def');
    expect(readAccessToken('')).toBeNull();
    expect(readAccessToken('#other=1')).toBeNull();
  });
});

describe('fetchToken', () => {
  it('posts only the display name and returns the grant', async () => {
    const requests: { url: string; init: RequestInit }[] = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      requests.push({ url, init });
      return jsonResponse(200, { token: 'jwt', url: 'wss://lk.example', agentName: 'firstword', room: 'web-x' });
    }) as unknown as typeof fetch;
    expect(await fetchToken('Alice', { fetchImpl })).toEqual({ token: 'jwt', url: 'wss://lk.example', agentName: 'firstword' });
    expect(requests[0]!.url).toBe('/token');
    expect(requests[0]!.init.method).toBe('POST');
    expect(JSON.parse(String(requests[0]!.init.body))).toEqual({ name: 'Alice' });
    expect(requests[0]!.init.headers).not.toHaveProperty('authorization');
    await fetchToken(null, { fetchImpl, accessToken: 'eyJ.a.b' });
    expect(JSON.parse(String(requests[1]!.init.body))).toEqual({});
    expect(requests[1]!.init.headers).toMatchObject({ authorization: 'Bearer eyJ.a.b' });
  });

  it('treats a missing agent name as automatic dispatch', async () => {
    const fetchImpl = (async () => jsonResponse(200, { token: 'jwt', url: 'ws://x', agentName: null })) as unknown as typeof fetch;
    expect((await fetchToken(null, { fetchImpl })).agentName).toBeNull();
  });

  it("says when this page's server cannot be reached", async () => {
    const fetchImpl = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    await expect(fetchToken(null, { fetchImpl })).rejects.toThrow(/^Could not reach this page's server for a token \(Failed to fetch\)/);
  });

  it("gives the server's reason for a refused token, or the HTTP status", async () => {
    const refused = (async () => jsonResponse(400, { error: 'invalid_request', message: 'name: use at most 64 characters' })) as unknown as typeof fetch;
    await expect(fetchToken('x', { fetchImpl: refused })).rejects.toThrow('The token request was refused: name: use at most 64 characters');
    const proxy = (async () => jsonResponse(502, '<html>bad gateway</html>', 'Bad Gateway')) as unknown as typeof fetch;
    await expect(fetchToken(null, { fetchImpl: proxy })).rejects.toThrow('The token request was refused: Bad Gateway');
    const bare = (async () => jsonResponse(503, 'nope')) as unknown as typeof fetch;
    await expect(fetchToken(null, { fetchImpl: bare })).rejects.toThrow('The token request was refused: HTTP 503');
  });

  it('tells busy, sign-in and rate-limit refusals apart', async () => {
    const answer = (status: number, error: string, message: string) =>
      (async () => jsonResponse(status, { error, message })) as unknown as typeof fetch;
    const busy = await fetchToken(null, { fetchImpl: answer(503, 'busy', 'Every agent is busy.') }).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(TokenRefused);
    expect(busy).toMatchObject({ kind: 'busy', message: 'Every agent is busy.' });
    await expect(fetchToken(null, { fetchImpl: answer(401, 'unauthorized', 'the token has expired') })).rejects.toMatchObject({
      kind: 'unauthorized',
      message: 'Sign in first: the token has expired',
    });
    await expect(fetchToken(null, { fetchImpl: answer(429, 'rate_limited', 'try again in 6 s') })).rejects.toMatchObject({ kind: 'rate_limited' });
  });

  it('refuses an answer without a token', async () => {
    const fetchImpl = (async () => jsonResponse(200, { url: 'ws://x' })) as unknown as typeof fetch;
    await expect(fetchToken(null, { fetchImpl })).rejects.toThrow(/without a token/);
  });
});

describe('connection messages', () => {
  const connectionError = (reason: number, message: string, status?: number) =>
    Object.assign(new Error(message), { name: 'ConnectionError', reason, status });

  it('says LiveKit refused the token when it answers NotAllowed', () => {
    const message = connectFailureMessage(connectionError(0, 'invalid token', 401), 'ws://lk:7880');
    expect(message).toMatch(/^LiveKit at ws:\/\/lk:7880 refused the token \(HTTP 401\): invalid token/);
    expect(message).toContain('LIVEKIT_API_KEY and LIVEKIT_API_SECRET');
  });

  it('says the server is unreachable otherwise', () => {
    const message = connectFailureMessage(connectionError(1, 'could not establish signal connection'), 'ws://lk:7880');
    expect(message).toMatch(/^Could not connect to LiveKit at ws:\/\/lk:7880: could not establish signal connection/);
    expect(message).toContain('Check that the LiveKit server is running');
    expect(connectFailureMessage('weird', 'ws://lk')).toMatch(/^Could not connect to LiveKit at ws:\/\/lk: weird/);
  });

  it('explains a dropped connection and stays quiet when the user left', () => {
    expect(disconnectMessage('CLIENT_INITIATED', 'alice')).toBeNull();
    expect(disconnectMessage('DUPLICATE_IDENTITY', 'alice')).toMatch(/another tab or window of this browser \(as "alice"\)/);
    expect(disconnectMessage('ROOM_DELETED', 'alice')).toMatch(/^The room was closed\./);
    expect(disconnectMessage('SERVER_SHUTDOWN', 'alice')).toMatch(/^The LiveKit server shut down\./);
    expect(disconnectMessage('PARTICIPANT_REMOVED', 'alice')).toMatch(/^You were removed/);
    expect(disconnectMessage('SIGNAL_CLOSE', 'alice')).toMatch(/^The connection to LiveKit dropped \(SIGNAL_CLOSE\) and could not be restored/);
    expect(disconnectMessage(undefined, 'alice')).toMatch(/^The connection to LiveKit dropped and could not be restored/);
    expect(disconnectMessage('UNKNOWN_REASON', 'alice')).toMatch(/^The connection to LiveKit dropped and/);
  });

  it('turns anything thrown into text', () => {
    expect(errorText(new Error('boom'))).toBe('boom');
    expect(errorText(42)).toBe('42');
  });
});
