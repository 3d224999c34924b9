import { afterEach, describe, expect, it } from 'vitest';
import { samplesForText, tagForText } from './audio-tag.js';
import {
  type CartesiaFault,
  type CartesiaFaultContext,
  type CartesiaServer,
  type CartesiaServerOptions,
  startCartesiaServer,
} from './cartesia-server.js';
import { settledWithin } from '../helpers/async.js';
import { LEGACY_VERSION, RawCartesiaClient, STRUCTURED_VERSION, TEST_VOICE, expectedRuns, generation, runsOf } from './cartesia/test-client.js';

let server: CartesiaServer | undefined;
const clients: RawCartesiaClient[] = [];

async function setup(options: Partial<CartesiaServerOptions> = {}, version = STRUCTURED_VERSION) {
  server = await startCartesiaServer(options);
  const client = await RawCartesiaClient.connect(server.url, { version });
  clients.push(client);
  return { server, client };
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A fault for the input at `index` of context `contextId`; records what the server asked about. */
function faultAt(contextId: string, index: number, fault: CartesiaFault, seen: CartesiaFaultContext[] = []) {
  return (ctx: CartesiaFaultContext) => {
    seen.push(ctx);
    return ctx.contextId === contextId && ctx.index === index ? fault : undefined;
  };
}

describe('Cartesia server: faults', () => {
  it('error-event cuts the audio after exactly afterBytes and ends the context; the socket stays usable', async () => {
    const seen: CartesiaFaultContext[] = [];
    const { client } = await setup(
      { fault: faultAt('f', 0, { kind: 'error-event', afterBytes: 1001, statusCode: 503, errorCode: 'overloaded' }, seen) },
      LEGACY_VERSION,
    );
    client.send(generation('f', 'A sentence long enough for several chunks.', { continue: false }));
    const error = await client.waitForType('error', 'f');
    expect(client.audioOf('f').length).toBe(1001);
    expect(error).toEqual({ type: 'error', done: true, error: 'Internal server error: Injected server fault', status_code: 503, context_id: 'f' });
    expect(client.of('f').at(-1)).toBe(error);
    expect(seen[0]).toEqual({ connectionId: 1, contextId: 'f', transcript: 'A sentence long enough for several chunks.', index: 0 });

    client.send(generation('g', 'Hello. '));
    client.send(generation('g', 'Again.', { continue: false }));
    await client.waitForType('done', 'g');
    expect(runsOf(client.audioOf('g'))).toEqual(expectedRuns(['Hello. ', 'Again.'], 24000, 60));
    expect(seen.map((s) => `${s.contextId}${s.index}`)).toEqual(['f0', 'g0', 'g1']);
  });

  it('terminate drops the socket abruptly (1006) at the chosen input', async () => {
    const { server, client } = await setup({ fault: faultAt('t', 1, { kind: 'terminate', afterBytes: 10 }) });
    client.send(generation('t', 'First input. '));
    client.send(generation('t', 'Second input.', { continue: false }));
    expect((await client.closed()).code).toBe(1006);
    const runs = runsOf(client.audioOf('t'));
    expect(runs[0]).toEqual({ tag: tagForText('First input. '), samples: samplesForText('First input. ', 24000, 60) });
    expect(runs[1]).toEqual({ tag: tagForText('Second input.'), samples: 5 });
    await until(() => server.openConnections() === 0 && server.activeContexts() === 0, 'cleanup');
  });

  it('no-done plays all audio and flush_done but never sends done', async () => {
    const { server, client } = await setup({ fault: faultAt('n', 0, { kind: 'no-done' }), contextExpiryMs: 50 });
    client.send(generation('n', 'Never finished.', { continue: false }));
    await client.waitForType('flush_done', 'n');
    // Events of one socket arrive in order: a done for 'n' would precede the next context's done.
    client.send(generation('m', 'Marker.', { continue: false, voice: { mode: 'id', id: TEST_VOICE } }));
    await client.waitForType('done', 'm');
    expect(client.of('n', 'done')).toEqual([]);
    expect(runsOf(client.audioOf('n'))).toEqual(expectedRuns(['Never finished.'], 24000, 60));
    await until(() => server.activeContexts() === 0, 'the silent context to expire');
  });

  it('sendsDone: false never sends done, on any context, and the context still expires', async () => {
    const { server, client } = await setup({ sendsDone: false, contextExpiryMs: 20, earlyDoneIdleMs: 5 });
    client.send(generation('a', 'First. '));
    client.send(generation('b', 'Second.', { continue: false }));
    await until(() => server.expiredContexts.length === 2, 'both contexts to expire');
    expect(client.events.filter((e) => e.type === 'done')).toEqual([]);
    expect(runsOf(client.audioOf('b'))).toEqual(expectedRuns(['Second.'], 24000, 60));
    expect(client.of('b', 'flush_done')).toHaveLength(1);
  });

  it('stall pauses and then resumes with nothing lost', async () => {
    const { client } = await setup({ frameBytes: 1000, fault: faultAt('s', 0, { kind: 'stall', afterBytes: 2000, stallMs: 50 }) });
    client.send(generation('s', 'Stalled but complete.', { continue: false }));
    await client.waitForType('done', 's');
    expect(runsOf(client.audioOf('s'))).toEqual(expectedRuns(['Stalled but complete.'], 24000, 60));
  });

  it('an endless stall is stopped by cancel, and close() leaves nothing running', async () => {
    const { server, client } = await setup({ fault: (ctx) => ({ kind: 'stall', afterBytes: ctx.index }) });
    client.send(generation('s1', 'Stuck forever.', { continue: false }));
    client.send(generation('s2', 'Also stuck.', { continue: false }));
    await until(() => server.activeContexts() === 2, 'two contexts');
    client.send({ context_id: 's1', cancel: true });
    await until(() => server.activeContexts() === 1, 'the cancel');
    expect(client.events).toEqual([]);
    // s2 is still stalled; afterEach's close() must not hang on it.
  });

  it('dropAllConnections terminates every socket (1006)', async () => {
    const { server, client } = await setup();
    const other = await RawCartesiaClient.connect(server.url);
    clients.push(other);
    other.send(generation('open', 'Keep me open. '));
    await other.waitForType('flush_done', 'open');
    server.dropAllConnections();
    expect((await client.closed()).code).toBe(1006);
    expect((await other.closed()).code).toBe(1006);
    await until(() => server.openConnections() === 0 && server.activeContexts() === 0, 'cleanup');
  });
});

describe('Cartesia server: going silent', () => {
  it('goSilent: open sockets answer nothing, pongs included, and stay open; new sockets are served', async () => {
    const { server: srv, client } = await setup();
    client.send(generation('before', 'Before the silence. ', { continue: false }));
    await client.waitForType('done', 'before');
    await client.ping();
    expect(srv.goSilent()).toBe(1);
    const eventsAtSilence = client.events.length;
    client.send(generation('after', 'Never answered. ', { continue: false }));
    const pong = client.ping(1000).then(() => 'pong', () => 'no pong');
    expect(await settledWithin(pong, 300)).toBeUndefined();
    expect(client.events.slice(eventsAtSilence)).toEqual([]);
    expect(srv.openConnections()).toBe(1);
    expect(srv.goSilent()).toBe(0);

    const fresh = await RawCartesiaClient.connect(srv.url);
    clients.push(fresh);
    await fresh.ping();
    fresh.send(generation('later', 'Served again. ', { continue: false }));
    await fresh.waitForType('done', 'later');
    expect(runsOf(fresh.audioOf('later'))).toEqual(expectedRuns(['Served again. '], 24000, 60));
  });
});

describe('Cartesia server: POST /tts/bytes', () => {
  const body = (extra: Record<string, unknown> = {}) => ({
    model_id: 'sonic-3',
    transcript: 'Bytes over HTTP.',
    voice: { mode: 'id', id: TEST_VOICE },
    output_format: { container: 'wav', encoding: 'pcm_s16le', sample_rate: 16000 },
    language: 'en',
    ...extra,
  });
  const headers = { 'Content-Type': 'application/json', 'X-API-Key': 'test-key', 'Cartesia-Version': STRUCTURED_VERSION };

  async function post(payload: unknown, extraHeaders: Record<string, string> = headers, path = '/tts/bytes') {
    const res = await fetch(`${server!.httpUrl}${path}`, {
      method: 'POST',
      headers: extraHeaders,
      body: typeof payload === 'string' ? payload : JSON.stringify(payload),
      signal: AbortSignal.timeout(3000),
    });
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  it('streams a WAV file of the tagged audio', async () => {
    server = await startCartesiaServer({ frameBytes: 333 });
    const { res, bytes } = await post(body());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const samples = samplesForText('Bytes over HTTP.', 16000, 60);
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.readUInt32LE(24)).toBe(16000);
    expect(bytes.readUInt32LE(40)).toBe(samples * 2);
    expect(runsOf(bytes.subarray(44))).toEqual(expectedRuns(['Bytes over HTTP.'], 16000, 60));
    expect(server.httpRequests).toHaveLength(1);
    expect(server.httpRequests[0]!.body).toEqual(body());
    expect(server.httpRequests[0]!.headers['cartesia-version']).toBe(STRUCTURED_VERSION);
    expect(server.activeContexts()).toBe(0);
  });

  it('streams raw pcm_f32le as application/octet-stream', async () => {
    server = await startCartesiaServer();
    const { res, bytes } = await post(body({ output_format: { container: 'raw', encoding: 'pcm_f32le', sample_rate: 8000 } }));
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(bytes.length).toBe(samplesForText('Bytes over HTTP.', 8000, 60) * 4);
    expect(Math.round(bytes.readFloatLE(0) * 32768)).toBe(tagForText('Bytes over HTTP.'));
  });

  it.each([
    ['no key', body(), { 'Cartesia-Version': STRUCTURED_VERSION }, 401, 'unauthorized'],
    ['no version', body(), { 'X-API-Key': 'test-key' }, 400, 'missing_version'],
    ['unknown model', body({ model_id: 'nope' }), headers, 400, 'model_not_found'],
    ['sunsetted model', body({ model_id: 'sonic' }), headers, 400, 'model_sunsetted'],
    ['empty transcript', body({ transcript: ' ' }), headers, 400, 'transcript_empty'],
    ['mp3 container', body({ output_format: { container: 'mp3', encoding: 'pcm_s16le', sample_rate: 16000 } }), headers, 400, 'unsupported_output_format'],
    ['invalid JSON', '{oops', headers, 400, 'invalid_request'],
  ])('answers %s with an HTTP error and JSON body', async (_name, payload, requestHeaders, status, errorCode) => {
    server = await startCartesiaServer();
    const { res, bytes } = await post(payload, requestHeaders);
    expect(res.status).toBe(status);
    const json = JSON.parse(bytes.toString()) as Record<string, unknown>;
    expect(json).toEqual({ error_code: errorCode, title: expect.any(String), message: expect.any(String), request_id: res.headers.get('x-request-id') });
  });

  it('counts toward concurrency and reports injected faults as HTTP errors before the first byte', async () => {
    server = await startCartesiaServer({ concurrencyLimit: 1 });
    const client = await RawCartesiaClient.connect(server.url);
    clients.push(client);
    client.send(generation('busy', 'Holding the only slot. '));
    await client.waitForType('flush_done', 'busy');
    expect((await post(body())).res.status).toBe(429);
    client.send({ context_id: 'busy', cancel: true });
    await until(() => server!.activeContexts() === 0, 'the slot');
    server.setOptions({ fault: () => ({ kind: 'error-event', statusCode: 502 }) });
    const { res, bytes } = await post(body());
    expect(res.status).toBe(502);
    expect(JSON.parse(bytes.toString())).toMatchObject({ error_code: 'internal_server_error' });
  });
});
