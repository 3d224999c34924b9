/** The realtime transcription socket at the wire level: events, VAD timing, errors, auth. */
import { afterEach, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { type OpenAIServer, type OpenAIServerOptions, startOpenAIServer } from './openai-server.js';
import { RawRealtimeClient, silence, tone } from './openai/raw-realtime-client.js';

let server: OpenAIServer | undefined;
const clients: RawRealtimeClient[] = [];

async function setup(options: Partial<OpenAIServerOptions> = {}): Promise<{ server: OpenAIServer; client: RawRealtimeClient }> {
  server = await startOpenAIServer({ transcriptionDelayMs: 20, ...options });
  const client = await RawRealtimeClient.connect(server.url);
  clients.push(client);
  return { server, client };
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
  server = undefined;
});

const session = (input: Record<string, unknown>) => ({
  type: 'session.update',
  session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model: 'gpt-4o-transcribe' }, ...input } } },
});

describe('OpenAI server: realtime session', () => {
  it('announces the session, echoes updates as session.updated', async () => {
    const { client } = await setup();
    const created = await client.waitFor('session.created');
    expect(created.session).toMatchObject({ type: 'transcription', id: expect.stringMatching(/^sess_/), audio: { input: { transcription: null } } });
    client.send(session({ turn_detection: { type: 'server_vad', silence_duration_ms: 350 } }));
    const updated = await client.waitFor('session.updated');
    expect(updated.session).toMatchObject({
      audio: {
        input: {
          transcription: { model: 'gpt-4o-transcribe' },
          turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 350 },
        },
      },
    });
    expect(updated.event_id).toMatch(/^event_/);
  });

  it('server_vad: speech_started/stopped with audio times, committed, deltas, completed', async () => {
    const { server, client } = await setup();
    server.queueTranscripts(['Two people at seven.']);
    client.send(session({ turn_detection: { type: 'server_vad', prefix_padding_ms: 100, silence_duration_ms: 300 } }));
    client.append(silence(500));
    client.append(tone(800));
    client.append(silence(600));

    const started = await client.waitFor('input_audio_buffer.speech_started');
    const stopped = await client.waitFor('input_audio_buffer.speech_stopped');
    const committed = await client.waitFor('input_audio_buffer.committed');
    const completed = await client.waitFor('conversation.item.input_audio_transcription.completed');
    expect(started.audio_start_ms).toBe(400); // tone at 500 ms, minus 100 ms prefix padding
    expect(stopped.audio_end_ms).toBe(1600); // tone ends at 1300 ms, plus 300 ms silence
    expect(stopped.item_id).toBe(started.item_id);
    expect(committed).toMatchObject({ item_id: started.item_id, previous_item_id: null });
    expect(completed).toMatchObject({ item_id: started.item_id, content_index: 0, transcript: 'Two people at seven.', usage: { type: 'tokens' } });
    const deltas = client.of('conversation.item.input_audio_transcription.delta');
    expect(deltas.map((d) => d.delta).join('')).toBe('Two people at seven.');
    expect(deltas).toHaveLength(2);
    // Deltas before completed, in order.
    const order = client.events.map((e) => e.type).filter((t) => t.startsWith('conversation.item'));
    expect(order.at(-1)).toBe('conversation.item.input_audio_transcription.completed');

    expect(server.utterances[0]).toMatchObject({ source: 'server-vad', itemId: started.item_id, durationMs: 1200 });
    expect(server.utterances[0]!.rms).toBeGreaterThan(0.15);
  });

  it('turn_detection null: nothing until commit; commit of the whole buffer; clear empties it', async () => {
    const { server, client } = await setup();
    client.send(session({ turn_detection: null }));
    await client.waitFor('session.updated');
    client.append(tone(300));
    client.append(silence(700));
    client.send({ type: 'input_audio_buffer.clear' });
    await client.waitFor('input_audio_buffer.cleared');
    client.append(tone(250));
    client.send({ type: 'input_audio_buffer.commit' });
    const committed = await client.waitFor('input_audio_buffer.committed');
    const completed = await client.waitFor('conversation.item.input_audio_transcription.completed');
    expect(completed.item_id).toBe(committed.item_id);
    expect(completed.transcript).toBe('Hello.');
    expect(client.of('input_audio_buffer.speech_started')).toHaveLength(0);
    expect(server.utterances.map((u) => [u.source, u.durationMs])).toEqual([['commit', 250]]);
  });

  it('a commit under minCommitMs is an error event, and the socket stays usable', async () => {
    const { client } = await setup();
    client.send(session({ turn_detection: null }));
    client.append(tone(50));
    client.send({ type: 'input_audio_buffer.commit', event_id: 'client-1' });
    const error = await client.waitFor('error');
    expect(error.error).toEqual({
      type: 'invalid_request_error',
      code: 'input_audio_buffer_commit_empty',
      message: expect.stringContaining('buffer only has 50.00ms of audio'),
      param: null,
      event_id: 'client-1',
    });
    client.append(tone(100));
    client.send({ type: 'input_audio_buffer.commit' });
    await client.waitFor('conversation.item.input_audio_transcription.completed');
  });

  it('does not transcribe before a session.update configures transcription', async () => {
    const { server, client } = await setup();
    server.queueTranscripts(['kept']);
    client.append(tone(300));
    client.append(silence(700)); // server_vad is on by default
    await client.waitFor('input_audio_buffer.committed');
    await new Promise((r) => setTimeout(r, 60));
    expect(client.of('conversation.item.input_audio_transcription.completed')).toHaveLength(0);
    expect(server.stats().transcriptsQueued).toBe(1);
  });
});

describe('OpenAI server: realtime errors', () => {
  const cases: [string, Record<string, unknown> | string, Record<string, unknown>][] = [
    ['bad JSON', '{nope', { code: 'invalid_json' }],
    ['unknown type', { type: 'input_audio_buffer.flush' }, { code: 'invalid_value', param: 'type' }],
    ['conversation-only event', { type: 'response.create' }, { code: 'invalid_value', param: 'type' }],
    ['missing type', { audio: '' }, { code: 'missing_required_parameter', param: 'type' }],
    ['unknown field', { type: 'input_audio_buffer.commit', extra: 1 }, { code: 'unknown_parameter', param: 'extra' }],
    ['bad base64', { type: 'input_audio_buffer.append', audio: 'not base64!' }, { code: 'invalid_value', param: 'audio' }],
    ['16 kHz format', session({ format: { type: 'audio/pcm', rate: 16000 } }), { code: 'invalid_value', param: 'session.audio.input.format.rate' }],
    ['realtime session type', { type: 'session.update', session: { type: 'realtime' } }, { code: 'invalid_value', param: 'session.type' }],
    ['missing audio', { type: 'input_audio_buffer.append', event_id: 'e7' }, { code: 'missing_required_parameter', param: 'audio', event_id: 'e7' }],
  ];
  for (const [name, event, expected] of cases) {
    it(`answers ${name} with an error event and keeps the socket`, async () => {
      const { server, client } = await setup();
      client.send(event);
      const error = await client.waitFor('error');
      expect(error.error).toMatchObject({ type: 'invalid_request_error', ...expected });
      client.send({ type: 'input_audio_buffer.clear' });
      await client.waitFor('input_audio_buffer.cleared');
      expect(server.realtimeSessions[0]!.errors).toBe(1);
    });
  }
});

describe('OpenAI server: realtime upgrade', () => {
  it('refuses a wrong key with 401 and the OpenAI error body', async () => {
    server = await startOpenAIServer();
    const refused = await RawRealtimeClient.refused(server.url, { key: 'wrong' });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    expect(server.stats().realtime.opened).toBe(0);
  });

  it("realtimeAuthFailure 'error-event': accepts, sends the error, closes 1008", async () => {
    server = await startOpenAIServer({ realtimeAuthFailure: 'error-event' });
    const client = await RawRealtimeClient.connect(server.url, { key: 'wrong' });
    clients.push(client);
    expect((await client.waitFor('error')).error).toMatchObject({ code: 'invalid_api_key' });
    expect(await client.waitForClose()).toBe(1008);
  });

  it('refuses other paths (404) and sessions that are not transcription (400)', async () => {
    server = await startOpenAIServer();
    expect((await RawRealtimeClient.refused(server.url, { path: '/stream' })).status).toBe(404);
    expect((await RawRealtimeClient.refused(server.url, { query: 'model=gpt-realtime' })).status).toBe(400);
  });

  it('close() terminates open sockets and cancels pending transcriptions', async () => {
    const { server, client } = await setup({ transcriptionDelayMs: 10_000 });
    client.send(session({ turn_detection: null }));
    client.append(tone(200));
    client.send({ type: 'input_audio_buffer.commit' });
    await client.waitFor('input_audio_buffer.committed');
    expect(server.openRealtimeConnections()).toBe(1);
    await server.close();
    expect(await client.waitForClose()).toBe(1006);
    expect(server.openRealtimeConnections()).toBe(0);
    expect(server.realtimeSessions[0]!.closedAt).toBeDefined();
  });
});
