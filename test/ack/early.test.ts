/**
 * The first sound never waits for the speech-to-text's final: the early acknowledgement judges
 * the words heard so far at the VAD's end of speech, again when a word lands after it, decides on
 * silence alone when no word came by its bound, never plays on words older than the voice they
 * trail (a live model's lag), is withdrawn when the caller goes on, and picks
 * only a clip that ends before the reply is expected (learnt from the session's own turns).
 */
import { initializeLogger, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { EventEmitter } from 'node:events';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AckLibrary, type CachedAck } from '../../src/ack/index.js';
import { type EarlyAck, type EarlyAckAttempt, attachEarlyAck } from '../../src/ack/early.js';
import { pickWithin } from '../../src/ack/library.js';
import { AckOutput } from '../../src/audio/ack-output.js';
import { RecordingAudioOutput } from '../../src/audio/recording-output.js';
import { predictTurnComplete } from '../../src/turn/transcript-detector.js';
import { withTimeout } from '../helpers/async.js';

beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));

function clip(id: string, durationMs: number): CachedAck {
  const frames = Array.from({ length: durationMs / 10 }, () => new AudioFrame(new Int16Array(160).fill(1000), 16000, 1, 160));
  return { id, language: id.startsWith('ko') ? 'ko' : 'en', text: id, frames, durationMs };
}

const LIBRARY = new AckLibrary([clip('en:0', 300), clip('en:1', 500), clip('ko:0', 250)], () => 0);

/** Just what the early ack touches: its events and the agent's state. */
class StandInSession extends EventEmitter {
  agentState = 'listening';
  endOfSpeech(): void {
    this.emit(voice.AgentSessionEventTypes.UserStateChanged, { newState: 'listening', oldState: 'speaking' });
  }
  speaks(): void {
    this.emit(voice.AgentSessionEventTypes.UserStateChanged, { newState: 'speaking', oldState: 'listening' });
  }
  words(transcript: string, isFinal = false): void {
    this.emit(voice.AgentSessionEventTypes.UserInputTranscribed, { transcript, isFinal, language: undefined });
  }
}

let early: EarlyAck | undefined;
let recording: RecordingAudioOutput | undefined;

afterEach(() => {
  early?.close();
  recording?.close();
});

function setup(options: { replyWaitMs?: number; silenceBoundMs?: number; wordsDueMs?: number } = {}) {
  const session = new StandInSession();
  recording = new RecordingAudioOutput({ playout: 'realtime' });
  const output = new AckOutput(recording);
  const agent = new voice.Agent({ instructions: 'test' });
  early = attachEarlyAck(session as unknown as voice.AgentSession, { agent, library: LIBRARY, output, predict: predictTurnComplete, ...options });
  const attempts: EarlyAckAttempt[] = [];
  early.on('attempt', (a) => attempts.push(a));
  const next = (n: number) =>
    withTimeout(
      new Promise<void>((resolve) => {
        const check = () => (attempts.length >= n ? resolve() : setTimeout(check, 5));
        check();
      }),
      5000,
      `${n} attempt(s), got ${JSON.stringify(attempts.map((a) => a.outcome))}`,
    );
  const started = () => withTimeout(new Promise<number>((resolve) => output.ackEvents.once('ack_started', resolve)), 5000, 'the ack to play');
  return { session, output, attempts, next, started };
}

describe('early acknowledgement on a live transcription', () => {
  it('judges the words heard at the end of speech, and again when the last word lands after it', async () => {
    const { session, attempts, next, started } = setup({ replyWaitMs: 2000 });
    session.speaks();
    session.words('I need a');
    session.endOfSpeech();
    await next(1);
    expect(attempts[0]).toMatchObject({ outcome: 'skipped', reason: 'not_over', judgedOn: 'words' });
    // The lag was longer than the silence: "table" comes after the end of speech. No final yet.
    const playing = started();
    session.words('I need a table');
    await playing;
    session.speaks(); // reports the attempt (cut: the caller went on)
    await next(2);
    expect(attempts[1]).toMatchObject({ outcome: 'cut', judgedOn: 'words', phraseId: 'en:1' });
  });

  it('decides on silence alone when no word has come by its bound', async () => {
    const { session, attempts, next, started } = setup({ replyWaitMs: 2000, silenceBoundMs: 50 });
    session.speaks();
    const playing = started();
    session.endOfSpeech();
    await playing;
    session.speaks();
    await next(1);
    expect(attempts[0]).toMatchObject({ outcome: 'cut', judgedOn: 'silence' });
    expect(attempts[0]!.decidedAt - attempts[0]!.endOfSpeechAt).toBeGreaterThanOrEqual(50 - 2);
  });

  it('words that read finished before they are due to cover the speech wait until then: the last word can still say "not over"', async () => {
    const { session, output, attempts, next } = setup({ replyWaitMs: 2000, wordsDueMs: 300 });
    let played = false;
    output.ackEvents.on('ack_started', () => (played = true));
    session.speaks();
    session.words('What about kids life'); // reads finished; "and" is still on its way
    session.endOfSpeech();
    expect(attempts).toHaveLength(0);
    session.words('What about kids life and');
    await next(1);
    expect(attempts[0]).toMatchObject({ outcome: 'skipped', reason: 'not_over', judgedOn: 'words' });
    // Nothing plays once they are due: the words now say the caller is not done.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(played).toBe(false);
    expect(attempts.map((a) => a.outcome)).toEqual(attempts.map(() => 'skipped'));
  });

  it('words that read finished play once due, not before, when no later word changes them', async () => {
    const { session, started } = setup({ replyWaitMs: 2000, wordsDueMs: 80 });
    session.speaks();
    session.words('Can you book a table?');
    const playing = started();
    session.endOfSpeech();
    const endedAt = performance.now();
    await playing;
    expect(performance.now() - endedAt).toBeGreaterThanOrEqual(80 - 2);
    session.speaks();
  });

  it('is withdrawn (or stopped) when the caller goes on', async () => {
    const { session, attempts, next } = setup({ replyWaitMs: 2000 });
    session.speaks();
    session.words('Can you book a table?');
    session.endOfSpeech();
    session.speaks();
    await next(1);
    expect(['withdrawn', 'cut']).toContain(attempts[0]!.outcome);
    expect(attempts[0]).toMatchObject({ reason: 'user_resumed', phraseId: 'en:1' });
  });

  it('picks no clip longer than the expected wait for the reply, and learns the wait from the reply audio', async () => {
    const { session, output, attempts, next } = setup({ replyWaitMs: 200 });
    expect(early!.replyWaitMs).toBe(200);
    session.speaks();
    session.words('Can you book a table?');
    session.endOfSpeech();
    await next(1);
    // Every clip (≥ 250 ms) would hold a reply expected within 200 ms.
    expect(attempts[0]).toMatchObject({ outcome: 'skipped', reason: 'reply_ready' });
    expect(attempts[0]!.expectedWaitMs).toBeLessThan(250);
    // The reply's audio comes ~1 s after the end of speech: the expected wait grows toward it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await output.captureFrame(new AudioFrame(new Int16Array(160), 16000, 1, 160));
    expect(early!.replyWaitMs).toBeGreaterThan(200);
  });
});

describe('pickWithin', () => {
  it('the longest clip that ends within the wait, not the previous one when another fits, none when none fits', () => {
    expect(pickWithin(LIBRARY, 'en', 1000)?.id).toBe('en:1');
    expect(pickWithin(LIBRARY, 'en', 1000, 'en:1')?.id).toBe('en:0');
    expect(pickWithin(LIBRARY, 'en', 400)?.id).toBe('en:0');
    expect(pickWithin(LIBRARY, 'en', 100)).toBeUndefined();
    expect(pickWithin(LIBRARY, 'ko', 400)?.id).toBe('ko:0');
  });
});
