/** Chat completions: the real `openai.LLM` (plugin 1.9.0 → openai 6.49) and the raw SSE wire. */
import { type APIConnectOptions, initializeLogger, llm } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { DEFAULT_REPLIES, type OpenAIServer, type OpenAIServerOptions, startOpenAIServer } from './openai-server.js';
import { postChat, readSse } from './openai/test-http.js';

initializeLogger({ pretty: false, level: 'warn' });

let server: OpenAIServer | undefined;
afterEach(async () => {
  await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
  server = undefined;
});

const FAST: Partial<OpenAIServerOptions> = { firstTokenDelayMs: 0, tokensPerSecond: 2000 };
const NO_RETRY: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 0, timeoutMs: 5000 };

function client(key = 'test-key'): openai.LLM {
  return new openai.LLM({ apiKey: key, baseURL: server!.url, model: 'gpt-4.1-mini' });
}

function context(user: string): llm.ChatContext {
  const ctx = llm.ChatContext.empty();
  ctx.addMessage({ role: 'system', content: 'You are a helpful voice assistant.' });
  ctx.addMessage({ role: 'user', content: user });
  return ctx;
}

interface Streamed {
  text: string;
  /** Non-empty content deltas with their arrival, ms after chat() was called. */
  deltas: { text: string; atMs: number }[];
  usage?: llm.CompletionUsage;
  errors: Error[];
}

async function ask(model: openai.LLM, user: string, { stopAfter }: { stopAfter?: number } = {}): Promise<Streamed> {
  const errors: Error[] = [];
  model.on('error', (event: { error: Error }) => errors.push(event.error));
  const started = performance.now();
  const stream = model.chat({ chatCtx: context(user), connOptions: NO_RETRY });
  const result: Streamed = { text: '', deltas: [], errors };
  const consume = async (): Promise<void> => {
    for await (const chunk of stream) {
      if (chunk.usage) result.usage = chunk.usage;
      const content = chunk.delta?.content;
      if (!content) continue;
      result.text += content;
      result.deltas.push({ text: content, atMs: performance.now() - started });
      if (stopAfter !== undefined && result.deltas.length >= stopAfter) {
        stream.close();
        return;
      }
    }
  };
  await withTimeout(consume(), 10_000, `reply to "${user}"`);
  return result;
}

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('OpenAI server: chat through openai.LLM', () => {
  it('streams the English default reply, with usage, and records the request', async () => {
    server = await startOpenAIServer(FAST);
    const reply = await ask(client(), 'Can you book a table for two tonight?');
    expect(reply.errors).toEqual([]);
    expect(reply.text).toBe(DEFAULT_REPLIES.en);
    expect(reply.deltas.length).toBeGreaterThan(10);
    expect(reply.usage).toMatchObject({ completionTokens: reply.deltas.length, promptTokens: expect.any(Number) });
    const [request] = server.chatRequests;
    expect(request).toMatchObject({ model: 'gpt-4.1-mini', stream: true, lastUserText: 'Can you book a table for two tonight?', scriptIndex: -1, aborted: false });
    expect(request!.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });

  it('answers in Korean when the user wrote Hangul', async () => {
    server = await startOpenAIServer(FAST);
    expect((await ask(client(), '오늘 저녁 두 명 예약돼요?')).text).toBe(DEFAULT_REPLIES.ko);
  });

  it('picks the first matching script entry (substring case-insensitively, or RegExp)', async () => {
    server = await startOpenAIServer({
      ...FAST,
      script: [
        { match: /\bweather\b/i, reply: 'It is sunny.' },
        { match: 'TABLE', reply: 'Booked for two.' },
        { match: 'table for two', reply: 'never: the entry above wins' },
        { match: /예약/, reply: { tokens: [{ text: '네,', atMs: 0 }, { text: ' 예약했어요.', atMs: 5 }] } },
      ],
    });
    expect((await ask(client(), 'A table for two, please')).text).toBe('Booked for two.');
    expect((await ask(client(), "What's the weather?")).text).toBe('It is sunny.');
    expect((await ask(client(), '예약해 주세요')).text).toBe('네, 예약했어요.');
    expect((await ask(client(), 'Something else')).text).toBe(DEFAULT_REPLIES.en);
    expect(server.chatRequests.map((r) => r.scriptIndex)).toEqual([1, 0, 3, -1]);
  });

  it('replays a trace in order and never before each token is due', async () => {
    const tokens = [
      { text: 'First', atMs: 120 },
      { text: ' clause,', atMs: 160 },
      { text: ' then', atMs: 300 },
      { text: ' the', atMs: 300 },
      { text: ' rest.', atMs: 420 },
    ];
    server = await startOpenAIServer({ script: [{ match: '', reply: { tokens } }] });
    const reply = await ask(client(), 'anything');
    expect(reply.text).toBe('First clause, then the rest.');
    // Same-time tokens may arrive as one read; each delta is a whole token, in order.
    expect(reply.deltas.map((d) => d.text)).toEqual(tokens.map((t) => t.text));
    for (const [i, delta] of reply.deltas.entries()) {
      expect(delta.atMs).toBeGreaterThanOrEqual(tokens[i]!.atMs);
      if (i > 0) expect(delta.atMs).toBeGreaterThanOrEqual(reply.deltas[i - 1]!.atMs);
    }
  });

  it('paces a plain reply by firstTokenDelayMs and tokensPerSecond', async () => {
    server = await startOpenAIServer({ firstTokenDelayMs: 150, tokensPerSecond: 100, script: [{ match: '', reply: 'One two three four five.' }] });
    const reply = await ask(client(), 'count');
    expect(reply.deltas.map((d) => d.text)).toEqual(['One', ' two', ' three', ' four', ' five', '.']);
    reply.deltas.forEach((d, i) => expect(d.atMs).toBeGreaterThanOrEqual(150 + i * 10));
  });

  it('reports a wrong key as a 401 APIStatusError', async () => {
    server = await startOpenAIServer(FAST);
    const reply = await ask(client('sk-wrong-key'), 'hello');
    expect(reply.text).toBe('');
    expect(reply.errors[0]).toMatchObject({ statusCode: 401, retryable: false });
    expect(server.chatRequests).toHaveLength(0);
  });

  it('stops generating when the client closes the stream mid-reply', async () => {
    const tokens = Array.from({ length: 50 }, (_, i) => ({ text: ` w${i}`, atMs: i * 100 }));
    server = await startOpenAIServer({ script: [{ match: '', reply: { tokens } }] });
    const reply = await ask(client(), 'go', { stopAfter: 2 });
    expect(reply.deltas).toHaveLength(2);
    await until(() => server!.chatRequests[0]?.aborted === true, 'the server to see the client go');
    expect(server.activeReplies()).toBe(0);
    expect(server.stats()).toMatchObject({ chatStreamsOpen: 0, chatAborted: 1 });
  });
});

describe('OpenAI server: chat wire format', () => {
  it('sends role chunk, content chunks, stop, usage chunk, [DONE]', async () => {
    server = await startOpenAIServer({ ...FAST, script: [{ match: '', reply: 'Hi there.' }] });
    const res = await postChat(server.url, { model: 'gpt-4.1-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const events = await readSse(res);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Record<string, any>);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-/);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'gpt-4.1-mini')).toBe(true);
    expect(chunks[0]!.choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null });
    const content = chunks.slice(1, -2);
    expect(content.map((c) => c.choices[0].delta.content)).toEqual(['Hi', ' there', '.']);
    expect(content.every((c) => c.usage === null && typeof c.obfuscation === 'string')).toBe(true);
    expect(chunks.at(-2)!.choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 3, total_tokens: expect.any(Number) } });
  });

  it('omits usage without include_usage, and obfuscation when include_obfuscation is false', async () => {
    server = await startOpenAIServer({ ...FAST, script: [{ match: '', reply: 'Hi.' }] });
    const res = await postChat(server.url, { model: 'm', stream: true, stream_options: { include_obfuscation: false }, messages: [{ role: 'user', content: 'hi' }] });
    const chunks = (await readSse(res)).slice(0, -1).map((e) => JSON.parse(e) as Record<string, unknown>);
    expect(chunks).toHaveLength(4); // role, 'Hi', '.', stop
    expect(chunks.some((c) => 'usage' in c || 'obfuscation' in c)).toBe(false);
  });

  it('answers a non-streamed request with one chat.completion, once the reply is generated', async () => {
    server = await startOpenAIServer({ script: [{ match: '', reply: { tokens: [{ text: 'Done', atMs: 50 }, { text: '.', atMs: 200 }] } }] });
    const started = performance.now();
    const res = await postChat(server.url, { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] });
    const body = (await withTimeout(res.json(), 3000, 'completion body')) as Record<string, any>;
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(body).toMatchObject({ object: 'chat.completion', model: 'gpt-4.1-mini', usage: { completion_tokens: 2 } });
    expect(body.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: 'Done.' }, finish_reason: 'stop' });
  });

  it('stops the timers when a raw client aborts mid-stream', async () => {
    const tokens = Array.from({ length: 40 }, (_, i) => ({ text: ` t${i}`, atMs: i * 50 }));
    server = await startOpenAIServer({ script: [{ match: '', reply: { tokens } }] });
    const abort = new AbortController();
    const res = await postChat(server.url, { model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }, { signal: abort.signal });
    const reader = res.body!.getReader();
    await withTimeout(reader.read(), 3000, 'first bytes');
    expect(server.activeReplies()).toBe(1);
    abort.abort();
    await until(() => server!.activeReplies() === 0, 'the reply to be cancelled');
    expect(server.chatRequests[0]!.aborted).toBe(true);
  });
});
