/**
 * The real `openai.STT` (plugin 1.9.0) against the local server, with real speech (eSpeak-NG)
 * and the real Silero VAD: both commit paths of the realtime socket, and the HTTP path.
 */
import { type VAD, initializeLogger, stt } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import * as silero from '@livekit/agents-plugin-silero';
import type { AudioFrame } from '@livekit/rtc-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { withTimeout } from '../helpers/async.js';
import { type OpenAIServer, startOpenAIServer } from './openai-server.js';
import { type Speech, durationMs, framesOf, speak, speechRms } from './openai/test-audio.js';

initializeLogger({ pretty: false, level: 'warn' });

let synthesizer: EspeakSynthesizer;
let vad: VAD;
let english: Speech;
let korean: Speech;
let server: OpenAIServer | undefined;
const streams: stt.SpeechStream[] = [];

beforeAll(async () => {
  synthesizer = await withTimeout(EspeakSynthesizer.start(), 15_000, 'eSpeak start');
  vad = await withTimeout(silero.VAD.load(), 15_000, 'Silero load');
  english = await speak(synthesizer, 'Can you book a table for two tonight?', 'en-us');
  korean = await speak(synthesizer, '내일 오후 세 시에 예약하고 싶어요.', 'ko');
}, 40_000);

afterAll(async () => {
  await synthesizer?.close();
});

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await withTimeout(server?.close() ?? Promise.resolve(), 5000, 'server close');
  server = undefined;
});

function realtimeStt(options: Partial<openai.STTOptions> = {}): openai.STT {
  const recognizer = new openai.STT({ apiKey: 'test-key', baseURL: server!.url, model: 'gpt-4o-transcribe', detectLanguage: true, vad, ...options });
  recognizer.on('error', () => {}); // failures surface as a missing event, with the events seen
  return recognizer;
}

/** Pushes the frames and collects events until `finals` FINAL_TRANSCRIPTs arrived (bounded). */
async function transcribe(recognizer: openai.STT, frames: AudioFrame[], finals = 1, options: { realTime?: boolean } = {}): Promise<stt.SpeechEvent[]> {
  const stream = recognizer.stream();
  streams.push(stream);
  if (options.realTime) void pushInRealTime(stream, frames);
  else for (const frame of frames) stream.pushFrame(frame);
  const events: stt.SpeechEvent[] = [];
  const collect = async (): Promise<void> => {
    for await (const event of stream) {
      events.push(event);
      if (events.filter((e) => e.type === stt.SpeechEventType.FINAL_TRANSCRIPT).length >= finals) return;
    }
  };
  await withTimeout(collect(), 10_000, `${finals} final transcript(s); got ${JSON.stringify(events.map((e) => e.type))}`);
  return events;
}

/**
 * Frames at the pace a microphone delivers them. Pushed all at once, the plugin's VAD reaches the
 * end of speech before the server has heard (and sent) any word, so what a caller's ear would
 * order depends on which side the scheduler favours.
 */
async function pushInRealTime(stream: stt.SpeechStream, frames: AudioFrame[]): Promise<void> {
  const start = performance.now();
  let dueMs = 0;
  for (const frame of frames) {
    const wait = start + dueMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    try {
      stream.pushFrame(frame);
    } catch (error) {
      // The test ends the stream once it has its final, often inside the trailing silence: the
      // microphone stops there ("Input is closed"). Anything else is a failure.
      if ((error as Error).message === 'Input is closed') return;
      throw error;
    }
    dueMs += (frame.samplesPerChannel * 1000) / frame.sampleRate;
  }
}

/**
 * Ends a stream whose plugin-side VAD is running. @livekit/agents 1.9.0 `VADStream.endInput()`
 * closes a writable it holds a writer on, which always rejects ("WritableStream is locked"); the
 * plugin calls it when the stream's input ends while its VAD stream is still attached. Dropping
 * the socket first makes the plugin detach (and close) the VAD stream before input ends.
 */
async function endAfterServerDrop(stream: stt.SpeechStream): Promise<void> {
  server!.dropAllConnections();
  const drain = async (): Promise<void> => {
    for await (const _event of stream) {
      // the stream ends once the plugin's run() returns
    }
  };
  await withTimeout(drain(), 5000, 'the plugin to end the stream after the socket dropped');
  stream.close();
}

const { START_OF_SPEECH, END_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT } = stt.SpeechEventType;

describe('OpenAI server: realtime STT through the plugin', () => {
  it('server_vad path (plugin default for gpt-4o-transcribe): speech in, queued transcript out', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 100 });
    server.queueTranscripts(['Can you book a table for two tonight?']);
    const events = await transcribe(realtimeStt(), framesOf(english, { leadMs: 300, silenceMs: 800 }));

    const types = events.map((e) => e.type);
    expect(types[0]).toBe(START_OF_SPEECH);
    expect(types).toContain(END_OF_SPEECH);
    expect(types).toContain(INTERIM_TRANSCRIPT);
    expect(types.indexOf(END_OF_SPEECH)).toBeLessThan(types.indexOf(FINAL_TRANSCRIPT));
    const final = events.find((e) => e.type === FINAL_TRANSCRIPT)!;
    expect(final.alternatives?.[0]?.text).toBe('Can you book a table for two tonight?');

    // The plugin's session: 24 kHz PCM, its server_vad settings, the model on the URL.
    const session = server.realtimeSessions[0]!;
    expect(session.query).toMatchObject({ intent: 'transcription', model: 'gpt-4o-transcribe' });
    expect(session.sessionUpdates[0]).toEqual({
      type: 'transcription',
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 },
          transcription: { model: 'gpt-4o-transcribe' },
          turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 600, silence_duration_ms: 350 },
        },
      },
    });
    expect(session.eventCounts['input_audio_buffer.commit']).toBeUndefined();

    // Real audio arrived: about the spoken length (plus VAD padding), and loud.
    expect(server.utterances).toHaveLength(1);
    const [utterance] = server.utterances;
    expect(utterance).toMatchObject({ source: 'server-vad', transcript: 'Can you book a table for two tonight?' });
    expect(utterance!.durationMs).toBeGreaterThan(durationMs(english) * 0.8);
    expect(utterance!.durationMs).toBeLessThan(durationMs(english) + 600 + 350 + 200);
    expect(utterance!.rms).toBeGreaterThan(speechRms(english) * 0.5);
  });

  it('client-commit path (turnDetection: null): Silero ends the speech, the plugin commits, Korean transcript', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 50 });
    server.queueTranscripts(['내일 오후 세 시에 예약하고 싶어요.']);
    const recognizer = realtimeStt({ turnDetection: null });
    const events = await transcribe(recognizer, framesOf(korean, { leadMs: 300, silenceMs: 1200 }));
    await endAfterServerDrop(streams.pop()!);

    const final = events.find((e) => e.type === FINAL_TRANSCRIPT)!;
    expect(final.alternatives?.[0]?.text).toBe('내일 오후 세 시에 예약하고 싶어요.');
    const session = server.realtimeSessions[0]!;
    expect((session.sessionUpdates[0] as { audio: { input: { turn_detection: unknown } } }).audio.input.turn_detection).toBeNull();
    expect(session.eventCounts['input_audio_buffer.commit']).toBe(1);
    const [utterance] = server.utterances;
    expect(utterance?.source).toBe('commit');
    // Silero's end of speech comes after its 550 ms of silence; the buffer holds all audio sent so far.
    expect(utterance!.durationMs).toBeGreaterThan(durationMs(korean));
    expect(utterance!.rms).toBeGreaterThan(0.01);
  });

  it('live model (gpt-realtime-whisper, the plugin default): words while the caller speaks, the final after the VAD commit', async () => {
    server = await startOpenAIServer({ deltaLagMs: 100, finalAfterCommitMs: 50 });
    server.queueTranscripts(['Can you book a table for two tonight?']);
    const recognizer = realtimeStt({ model: 'gpt-realtime-whisper' });
    const events = await transcribe(recognizer, framesOf(english, { leadMs: 300, silenceMs: 1200 }), 1, { realTime: true });
    await endAfterServerDrop(streams.pop()!);

    const types = events.map((e) => e.type);
    // Interim words before the plugin's VAD said the speech ended: heard while it arrived.
    expect(types.indexOf(INTERIM_TRANSCRIPT)).toBeGreaterThan(-1);
    expect(types.indexOf(INTERIM_TRANSCRIPT)).toBeLessThan(types.indexOf(END_OF_SPEECH));
    const final = events.find((e) => e.type === FINAL_TRANSCRIPT)!;
    expect(final.alternatives?.[0]?.text).toBe('Can you book a table for two tonight?');
    const session = server.realtimeSessions[0]!;
    expect((session.sessionUpdates[0] as { audio: { input: Record<string, unknown> } }).audio.input).not.toHaveProperty('turn_detection');
    expect(session.errors).toBe(0);
    expect(session.eventCounts['input_audio_buffer.commit']).toBe(1);
  });

  it('hands out queued transcripts in order, one per utterance, then the default', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 20, defaultTranscript: 'fallback' });
    server.queueTranscripts(['first', 'second']);
    const frames = [...framesOf(english, { silenceMs: 700 }), ...framesOf(korean, { silenceMs: 700 }), ...framesOf(english, { silenceMs: 700 })];
    const events = await transcribe(realtimeStt(), frames, 3);
    const finals = events.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.alternatives?.[0]?.text);
    expect(finals).toEqual(['first', 'second', 'fallback']);
    expect(server.utterances.map((u) => u.source)).toEqual(['server-vad', 'server-vad', 'server-vad']);
    expect(server.stats().transcriptsQueued).toBe(0);
  });

  it('fails the stream (non-recoverably) when the upgrade is refused for a wrong key', async () => {
    server = await startOpenAIServer();
    const recognizer = realtimeStt({ apiKey: 'wrong' });
    const failed = new Promise<{ error: Error; recoverable: boolean }>((resolve) => recognizer.on('error', resolve));
    const stream = recognizer.stream();
    streams.push(stream);
    stream.pushFrame(framesOf(english)[0]!);
    const { error, recoverable } = await withTimeout(failed, 5000, 'the STT error event');
    expect(error.message).toContain('401');
    expect(recoverable).toBe(false);
    expect(server.stats().realtime.opened).toBe(0);
  });

  it('reports the detected language when reportLanguage is on', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 20, reportLanguage: true });
    server.queueTranscripts(['예약해 주세요.']);
    const events = await transcribe(realtimeStt(), framesOf(korean, { silenceMs: 700 }));
    expect(events.find((e) => e.type === FINAL_TRANSCRIPT)?.alternatives?.[0]?.language).toBe('ko');
  });
});

describe('OpenAI server: HTTP transcription through the plugin', () => {
  it('answers recognize() (useRealtime: false) from the same queue and records the WAV it got', async () => {
    server = await startOpenAIServer({ transcriptionDelayMs: 30 });
    server.queueTranscripts(['A table for two.']);
    const recognizer = new openai.STT({ apiKey: 'test-key', baseURL: server.url, model: 'gpt-4o-transcribe', useRealtime: false, detectLanguage: true });
    const event = await withTimeout(recognizer.recognize(framesOf(english)), 10_000, 'recognize');
    expect(event.type).toBe(FINAL_TRANSCRIPT);
    expect(event.alternatives?.[0]?.text).toBe('A table for two.');
    expect(server.transcriptionRequests[0]).toMatchObject({ model: 'gpt-4o-transcribe', responseFormat: 'json', fileName: 'audio.wav' });
    const [utterance] = server.utterances;
    expect(utterance?.source).toBe('http');
    expect(utterance!.durationMs).toBeCloseTo(durationMs(english), -1);
    expect(utterance!.rms).toBeCloseTo(speechRms(english), 3);
  });

  it('refuses a wrong key with 401', async () => {
    server = await startOpenAIServer();
    const recognizer = new openai.STT({ apiKey: 'wrong', baseURL: server.url, model: 'gpt-4o-transcribe', useRealtime: false });
    await expect(withTimeout(recognizer.recognize(framesOf(english)), 10_000, 'recognize')).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(server.transcriptionRequests).toHaveLength(0);
  });
});
