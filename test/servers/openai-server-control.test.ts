/** `/_control/*` and the CLI entry: the server driven from another process. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { collectExit, spawnTsx } from '../lifecycle/spawn-tsx.js';
import { type OpenAIServer, startOpenAIServer } from './openai-server.js';
import { RawRealtimeClient, silence, tone } from './openai/raw-realtime-client.js';
import { getJson, postChat, postJson, readSse } from './openai/test-http.js';

let server: OpenAIServer | undefined;
afterEach(async () => {
  await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
  server = undefined;
});

const origin = (s: { port: number }): string => `http://127.0.0.1:${s.port}`;

async function replyText(baseUrl: string, user: string): Promise<string> {
  const res = await postChat(baseUrl, { model: 'm', stream: true, messages: [{ role: 'user', content: user }] });
  const events = await readSse(res);
  return events
    .slice(0, -1)
    .map((e) => (JSON.parse(e) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '')
    .join('');
}

describe('OpenAI server: control endpoints', () => {
  it('replaces the script (RegExp as {regex, flags}, traces included)', async () => {
    server = await startOpenAIServer({ firstTokenDelayMs: 0, tokensPerSecond: 1000 });
    const set = await postJson(`${origin(server)}/_control/script`, {
      script: [
        { match: { regex: '^book', flags: 'i' }, reply: 'Booked.' },
        { match: 'menu', reply: { tokens: [{ text: 'Pasta', atMs: 0 }, { text: '.', atMs: 10 }] } },
      ],
    });
    expect(set).toEqual({ status: 200, body: { ok: true, entries: 2 } });
    expect(await replyText(server.url, 'BOOK a table')).toBe('Booked.');
    expect(await replyText(server.url, "What's on the menu?")).toBe('Pasta.');
    expect(server.options().script[0]!.match).toEqual(/^book/i);
  });

  it('refuses a bad script or bad options with 400 and keeps the old ones', async () => {
    server = await startOpenAIServer({ script: [{ match: 'x', reply: 'kept' }] });
    const badRegex = await postJson(`${origin(server)}/_control/script`, [{ match: { regex: '(' }, reply: 'r' }]);
    expect(badRegex.status).toBe(400);
    const backwards = await postJson(`${origin(server)}/_control/script`, [{ match: 'a', reply: { tokens: [{ text: 'a', atMs: 5 }, { text: 'b', atMs: 1 }] } }]);
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.message).toContain('goes back in time');
    expect((await postJson(`${origin(server)}/_control/options`, { tokensPerSecond: 0 })).status).toBe(400);
    expect((await postJson(`${origin(server)}/_control/options`, { apiKeys: ['x'] })).status).toBe(400);
    expect(server.options().script).toHaveLength(1);
    expect(server.options().tokensPerSecond).toBe(40);
  });

  it('sets timing options, queues transcripts, and reports stats', async () => {
    server = await startOpenAIServer();
    const options = await postJson(`${origin(server)}/_control/options`, { firstTokenDelayMs: 0, tokensPerSecond: 500, transcriptionDelayMs: 5 });
    expect(options).toEqual({ status: 200, body: { ok: true } });
    expect(server.options()).toMatchObject({ firstTokenDelayMs: 0, tokensPerSecond: 500, transcriptionDelayMs: 5 });
    expect((await postJson(`${origin(server)}/_control/transcripts`, { transcripts: ['from control'] })).body).toEqual({ ok: true, queued: 1 });
    expect((await postJson(`${origin(server)}/_control/transcripts`, ['second'])).body).toEqual({ ok: true, queued: 1 });

    await replyText(server.url, 'hello');
    const client = await RawRealtimeClient.connect(server.url);
    try {
      client.send({ type: 'session.update', session: { type: 'transcription', audio: { input: { transcription: { model: 'gpt-4o-transcribe' } } } } });
      client.append(tone(400));
      client.append(silence(700));
      const completed = await client.waitFor('conversation.item.input_audio_transcription.completed');
      expect(completed.transcript).toBe('from control');
      const stats = await getJson(`${origin(server)}/_control/stats`);
      expect(stats.status).toBe(200);
      expect(stats.body).toMatchObject({
        chatRequests: 1,
        chatStreamsOpen: 0,
        chatAborted: 0,
        realtime: { opened: 1, open: 1 },
        transcriptionRequests: 0,
        transcriptsQueued: 1,
      });
      expect(stats.body.utterances).toHaveLength(1);
      expect(stats.body.utterances[0]).toMatchObject({ source: 'server-vad', transcript: 'from control' });
      expect(stats.body.utterances[0].durationMs).toBeGreaterThan(400);
      expect(stats.body.utterances[0].rms).toBeGreaterThan(0.1);
    } finally {
      client.close();
    }
  });

  it('answers unknown control routes with 404 and bad JSON with 400', async () => {
    server = await startOpenAIServer();
    expect((await getJson(`${origin(server)}/_control/nope`)).status).toBe(404);
    const res = await withTimeout(fetch(`${origin(server)}/_control/options`, { method: 'POST', body: '{' }), 5000, 'answer');
    expect(res.status).toBe(400);
  });
});

describe('OpenAI server: CLI entry', () => {
  it('prints one JSON line when ready, serves, and exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openai-main-'));
    const scriptFile = join(dir, 'script.json');
    writeFileSync(scriptFile, JSON.stringify([{ match: { regex: 'ping', flags: 'i' }, reply: 'Pong.' }]));
    const child = spawnTsx('test/servers/openai-main.ts', ['--port', '0', '--first-token-ms', '0', '--tokens-per-second', '1000', '--script', scriptFile]);
    const exit = collectExit(child, 20_000);
    try {
      const line = await withTimeout(
        new Promise<string>((resolve) => {
          let out = '';
          child.stdout!.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('\n')) resolve(out);
          });
        }),
        15_000,
        'the ready line',
      );
      expect(line.endsWith('\n')).toBe(true);
      const ready = JSON.parse(line.trim()) as { url: string; port: number };
      expect(ready).toEqual({ url: `http://127.0.0.1:${ready.port}/v1`, port: ready.port });
      expect(await replyText(ready.url, 'PING?')).toBe('Pong.');
      const stats = await getJson(`http://127.0.0.1:${ready.port}/_control/stats`);
      expect(stats.body).toMatchObject({ chatRequests: 1, realtime: { opened: 0, open: 0 } });
    } finally {
      child.kill('SIGTERM');
    }
    const result = await exit;
    expect(result).toMatchObject({ code: 0, signal: null });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('exits 2 with a message on a bad argument', async () => {
    const result = await collectExit(spawnTsx('test/servers/openai-main.ts', ['--tokens-per-second', 'fast']), 15_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--tokens-per-second');
    expect(result.stdout).toBe('');
  });
});
