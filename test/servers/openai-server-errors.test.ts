/** HTTP errors in OpenAI's shape: auth, malformed bodies, unknown routes, bad uploads. */
import { afterEach, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { type OpenAIServer, startOpenAIServer } from './openai-server.js';
import { getJson, postChat } from './openai/test-http.js';

let server: OpenAIServer | undefined;
afterEach(async () => {
  await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
  server = undefined;
});

const USER = [{ role: 'user', content: 'hi' }];

async function errorOf(res: Response): Promise<{ status: number; error: Record<string, unknown> }> {
  const body = (await withTimeout(res.json(), 3000, 'error body')) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
  return { status: res.status, error: body.error };
}

describe('OpenAI server: auth', () => {
  it('refuses a wrong key with 401 invalid_api_key, masking the key', async () => {
    server = await startOpenAIServer();
    const { status, error } = await errorOf(await postChat(server.url, { model: 'm', messages: USER }, { key: 'sk-secret-123456' }));
    expect(status).toBe(401);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key', param: null });
    expect(error.message).toContain('sk************56');
    expect(error.message).not.toContain('secret');
  });

  it('refuses a missing key with 401 and accepts any configured key', async () => {
    server = await startOpenAIServer({ apiKeys: ['a-key', 'b-key'], firstTokenDelayMs: 0, tokensPerSecond: 1000 });
    expect((await errorOf(await postChat(server.url, { model: 'm', messages: USER }, { key: null }))).status).toBe(401);
    const ok = await postChat(server.url, { model: 'm', messages: USER }, { key: 'b-key' });
    expect(ok.status).toBe(200);
    await ok.body?.cancel();
  });
});

describe('OpenAI server: malformed chat requests', () => {
  const cases: [string, { body?: unknown; raw?: string }, Record<string, unknown>][] = [
    ['invalid JSON', { raw: '{"model": "m",' }, { code: null, message: expect.stringContaining('could not parse the JSON body') }],
    ['a JSON array', { body: [1] }, { code: 'invalid_type' }],
    ['no model', { body: { messages: USER } }, { message: 'you must provide a model parameter' }],
    ['no messages', { body: { model: 'm' } }, { code: 'missing_required_parameter', param: 'messages' }],
    ['messages not an array', { body: { model: 'm', messages: 'hi' } }, { code: 'invalid_type', param: 'messages' }],
    ['empty messages', { body: { model: 'm', messages: [] } }, { code: 'invalid_value', param: 'messages' }],
    ['an unknown role', { body: { model: 'm', messages: [{ role: 'robot', content: 'x' }] } }, { code: 'invalid_value', param: 'messages[0].role' }],
    ['an unknown parameter', { body: { model: 'm', messages: USER, bogus: 1 } }, { message: 'Unrecognized request argument supplied: bogus' }],
    ['stream_options without stream', { body: { model: 'm', messages: USER, stream_options: { include_usage: true } } }, { param: 'stream_options' }],
    ['n = 2', { body: { model: 'm', messages: USER, n: 2 } }, { param: 'n' }],
  ];
  for (const [name, request, expected] of cases) {
    it(`answers ${name} with 400`, async () => {
      server = await startOpenAIServer();
      const { status, error } = await errorOf(await postChat(server.url, request.body, { raw: request.raw }));
      expect(status).toBe(400);
      expect(error).toMatchObject({ type: 'invalid_request_error', ...expected });
      expect(server.chatRequests).toHaveLength(0);
    });
  }
});

describe('OpenAI server: routes', () => {
  it('lists models for the plugin prewarm and 404s unknown routes', async () => {
    server = await startOpenAIServer();
    const auth = { headers: { authorization: 'Bearer test-key' } };
    const models = await getJson(`${server.url}/models`, auth);
    expect(models.status).toBe(200);
    expect(models.body).toMatchObject({ object: 'list', data: expect.arrayContaining([expect.objectContaining({ id: 'gpt-4.1-mini', object: 'model' })]) });
    const missing = await getJson(`${server.url}/embeddings`, { ...auth, method: 'POST' });
    expect(missing).toEqual({ status: 404, body: { error: { message: 'Invalid URL (POST /v1/embeddings)', type: 'invalid_request_error', param: null, code: null } } });
    expect((await getJson(`${server.url}/chat/completions`, auth)).status).toBe(404);
  });
});

describe('OpenAI server: malformed transcription uploads', () => {
  const wav = (): Blob => {
    const header = Buffer.alloc(44);
    header.write('RIFF', 0);
    header.writeUInt32LE(36 + 4800, 4);
    header.write('WAVEfmt ', 8);
    header.writeUInt32LE(16, 16);
    header.writeUInt16LE(1, 20);
    header.writeUInt16LE(1, 22);
    header.writeUInt32LE(24000, 24);
    header.writeUInt32LE(48000, 28);
    header.writeUInt16LE(2, 32);
    header.writeUInt16LE(16, 34);
    header.write('data', 36);
    header.writeUInt32LE(4800, 40);
    return new Blob([new Uint8Array(Buffer.concat([header, Buffer.alloc(4800)]))], { type: 'audio/wav' });
  };
  const upload = async (fields: Record<string, string | Blob>): Promise<Response> => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, value, 'audio.wav');
    }
    return withTimeout(fetch(`${server!.url}/audio/transcriptions`, { method: 'POST', headers: { authorization: 'Bearer test-key' }, body: form }), 5000, 'upload');
  };

  it('needs a file, a model, a WAV, and a format the model has', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 0 });
    expect((await errorOf(await upload({ model: 'gpt-4o-transcribe' }))).error).toMatchObject({ param: 'file', code: 'missing_required_parameter' });
    expect((await errorOf(await upload({ file: wav() }))).error).toMatchObject({ message: 'you must provide a model parameter' });
    const notWav = new Blob([new Uint8Array([1, 2, 3, 4])]);
    expect((await errorOf(await upload({ file: notWav, model: 'gpt-4o-transcribe' }))).error).toMatchObject({ param: 'file', code: 'invalid_value' });
    expect((await errorOf(await upload({ file: wav(), model: 'gpt-4o-transcribe', response_format: 'srt' }))).error).toMatchObject({ param: 'response_format' });
    expect(server.transcriptionRequests).toHaveLength(0);
  });

  it('answers json, text and (whisper) verbose_json', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 0 });
    server.queueTranscripts(['one', 'two', 'three']);
    const body = (res: Response, kind: 'json' | 'text'): Promise<unknown> => withTimeout(res[kind](), 3000, 'upload answer');
    expect(await body(await upload({ file: wav(), model: 'gpt-4o-transcribe' }), 'json')).toMatchObject({ text: 'one', usage: { type: 'tokens' } });
    expect(await body(await upload({ file: wav(), model: 'gpt-4o-transcribe', response_format: 'text' }), 'text')).toBe('two\n');
    expect(await body(await upload({ file: wav(), model: 'whisper-1', response_format: 'verbose_json', language: 'en' }), 'json')).toMatchObject({
      task: 'transcribe',
      language: 'english',
      duration: 0.1,
      text: 'three',
    });
    expect(server.utterances.map((u) => [u.source, u.durationMs, u.rms])).toEqual([['http', 100, 0], ['http', 100, 0], ['http', 100, 0]]);
  });

  it('refuses a body that is not multipart', async () => {
    server = await startOpenAIServer();
    const init = { method: 'POST', headers: { authorization: 'Bearer test-key', 'content-type': 'application/json' }, body: '{}' };
    const res = await withTimeout(fetch(`${server.url}/audio/transcriptions`, init), 5000, 'answer');
    expect((await errorOf(res)).status).toBe(400);
  });
});
