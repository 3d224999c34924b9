import { afterEach, describe, expect, it } from 'vitest';
import { type CartesiaServer, type CartesiaServerOptions, startCartesiaServer } from './cartesia-server.js';
import {
  type ConnectOptions,
  LEGACY_VERSION,
  RawCartesiaClient,
  STRUCTURED_VERSION,
  TEST_VOICE,
  generation,
  refusedUpgrade,
} from './cartesia/test-client.js';

let server: CartesiaServer | undefined;
const clients: RawCartesiaClient[] = [];

async function start(options: Partial<CartesiaServerOptions> = {}): Promise<CartesiaServer> {
  server = await startCartesiaServer(options);
  return server;
}

async function connect(options: Parameters<typeof RawCartesiaClient.connect>[1] = {}): Promise<RawCartesiaClient> {
  const client = await RawCartesiaClient.connect(server!.url, options);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

describe('Cartesia server: handshake', () => {
  it.each<[string, ConnectOptions]>([
    ['X-API-Key header', { headers: { 'X-API-Key': 'k2' } }],
    ['Authorization: Bearer', { headers: { Authorization: 'Bearer k2' } }],
    ['api_key query', { query: { api_key: 'k2' } }],
    ['access_token query', { query: { access_token: 'k2' } }],
  ])('accepts the key as %s and the version as a query parameter', async (_name, auth) => {
    await start({ apiKeys: ['k1', 'k2'] });
    const client = await connect({ key: undefined, version: undefined, ...auth, query: { cartesia_version: STRUCTURED_VERSION, ...auth.query } });
    client.send(generation('ok', 'Hi.', { continue: false }));
    await client.waitForType('done', 'ok');
    // Accepted means voiced: audio came before the done, and no error.
    expect(client.audioOf('ok').length).toBeGreaterThan(0);
    expect(client.of('ok', 'error')).toEqual([]);
  });

  it('refuses a bad key with 401 and a structured JSON body carrying the X-Request-Id', async () => {
    await start();
    const refused = await refusedUpgrade(server!.url, { key: 'wrong', version: LEGACY_VERSION });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({
      error_code: 'unauthorized',
      title: 'Unauthorized',
      message: expect.any(String),
      request_id: refused.headers['x-request-id'],
    });
    expect(JSON.stringify(refused.body)).not.toContain('wrong');
  });

  it('refuses an upgrade without a version, or with a malformed one, with 400', async () => {
    await start();
    const missing = await refusedUpgrade(server!.url, { key: 'test-key' });
    expect(missing).toMatchObject({ status: 400, body: { error_code: 'missing_version' } });
    const malformed = await refusedUpgrade(server!.url, { key: 'test-key', version: 'latest' });
    expect(malformed).toMatchObject({ status: 400, body: { error_code: 'invalid_version' } });
  });

  it('refuses connections over maxConnections per key with 429; other keys and freed slots still connect', async () => {
    await start({ maxConnections: 2, apiKeys: ['a', 'b'] });
    const first = await connect({ key: 'a' });
    await connect({ key: 'a' });
    const refused = await refusedUpgrade(server!.url, { key: 'a', version: STRUCTURED_VERSION });
    expect(refused).toMatchObject({ status: 429, body: { error_code: 'connection_limited' } });
    await connect({ key: 'b' });
    expect(server!.openConnections()).toBe(3);
    first.close();
    await first.closed();
    const deadline = Date.now() + 3000;
    while (server!.openConnections() !== 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await connect({ key: 'a' });
    expect(server!.connectionsOpened).toBe(4);
    expect(server!.connectionKeys.map((c) => [c.connectionId, c.key])).toEqual([[1, 'a'], [2, 'a'], [3, 'b'], [4, 'a']]);
  });

  it('answers protocol pings and closes an idle socket with 1000 "connection idle timeout"', async () => {
    await start({ idleCloseMs: 150 });
    const client = await connect();
    await client.ping();
    expect(await client.closed()).toEqual({ code: 1000, reason: 'connection idle timeout' });
  });
});

const base = (version: string) => ({ key: 'test-key', version });

describe.each([
  ['legacy', LEGACY_VERSION],
  ['structured', STRUCTURED_VERSION],
])('Cartesia server: %s error events', (shape, version) => {
  async function errorFor(message: Record<string, unknown> | string, options: Partial<CartesiaServerOptions> = {}) {
    await start(options);
    const client = await connect(base(version));
    client.send(message);
    const error = await client.waitFor((e) => e.type === 'error');
    return { client, error };
  }

  function expectShape(error: Record<string, unknown>, statusCode: number, errorCode: string, contextId: string | undefined) {
    expect(error.type).toBe('error');
    expect(error.done).toBe(true);
    expect(error.status_code).toBe(statusCode);
    expect(error.context_id).toBe(contextId);
    if (shape === 'legacy') {
      expect(Object.keys(error).sort()).toEqual(['context_id', 'done', 'error', 'status_code', 'type'].filter((k) => k !== 'context_id' || contextId));
      expect(error.error).toMatch(/^[^:]+: .+/);
    } else {
      expect(error).toMatchObject({ error_code: errorCode, title: expect.any(String), message: expect.any(String) });
      expect(typeof error.request_id).toBe('string');
      expect(error.error).toBeUndefined();
    }
  }

  it('model_not_found for a model outside the allow-list', async () => {
    const { error } = await errorFor(generation('m', 'Hi.', { model_id: 'sonic-9' }));
    expectShape(error, 400, 'model_not_found', 'm');
    if (shape === 'legacy') expect(error.error).toBe('Invalid model: The model is not valid, make sure it is a valid model ID.');
  });

  it.each(['sonic-3.5-2026-05-01', 'sonic-3-2027-01-15'])('accepts the dated snapshot %s of a served family', async (model) => {
    await start();
    const client = await connect(base(version));
    client.send(generation('d', 'Hi.', { model_id: model, continue: false }));
    await client.waitForType('done', 'd');
    expect(client.of('d', 'error')).toEqual([]);
  });

  it.each(['sonic-3.5-2026-13-45', 'sonic-9-2026-05-01'])('model_not_found for %s (bad date or unknown family)', async (model) => {
    const { error } = await errorFor(generation('m', 'Hi.', { model_id: model }));
    expectShape(error, 400, 'model_not_found', 'm');
  });

  it('model_sunsetted for a retired model', async () => {
    const { error } = await errorFor(generation('m', 'Hi.', { model_id: 'sonic-english' }));
    expectShape(error, 400, 'model_sunsetted', 'm');
  });

  it.each(['', '   ', '...!?'])('400 with done:true for an empty or punctuation-only first transcript %j', async (transcript) => {
    const { error } = await errorFor(generation('e', transcript, { continue: false }));
    expectShape(error, 400, 'transcript_empty', 'e');
    if (shape === 'legacy') {
      expect(error.error).toBe('transcript empty or contains only punctuation: first transcript for WS is empty or contains only punctuation');
    }
  });

  it.each([
    ['missing voice', { voice: undefined }],
    ['missing output_format', { output_format: undefined }],
    ['non-string transcript', { transcript: 42 }],
  ])('invalid_request for %s', async (_name, override) => {
    const { error } = await errorFor(generation('v', 'Hi.', override));
    expectShape(error, 400, 'invalid_request', 'v');
  });

  it('a connection-level error without context_id for a missing context_id, and the socket stays usable', async () => {
    const { client, error } = await errorFor(generation('', 'Hi.'));
    expectShape(error, 400, 'invalid_request', undefined);
    client.send('{not json');
    await client.waitFor((e) => e.type === 'error' && client.events.filter((x) => x.type === 'error').length === 2);
    client.send(generation('after', 'Still here.', { continue: false }));
    await client.waitForType('done', 'after');
  });

  it.each([
    ['encoding', { container: 'raw', encoding: 'pcm_s24le', sample_rate: 24000 }],
    ['sample rate', { container: 'raw', encoding: 'pcm_s16le', sample_rate: 12345 }],
    ['wav container on the socket', { container: 'wav', encoding: 'pcm_s16le', sample_rate: 24000 }],
  ])('unsupported_output_format for a bad %s', async (_name, outputFormat) => {
    const { error } = await errorFor(generation('o', 'Hi.', { output_format: outputFormat }));
    expectShape(error, 400, 'unsupported_output_format', 'o');
  });

  it('voice_not_found for a voice outside the allow-list', async () => {
    const { error } = await errorFor(generation('v', 'Hi.', { voice: { mode: 'id', id: 'nobody' } }), { voices: [TEST_VOICE] });
    expectShape(error, 404, 'voice_not_found', 'v');
  });

  it('refuses a change of fields mid-context and ends the context without done', async () => {
    await start({ realTimeFactor: 1, frameBytes: 4800 });
    const client = await connect(base(version));
    client.send(generation('p', 'A fairly long first sentence to keep generating.'));
    client.send(generation('p', 'Second.', { voice: { mode: 'id', id: 'another-voice' }, language: 'fr' }));
    const error = await client.waitForType('error', 'p');
    expectShape(error, 400, 'context_params_changed', 'p');
    if (shape === 'structured') expect(error.message).toContain('language, voice');
    client.send(generation('q', 'Next.', { continue: false }));
    await client.waitForType('done', 'q');
    expect(client.of('p', 'done')).toEqual([]);
    expect(server!.activeContexts()).toBe(1);
  });

  it('429 concurrency_limited over the per-key context limit, counted across sockets', async () => {
    await start({ concurrencyLimit: 2 });
    const one = await connect(base(version));
    const two = await connect(base(version));
    one.send(generation('a', 'Open context. '));
    two.send(generation('b', 'Another open context. '));
    await Promise.all([one.waitForType('flush_done', 'a'), two.waitForType('flush_done', 'b')]);
    one.send(generation('c', 'One too many.'));
    const error = await one.waitForType('error', 'c');
    expectShape(error, 429, 'concurrency_limited', 'c');
    expect(server!.activeContexts()).toBe(2);
    // More input on an existing context does not count again; a cancel frees a slot.
    two.send(generation('b', 'More. '));
    one.send({ context_id: 'a', cancel: true });
    one.send(generation('d', 'Now there is room.', { continue: false }));
    await one.waitForType('done', 'd');
    expect(two.of('b', 'error')).toEqual([]);
  });
});

describe('Cartesia server: voice formats by version', () => {
  const stringVoice = { voice: TEST_VOICE, continue: false };
  const embedding = { voice: { mode: 'embedding', embedding: Array.from({ length: 192 }, () => 0.1) }, continue: false };

  it.each([
    [LEGACY_VERSION, stringVoice, 'error'],
    ['2026-08-14', stringVoice, 'done'],
    ['2026-08-14', { voice: { id: TEST_VOICE }, continue: false }, 'done'],
    [LEGACY_VERSION, embedding, 'done'],
    [STRUCTURED_VERSION, embedding, 'error'],
  ])('version %s with voice %j ends in %s', async (version, extra, outcome) => {
    await start();
    const client = await connect(base(version));
    client.send(generation('voice', 'Voice check.', extra));
    const event = await client.waitFor((e) => e.type === 'done' || e.type === 'error');
    expect(event.type).toBe(outcome);
  });

  it('refuses language and locale together from 2026-08-14', async () => {
    await start();
    const client = await connect(base('2026-08-14'));
    client.send(generation('loc', 'Hi.', { locale: 'en-GB' }));
    expect(await client.waitForType('error', 'loc')).toMatchObject({ error_code: 'invalid_request' });
  });
});
