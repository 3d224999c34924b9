/**
 * The live transcription models at the wire level: words while the speech arrives (each
 * `deltaLagMs` after its share of the audio), `completed` `finalAfterCommitMs` after the client's
 * commit, and server-side turn detection refused as the service refuses it. Only lower bounds on
 * time: a loaded machine may be late, never early.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { type OpenAIServer, type OpenAIServerOptions, startOpenAIServer } from './openai-server.js';
import { RawRealtimeClient, type ServerEvent, silence, tone } from './openai/raw-realtime-client.js';
import { wordsOf } from './openai/speech-words.js';

let server: OpenAIServer | undefined;
const clients: RawRealtimeClient[] = [];

async function setup(options: Partial<OpenAIServerOptions> = {}): Promise<{ server: OpenAIServer; client: RawRealtimeClient; arrivals: Map<ServerEvent, number> }> {
  server = await startOpenAIServer(options);
  const client = await RawRealtimeClient.connect(server.url, { query: 'intent=transcription&model=gpt-realtime-whisper' });
  clients.push(client);
  // When each event reached the client, to compare with when the audio was sent.
  const arrivals = new Map<ServerEvent, number>();
  client.ws.on('message', () => arrivals.set(client.events.at(-1)!, Date.now()));
  return { server, client, arrivals };
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
  server = undefined;
});

const liveSession = (model: string, extra: Record<string, unknown> = {}) => ({
  type: 'session.update',
  session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: 24000 }, transcription: { model }, ...extra } } },
});

const DELTA = 'conversation.item.input_audio_transcription.delta';
const COMPLETED = 'conversation.item.input_audio_transcription.completed';

describe('OpenAI server: live transcription models', () => {
  it('sends each word once its share of the speech arrived, plus deltaLagMs; completed after the commit', async () => {
    const { server, client, arrivals } = await setup({ deltaLagMs: 150, finalAfterCommitMs: 120 });
    server.queueTranscripts([{ text: 'I need a table', voicedMs: 800 }]);
    client.send(liveSession('gpt-realtime-whisper'));
    await client.waitFor('session.updated');

    // 400 of the 800 ms: "I" ends at 1/14 of the characters, "need" at 6/14 (343 ms), "a" at 8/14 (457 ms).
    client.append(silence(100));
    const firstSent = Date.now();
    client.append(tone(400));
    const need = await client.waitFor(DELTA, 2);
    expect(client.of(DELTA).map((e) => e.delta)).toEqual(['I', ' need']);
    expect(arrivals.get(need)! - firstSent).toBeGreaterThanOrEqual(150 - 2);

    // The rest of the speech: "a" and "table" follow, still before any commit.
    const restSent = Date.now();
    client.append(tone(400));
    const table = await client.waitFor(DELTA, 4);
    expect(client.of(DELTA).map((e) => e.delta)).toEqual(['I', ' need', ' a', ' table']);
    expect(arrivals.get(table)! - restSent).toBeGreaterThanOrEqual(150 - 2);
    expect(client.of('input_audio_buffer.committed')).toHaveLength(0);
    expect(client.of(COMPLETED)).toHaveLength(0);

    client.append(silence(200));
    const commitSent = Date.now();
    client.send({ type: 'input_audio_buffer.commit' });
    const committed = await client.waitFor('input_audio_buffer.committed');
    const completed = await client.waitFor(COMPLETED);
    expect(arrivals.get(completed)! - commitSent).toBeGreaterThanOrEqual(120 - 2);
    expect(completed).toMatchObject({ item_id: committed.item_id, transcript: 'I need a table' });
    for (const delta of client.of(DELTA)) expect(delta.item_id).toBe(committed.item_id);
    expect(server.utterances[0]).toMatchObject({ source: 'commit', transcript: 'I need a table' });
  });

  it('with a lag longer than the silence, the last word lands after the commit, and completed never before it', async () => {
    const { server, client } = await setup({ deltaLagMs: 400, finalAfterCommitMs: 0 });
    server.queueTranscripts([{ text: 'I need a table', voicedMs: 300 }]);
    client.send(liveSession('gpt-realtime-whisper'));
    await client.waitFor('session.updated');
    client.append(tone(300));
    client.append(silence(150));
    client.send({ type: 'input_audio_buffer.commit' });
    await client.waitFor(COMPLETED);
    const order = client.events.filter((e) => e.type === DELTA || e.type === COMPLETED || e.type === 'input_audio_buffer.committed').map((e) => e.type);
    expect(order).toEqual(['input_audio_buffer.committed', DELTA, DELTA, DELTA, DELTA, COMPLETED]);
  });

  it('a plain transcript: its words spread at speechMsPerChar, the last one waits for the commit, one transcript per commit', async () => {
    const { server, client } = await setup({ deltaLagMs: 0, finalAfterCommitMs: 0, speechMsPerChar: 10 });
    server.queueTranscripts(['네 예약해 주세요', 'second']);
    client.send(liveSession('gpt-live-transcribe'));
    await client.waitFor('session.updated');
    client.append(tone(400)); // far past 9 characters × 10 ms
    await client.waitFor(DELTA, 2);
    expect(client.of(DELTA).map((e) => e.delta)).toEqual(['네', ' 예약해']);
    client.send({ type: 'input_audio_buffer.commit' });
    const completed = await client.waitFor(COMPLETED);
    expect(client.of(DELTA).map((e) => e.delta).join('')).toBe('네 예약해 주세요');
    expect(completed.transcript).toBe('네 예약해 주세요');
    expect(server.stats().transcriptsQueued).toBe(1);
  });

  it('a commit of silence completes with an empty transcript; the queued transcript waits for the speech after it', async () => {
    const { server, client } = await setup({ deltaLagMs: 0, finalAfterCommitMs: 0 });
    server.queueTranscripts([{ text: 'A table for two', voicedMs: 200 }]);
    client.send(liveSession('gpt-realtime-whisper'));
    await client.waitFor('session.updated');
    client.append(silence(300));
    client.send({ type: 'input_audio_buffer.commit' });
    const quiet = await client.waitFor(COMPLETED);
    expect(quiet.transcript).toBe('');
    expect(client.of(DELTA)).toHaveLength(0);

    client.append(tone(200));
    client.append(silence(200));
    client.send({ type: 'input_audio_buffer.commit' });
    const spoken = await client.waitFor(COMPLETED, 2);
    expect(spoken.transcript).toBe('A table for two');
    expect(server.utterances.map((u) => u.transcript)).toEqual(['', 'A table for two']);
  });

  it('jittered timings keep the words in order and complete', async () => {
    const { server, client } = await setup({ deltaLagMs: 20, finalAfterCommitMs: 10, timingJitterMs: 80, seed: 7 });
    server.queueTranscripts([{ text: 'one two three four five six', voicedMs: 300 }]);
    client.send(liveSession('gpt-realtime-whisper'));
    await client.waitFor('session.updated');
    for (let i = 0; i < 6; i++) client.append(tone(50));
    client.send({ type: 'input_audio_buffer.commit' });
    const completed = await client.waitFor(COMPLETED);
    expect(client.of(DELTA).map((e) => e.delta).join('')).toBe('one two three four five six');
    expect(client.events.indexOf(completed)).toBeGreaterThan(client.events.indexOf(client.of(DELTA).at(-1)!));
  });

  it('refuses server-side turn detection for a live model, as the service does, and leaves the session as it was', async () => {
    const { server, client } = await setup({ deltaLagMs: 0 });
    server.queueTranscripts([{ text: 'one two three', voicedMs: 300 }]);
    client.send({ ...liveSession('gpt-live-transcribe', { turn_detection: { type: 'server_vad', silence_duration_ms: 350 } }), event_id: 'evt_1' });
    const error = await client.waitFor('error');
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_value', param: 'session.audio.input.turn_detection', event_id: 'evt_1' });
    client.send(liveSession('gpt-realtime-whisper', { turn_detection: { type: 'semantic_vad' } }));
    await client.waitFor('error', 2);
    expect(client.of('session.updated')).toHaveLength(0);

    // Omitted (what the plugin sends for these models) is none: the session's initial server_vad goes.
    client.send(liveSession('gpt-realtime-whisper'));
    const updated = await client.waitFor('session.updated');
    expect(updated.session).toMatchObject({ audio: { input: { transcription: { model: 'gpt-realtime-whisper' }, turn_detection: null } } });
    client.append(tone(300));
    client.append(silence(800));
    await client.waitFor(DELTA);
    expect(client.of('input_audio_buffer.speech_stopped')).toHaveLength(0);
    expect(client.of('input_audio_buffer.committed')).toHaveLength(0);
  });

  it('server_vad is unchanged: no delta before the commit; bindTranscripts "speech" lets a merged commit carry both pieces', async () => {
    const { server, client } = await setup({ transcriptionDelayMs: 30, bindTranscripts: 'speech' });
    server.queueTranscripts([
      { text: 'I need a table.', voicedMs: 300 },
      { text: 'For four people.', voicedMs: 300 },
      { text: 'next', voicedMs: 300 },
    ]);
    client.send(liveSession('gpt-4o-transcribe', { turn_detection: { type: 'server_vad', silence_duration_ms: 350 } }));
    await client.waitFor('session.updated');
    client.append(tone(300));
    client.append(silence(250)); // shorter than server_vad's silence: one item
    client.append(tone(300));
    client.append(silence(500));
    const committed = await client.waitFor('input_audio_buffer.committed');
    const firstDelta = await client.waitFor(DELTA);
    expect(client.events.indexOf(firstDelta)).toBeGreaterThan(client.events.indexOf(committed));
    const completed = await client.waitFor(COMPLETED);
    expect(completed.transcript).toBe('I need a table. For four people.');
    expect(server.stats().transcriptsQueued).toBe(1);
  });
});

describe('wordsOf', () => {
  it('keeps each word with its leading space, joining back to the text', () => {
    expect(wordsOf(' I need  a table.')).toEqual([' I', ' need', '  a', ' table.']);
    expect(wordsOf('내일 오후').join('')).toBe('내일 오후');
  });
});
