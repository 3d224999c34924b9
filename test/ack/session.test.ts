/**
 * The cached acknowledgement in a room-less AgentSession: real scripted user turns (STT turn
 * detection), FakeLLM, our ResembleTTS against the protocol server, realtime playout.
 */
import { voice } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { AckDecision } from '../../src/ack/index.js';
import { nextEvent, withTimeout } from '../helpers/async.js';
import { type AckSession, assistantMessages, heardParts, segmentsFinished, startAckSession, turnsReported } from './harness.js';

const QUESTION_KO = '서울 날씨 어때요?';
const REPLY_KO = '오늘 서울은 맑아요.';
const QUESTION_EN = 'What time is it in Seoul?';
const REPLY_EN = 'It is nine in the morning.';

describe('cached acknowledgement in a session', () => {
  let s: AckSession | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  function nextDecision(): Promise<AckDecision> {
    return withTimeout(nextEvent<AckDecision>(s!.ack, 'decision'), 5_000, 'ack decision');
  }

  /** One user turn, until `segments` have played in all and the reply is done (in the history). */
  async function speakTurn(segments: number): Promise<void> {
    const played = segmentsFinished(s!.output, segments);
    const reported = turnsReported(s!.budget, s!.budget.reports.length + 1);
    s!.microphone.pushSilence(100);
    await withTimeout(Promise.all([played, reported]), 10_000, `${segments} segments played and the turn done`);
  }

  it('always: plays the Korean ack first, then the reply, one after the other, and keeps the ack out of the history', async () => {
    s = await startAckSession({
      mode: 'always',
      responses: [{ input: QUESTION_KO, content: REPLY_KO, ttft: 50 }],
      utterances: [{ transcript: QUESTION_KO, language: 'ko' }],
    });
    const decision = nextDecision();
    const assistantAdded = nextEvent<voice.ConversationItemAddedEvent>(
      s.session,
      voice.AgentSessionEventTypes.ConversationItemAdded,
      (ev) => ev.item.type === 'message' && ev.item.role === 'assistant',
    );
    await speakTurn(2);
    await withTimeout(assistantAdded, 5_000, 'reply in history');

    expect((await decision).outcome).toBe('played');
    const [ackSegment, replySegment] = s.output.segments;
    const ackParts = heardParts(s, ackSegment!);
    expect(ackParts).toHaveLength(1);
    expect(ackParts[0]).toMatch(/^ko:/);
    expect(heardParts(s, replySegment!)).toEqual(['reply']);
    // No overlap: the reply starts only once the ack has played out in full.
    expect(ackSegment!.interrupted).toBe(false);
    expect(ackSegment!.playedMs).toBeCloseTo(ackSegment!.durationMs, 6);
    expect(replySegment!.startedAt!).toBeGreaterThanOrEqual(ackSegment!.finishedAt!);
    expect(assistantMessages(s.session)).toEqual([REPLY_KO]);
  });

  it('never plays the same phrase twice in a row, and speaks the language of each user turn', async () => {
    s = await startAckSession({
      mode: 'always',
      playout: 'instant',
      msPerChar: 2,
      // Always the first candidate: without the no-repeat rule every turn would get the same phrase.
      random: () => 0,
      responses: [
        { input: QUESTION_KO, content: REPLY_KO },
        { input: QUESTION_EN, content: REPLY_EN },
      ],
      utterances: [
        { transcript: QUESTION_KO },
        { transcript: QUESTION_KO },
        { transcript: QUESTION_KO },
        { transcript: QUESTION_EN },
        { transcript: QUESTION_EN },
      ],
    });
    const played: string[] = [];
    for (let turn = 1; turn <= 5; turn++) {
      const decision = nextDecision();
      await speakTurn(turn * 2);
      expect((await decision).outcome).toBe('played');
      played.push(heardParts(s, s.output.segments[(turn - 1) * 2]!)[0]!);
      expect(heardParts(s, s.output.segments[(turn - 1) * 2 + 1]!)).toEqual(['reply']);
    }
    expect(played).toEqual(['ko:0', 'ko:1', 'ko:0', 'en:0', 'en:1']);
    expect(s.ack.lastPhraseId).toBe('en:1');
    expect(assistantMessages(s.session)).toEqual([REPLY_KO, REPLY_KO, REPLY_KO, REPLY_EN, REPLY_EN]);
  });

  it('slow: plays the ack when the LLM is still silent after slowMs, before the reply', async () => {
    s = await startAckSession({
      mode: 'slow',
      slowMs: 100,
      // Far beyond the turn end even for a preemptive request started at the final transcript.
      responses: [{ input: QUESTION_EN, content: REPLY_EN, ttft: 1_500 }],
      utterances: [{ transcript: QUESTION_EN }],
    });
    const decision = nextDecision();
    await speakTurn(2);
    expect(await decision).toMatchObject({ outcome: 'played', reason: 'slow_llm' });
    const [ackSegment, replySegment] = s.output.segments;
    expect(heardParts(s, ackSegment!)).toEqual([expect.stringMatching(/^en:/)]);
    expect(heardParts(s, replySegment!)).toEqual(['reply']);
    expect(replySegment!.startedAt!).toBeGreaterThanOrEqual(ackSegment!.finishedAt!);
    expect(assistantMessages(s.session)).toEqual([REPLY_EN]);
  });

  it('slow: stays silent when the first token comes within slowMs, and the reply plays alone', async () => {
    s = await startAckSession({
      mode: 'slow',
      slowMs: 5_000,
      // Later than the endpointing delay, so the ack is queued and then released empty.
      responses: [{ input: QUESTION_EN, content: REPLY_EN, ttft: 1_000 }],
      utterances: [{ transcript: QUESTION_EN }],
    });
    const decision = nextDecision();
    await speakTurn(1);
    const skipped = await decision;
    expect(skipped).toMatchObject({ outcome: 'skipped', reason: 'llm_ready' });
    // It was queued (a handle held the reply's place) and closed empty: nothing played or said.
    expect(skipped.speechId).toBeDefined();
    expect(s.output.segments).toHaveLength(1);
    expect(heardParts(s, s.output.segments[0]!)).toEqual(['reply']);
    expect(assistantMessages(s.session)).toEqual([REPLY_EN]);
  });

  it('an interruption stops the ack where it is, like any speech, and the next turn is acknowledged again', async () => {
    s = await startAckSession({
      mode: 'always',
      // About a second of ack audio: the interruption lands in its middle.
      msPerChar: 60,
      random: () => 0,
      responses: [{ input: QUESTION_EN, content: REPLY_EN, ttft: 50 }],
      utterances: [{ transcript: QUESTION_EN }, { transcript: QUESTION_EN }],
    });
    s.output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => void s!.session.interrupt());
    const first = nextDecision();
    s.microphone.pushSilence(100);
    const ackSegment = await withTimeout(segmentsFinished(s.output, 1), 10_000, 'the interrupted ack');
    expect((await first).phraseId).toBe('en:0');
    expect(heardParts(s, ackSegment[0]!)).toEqual(['en:0']);
    expect(ackSegment[0]!.interrupted).toBe(true);
    expect(ackSegment[0]!.playedMs).toBeLessThan(ackSegment[0]!.durationMs);

    await withTimeout(turnsReported(s.budget, 1), 5_000, 'the first turn over');
    const second = nextDecision();
    const before = s.output.segments.length;
    const done = segmentsFinished(s.output, before + 2);
    s.microphone.pushSilence(100);
    await withTimeout(Promise.all([done, turnsReported(s.budget, 2)]), 15_000, 'second turn');
    expect((await second).phraseId).toBe('en:1');
    const later = s.output.segments.slice(before);
    expect(later.map((seg) => heardParts(s!, seg))).toEqual([['en:1'], ['reply']]);
    // The acks never reach the history; the second reply does, whole.
    expect(assistantMessages(s.session).filter((m) => m.length > 0).every((m) => REPLY_EN.startsWith(m))).toBe(true);
    expect(assistantMessages(s.session).at(-1)).toBe(REPLY_EN);
  });
});
