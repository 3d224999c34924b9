import { describe, expect, it } from 'vitest';
import { connectFailureMessage, disconnectMessage, errorText, fetchToken, readPageOptions } from '../../web/connection.js';

const jsonResponse = (status: number, body: unknown, statusText = '') =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, statusText, headers: { 'content-type': 'application/json' } });

describe('page options', () => {
  it('reads room, identity, autoconnect, debug and the agent wait from the URL', () => {
    expect(readPageOptions('', 15_000)).toEqual({ room: null, identity: null, autoconnect: false, debug: false, agentTimeoutMs: 15_000 });
    expect(readPageOptions('?room=lobby&identity=alice&autoconnect=1&debug=1&agentTimeout=2.5', 15_000)).toEqual({
      room: 'lobby',
      identity: 'alice',
      autoconnect: true,
      debug: true,
      agentTimeoutMs: 2500,
    });
    expect(readPageOptions('?autoconnect=true&debug=0&agentTimeout=soon', 15_000)).toMatchObject({ autoconnect: false, debug: false, agentTimeoutMs: 15_000 });
    expect(readPageOptions('?agentTimeout=0', 15_000).agentTimeoutMs).toBe(15_000);
  });
});

describe('fetchToken', () => {
  it('posts the room and identity and returns the grant', async () => {
    const requests: { url: string; init: RequestInit }[] = [];
    const fetchImpl = (async (url: string, init: RequestInit) => {
      requests.push({ url, init });
      return jsonResponse(200, { token: 'jwt', url: 'wss://lk.example', agentName: 'firstword', room: 'lobby' });
    }) as unknown as typeof fetch;
    expect(await fetchToken('lobby', 'alice', fetchImpl)).toEqual({ token: 'jwt', url: 'wss://lk.example', agentName: 'firstword' });
    expect(requests[0]!.url).toBe('/token');
    expect(requests[0]!.init.method).toBe('POST');
    expect(JSON.parse(String(requests[0]!.init.body))).toEqual({ room: 'lobby', identity: 'alice' });
  });

  it('treats a missing agent name as automatic dispatch', async () => {
    const fetchImpl = (async () => jsonResponse(200, { token: 'jwt', url: 'ws://x', agentName: null })) as unknown as typeof fetch;
    expect((await fetchToken('a', 'b', fetchImpl)).agentName).toBeNull();
  });

  it("says when this page's server cannot be reached", async () => {
    const fetchImpl = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    await expect(fetchToken('a', 'b', fetchImpl)).rejects.toThrow(/^Could not reach this page's server for a token \(Failed to fetch\)/);
  });

  it("gives the server's reason for a refused token, or the HTTP status", async () => {
    const refused = (async () => jsonResponse(400, { message: 'room: use 1-64 letters' })) as unknown as typeof fetch;
    await expect(fetchToken('a b', 'c', refused)).rejects.toThrow('The token request was refused: room: use 1-64 letters');
    const proxy = (async () => jsonResponse(502, '<html>bad gateway</html>', 'Bad Gateway')) as unknown as typeof fetch;
    await expect(fetchToken('a', 'b', proxy)).rejects.toThrow('The token request was refused: Bad Gateway');
    const bare = (async () => jsonResponse(503, 'nope')) as unknown as typeof fetch;
    await expect(fetchToken('a', 'b', bare)).rejects.toThrow('The token request was refused: HTTP 503');
  });

  it('refuses an answer without a token', async () => {
    const fetchImpl = (async () => jsonResponse(200, { url: 'ws://x' })) as unknown as typeof fetch;
    await expect(fetchToken('a', 'b', fetchImpl)).rejects.toThrow(/without a token/);
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
    expect(disconnectMessage('DUPLICATE_IDENTITY', 'alice')).toMatch(/joined this room as "alice"/);
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
