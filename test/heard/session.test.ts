/**
 * Heard text in a room-less AgentSession: a fake LLM streams a known reply, our Resemble and
 * Cartesia clients speak it against the protocol servers, RecordingAudioOutput plays it at 1×,
 * and the session is interrupted after a known stretch of audio. The history must keep exactly
 * the words whose audio played to the end — as told by the tagged audio itself.
 */
import { initializeLogger } from '@livekit/agents';
import type { HeardSource } from '../../src/heard/index.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import {
  type HeardSession,
  finishedSegment,
  groundTruth,
  interruptAfterPlayed,
  nextAssistantMessage,
  nextHeardDecision,
  startHeardSession,
} from './session-harness.js';

const REPLY_EN =
  'Sure, the museum opens at nine tomorrow morning. Afterwards you could walk along the riverside promenade, ' +
  'which is especially beautiful in spring. Remember to bring comfortable shoes and a light jacket.';
const REPLY_KO =
  '네, 박물관은 내일 아침 아홉 시에 문을 열어요. 관람이 끝나면 강변 산책로를 따라 걸어 보세요. ' +
  '봄에는 특히 아름다워요. 편한 신발과 가벼운 겉옷을 챙기세요.';

const MS_PER_CHAR = 15;

interface Case {
  provider: 'resemble' | 'cartesia';
  timestamps: boolean;
  realTimeFactor: number;
  reply: string;
  interruptAfterMs: number;
  /**
   * What may decide the cut: the provider's timings; the length of the chunk's complete audio;
   * or, while that chunk's audio is still arriving, the rate measured on the reply's earlier chunks.
   * 'complete' (the cut fell exactly on a chunk's end) is always allowed.
   */
  decidedBy: HeardSource[];
}

const cases: Case[] = [
  { provider: 'resemble', timestamps: false, realTimeFactor: 0.5, reply: REPLY_EN, interruptAfterMs: 1_000, decidedBy: ['audio', 'estimate'] },
  { provider: 'resemble', timestamps: true, realTimeFactor: 0.5, reply: REPLY_EN, interruptAfterMs: 1_000, decidedBy: ['timings'] },
  { provider: 'resemble', timestamps: true, realTimeFactor: 0.5, reply: REPLY_KO, interruptAfterMs: 700, decidedBy: ['timings'] },
  { provider: 'cartesia', timestamps: false, realTimeFactor: 0, reply: REPLY_EN, interruptAfterMs: 1_000, decidedBy: ['audio'] },
  { provider: 'cartesia', timestamps: true, realTimeFactor: 0.5, reply: REPLY_EN, interruptAfterMs: 1_000, decidedBy: ['timings'] },
  { provider: 'cartesia', timestamps: false, realTimeFactor: 0, reply: REPLY_KO, interruptAfterMs: 700, decidedBy: ['audio'] },
];

describe('heard text of an interrupted reply (room-less session)', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));

  let h: HeardSession | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const c of cases) {
    const label = `${c.provider}, ${c.timestamps ? 'word timestamps' : 'no timestamps'}, ${c.reply === REPLY_KO ? 'Korean' : 'English'}`;
    it(`keeps exactly the words played to the end (${label})`, async () => {
      h = await startHeardSession({
        provider: c.provider,
        timestamps: c.timestamps,
        msPerChar: MS_PER_CHAR,
        realTimeFactor: c.realTimeFactor,
        responses: [{ input: 'question', content: c.reply }],
      });
      const segment = finishedSegment(h.output);
      const message = nextAssistantMessage(h.session);
      const decision = nextHeardDecision(h.session);
      void interruptAfterPlayed(h, c.interruptAfterMs);
      const handle = h.session.generateReply({ userInput: 'question' });

      const played = await withTimeout(segment, 10_000, 'the interrupted segment');
      const committed = await withTimeout(message, 10_000, 'the interrupted reply in the history');
      const decided = await withTimeout(decision, 1_000, 'the heard-text decision');
      expect(decided.heard.text).toBe(committed.textContent);
      expect([...c.decidedBy, 'complete']).toContain(decided.heard.source);
      await withTimeout(handle.waitForPlayout(), 5_000, 'the interrupted speech to end');

      expect(handle.interrupted).toBe(true);
      expect(played.interrupted).toBe(true);
      expect(committed.interrupted).toBe(true);
      const [streamId] = [...h.sent.keys()];
      const truth = groundTruth(h, played, h.sent.get(streamId!)!, MS_PER_CHAR);
      const text = committed.textContent ?? '';
      // Meaningful cut: something was heard, not everything.
      expect(truth.heard.length).toBeGreaterThan(0);
      expect(truth.heard.length).toBeLessThan(c.reply.length);
      expect(c.reply.startsWith(text)).toBe(true);
      if (c.timestamps || c.provider === 'resemble' || truth.charsFromWordEnd >= 1) {
        expect(text).toBe(truth.heard);
      } else {
        // One Cartesia context voices every chunk as one stretch of audio: without timestamps
        // the cut inside it is proportional, exact to under one character. Only a stop within
        // one character of a word's end may land on either side of that word.
        expect(Math.abs(text.split(' ').length - truth.heard.split(' ').length)).toBeLessThanOrEqual(1);
      }
    });
  }

  for (const provider of ['resemble', 'cartesia'] as const) {
    it(`keeps a reply played to the end exactly as written, word timestamps on (${provider})`, async () => {
      // The framework builds this message from the provider's timed words; they must not leak in.
      // (No markdown here: the session's default text transforms strip it before the TTS sees it.)
      const reply = 'Of course. The 3 museums open at nine, and tickets cost 12 euros each.';
      h = await startHeardSession({
        provider,
        timestamps: true,
        msPerChar: 2,
        realTimeFactor: 0,
        responses: [{ input: 'question', content: reply }],
      });
      const message = nextAssistantMessage(h.session);
      const handle = h.session.generateReply({ userInput: 'question' });
      await withTimeout(handle.waitForPlayout(), 10_000, 'the reply to play out');
      const committed = await withTimeout(message, 5_000, 'the reply in the history');
      expect(handle.interrupted).toBe(false);
      expect(committed.textContent).toBe(reply);
    });
  }

  it('places the cut by the learned speaking rate while one Cartesia context is still streaming', async () => {
    // Without timestamps, audio that voices many chunks at once has no inner boundaries until it
    // is complete; a reply played earlier taught the session how fast this voice speaks.
    const warmUp = 'Certainly. Let me think about the best way to get there from the central station today.';
    h = await startHeardSession({
      provider: 'cartesia',
      timestamps: false,
      msPerChar: MS_PER_CHAR,
      realTimeFactor: 0.5,
      responses: [
        { input: 'warm up', content: warmUp },
        { input: 'question', content: REPLY_EN },
      ],
    });
    const warm = h.session.generateReply({ userInput: 'warm up' });
    await withTimeout(warm.waitForPlayout(), 15_000, 'the warm-up reply');

    const segment = finishedSegment(h.output);
    const message = nextAssistantMessage(h.session);
    const decision = nextHeardDecision(h.session);
    void interruptAfterPlayed(h, 1_000);
    const handle = h.session.generateReply({ userInput: 'question' });
    const played = await withTimeout(segment, 10_000, 'the interrupted segment');
    const committed = await withTimeout(message, 10_000, 'the interrupted reply in the history');
    await withTimeout(handle.waitForPlayout(), 5_000, 'the interrupted speech to end');

    expect((await withTimeout(decision, 1_000, 'the heard-text decision')).heard.source).toBe('estimate');
    const streamId = [...h.sent.keys()][1]!;
    const truth = groundTruth(h, played, h.sent.get(streamId)!, MS_PER_CHAR);
    const text = committed.textContent ?? '';
    expect(REPLY_EN.startsWith(text)).toBe(true);
    // The default rate (14 chars/s) would keep about half of what was heard; the learned one is
    // off by the voice's trailing pause at most: within one word.
    expect(truth.heard.split(' ').length).toBeGreaterThan(8);
    expect(Math.abs(text.split(' ').length - truth.heard.split(' ').length)).toBeLessThanOrEqual(1);
  });

  it('keeps nothing when the interruption comes before the first word has played', async () => {
    h = await startHeardSession({
      provider: 'resemble',
      timestamps: false,
      msPerChar: MS_PER_CHAR,
      realTimeFactor: 0,
      responses: [{ input: 'question', content: REPLY_EN }],
    });
    const segment = finishedSegment(h.output);
    void interruptAfterPlayed(h, 30); // "Sure," takes 75 ms
    const handle = h.session.generateReply({ userInput: 'question' });
    const played = await withTimeout(segment, 10_000, 'the interrupted segment');
    await withTimeout(handle.waitForPlayout(), 5_000, 'the interrupted speech to end');

    expect(played.interrupted).toBe(true);
    expect(played.playedMs).toBeLessThan(75);
    const assistant = h.session.history.items.filter((i) => i.type === 'message' && i.role === 'assistant');
    expect(assistant).toHaveLength(0);
  });
});
