/**
 * The pacer on chosen replies (discrete-event runs, a stepped clock): when the first clause goes
 * alone and when it waits, the early piece before a long sentence, the one cut inside a sentence a
 * provider without continuation gets, the hold bound, and where holding cannot help. Each case is
 * also run through the unpaced first-clause rule, which leaves the silence the pacer avoids.
 */
import { describe, expect, it } from 'vitest';
import { makeTrace } from '../../../../bench/llm.js';
import { type Chunk, createChunker } from '../../src/chunking/index.js';
import { DEFAULT_PACING_OPTIONS, type PacingPriors } from '../../src/pacing/pacing-estimates.js';
import { type PlanFigures, PlayoutForecast, type ProviderShape } from '../../src/pacing/pacing-model.js';
import { type Physics, type Released, type TokenTrace, playoutGaps, runPaced } from './pacing-harness.js';

const CONTINUATION: ProviderShape = { continuation: true, sequential: false };
const COLD_START: ProviderShape = { continuation: false, sequential: true };

function priors(language: 'en' | 'ko', tokensPerSecond: number): Partial<PacingPriors> {
  return {
    tokenGapMs: 1000 / tokensPerSecond,
    lateness: 0,
    charsPerToken: language === 'ko' ? 1.6 : 4,
    wordChars: language === 'ko' ? 4 : 6,
    sentenceChars: language === 'ko' ? 45 : 100,
    speechMsPerChar: language === 'ko' ? 110 : 65,
    firstByteMs: 120,
    realTimeFactor: 0.2,
  };
}

const physics = (language: 'en' | 'ko', shape: ProviderShape): Physics => ({
  firstByteMs: 120,
  speechMsPerChar: language === 'ko' ? 110 : 65,
  realTimeFactor: 0.2,
  sequential: shape.sequential,
});

const trace = (reply: string, language: 'en' | 'ko', tokensPerSecond: number) =>
  makeTrace(reply, language, { firstTokenMs: 300, tokensPerSecond, jitter: 0, seed: 1 });

/** The unpaced first-clause rule on the same trace: every chunk goes when the chunker cuts it. */
function eager(t: TokenTrace): Released[] {
  const chunker = createChunker();
  const out: Released[] = [];
  t.tokens.forEach((token, i) => out.push(...chunker.push(token).map((chunk) => ({ chunk, at: t.at[i]! }))));
  out.push(...chunker.end().map((chunk) => ({ chunk, at: t.at[t.at.length - 1]! })));
  return out;
}

const brief = (released: Released[]) => released.map((r) => [r.chunk.reason, r.chunk.text]);
const insideSentence = (chunks: Chunk[]) => chunks.filter((c) => c.reason === 'clause' || c.reason === 'word' || c.reason === 'length');

describe('the first chunk', () => {
  it('is the first clause, at once, when its audio covers what follows (a fast LLM)', () => {
    const t = trace('Sure, I can do that. The meeting is at three.', 'en', 40);
    const run = runPaced(t, CONTINUATION, { priors: priors('en', 40) });
    expect(brief(run.released)[0]).toEqual(['clause', 'Sure,']);
    expect(run.report).toMatchObject({ reason: 'eager', predictedGapMs: 0 });
    expect(run.released[0]!.at).toBe(run.report!.eagerAt);
    expect(playoutGaps(run.released, physics('en', CONTINUATION))).toEqual([]);
  });

  it('waits for more words when "네," cannot cover the rest at 15 tokens/s, and then nothing pauses', () => {
    const reply = '네, 바로 확인했습니다. 치과 예약을 화요일 오전에서 목요일 오후 네 시로 옮겨 두었어요.';
    const t = trace(reply, 'ko', 15);
    for (const shape of [CONTINUATION, COLD_START]) {
      const run = runPaced(t, shape, { priors: priors('ko', 15) });
      expect(run.released[0]!.chunk.text.length).toBeGreaterThan('네,'.length);
      expect(run.report!.reason).toBe('held');
      expect(run.released[0]!.at).toBeGreaterThan(run.report!.eagerAt);
      expect(run.released[0]!.at).toBeLessThanOrEqual(run.report!.eagerAt + DEFAULT_PACING_OPTIONS.maxHoldMs);
      expect(playoutGaps(run.released, physics('ko', shape))).toEqual([]);
      // The first-clause rule alone speaks "네," and falls silent twice.
      expect(playoutGaps(eager(t), physics('ko', shape))).toHaveLength(2);
    }
  });

  it('goes at the hold bound when the LLM stalls, saying a silence is predicted', () => {
    // Held like "네," above, and then the LLM stops for 3 s.
    const t = trace('네, 바로 확인했습니다. 치과 예약을 화요일 오전에서 목요일 오후 네 시로 옮겨 두었어요.', 'ko', 15);
    t.at = t.at.map((at, i) => (i >= 4 ? at + 3000 : at));
    const run = runPaced(t, COLD_START, { priors: priors('ko', 15) });
    expect(run.report!.reason).toBe('bound');
    expect(run.report!.predictedGapMs).toBeGreaterThan(0);
    expect(run.released[0]!.at).toBe(run.report!.eagerAt + DEFAULT_PACING_OPTIONS.maxHoldMs);
  });

  it('goes at once where holding cannot help: the LLM writes slower than the voice speaks', () => {
    const t = trace('Sure, let me look that up for you right now.', 'en', 2);
    const run = runPaced(t, CONTINUATION, { priors: priors('en', 2) });
    expect(run.report!.reason).toBe('slow-llm');
    expect(run.released[0]!.at).toBe(run.report!.eagerAt);
    expect(brief(run.released)[0]).toEqual(['clause', 'Sure,']);
  });
});

describe('later text', () => {
  const reply = 'Sure. The meeting has been moved to Thursday at three in the afternoon, in room two hundred and four.';

  it('with continuation: an early piece at the deadline where the next sentence end comes too late', () => {
    const t = trace(reply, 'en', 15);
    const run = runPaced(t, CONTINUATION, { priors: priors('en', 15) });
    expect(brief(run.released)[0]).toEqual(['sentence', 'Sure.']);
    expect(run.released.filter((r) => r.chunk.reason === 'word').length).toBeGreaterThan(0);
    // Each early piece goes between two tokens: at a deadline, not at the arrival of text.
    expect(run.released.some((r) => r.chunk.reason === 'word' && !t.at.includes(r.at))).toBe(true);
    expect(playoutGaps(run.released, physics('en', CONTINUATION))).toEqual([]);
    expect(playoutGaps(eager(t), physics('en', CONTINUATION))).toHaveLength(1);
  });

  it('without continuation: one cut inside a sentence at most, then whole sentences', () => {
    const longer = `${reply} I will send the new invite to everyone on the list right after this call.`;
    const t = trace(longer, 'en', 15);
    const run = runPaced(t, COLD_START, { priors: priors('en', 15) });
    const chunks = run.released.map((r) => r.chunk);
    expect(insideSentence(chunks)).toHaveLength(1);
    expect(chunks.slice(chunks.indexOf(insideSentence(chunks)[0]!) + 1).every((c) => c.reason === 'sentence' || c.reason === 'end')).toBe(true);
    expect(playoutGaps(run.released, physics('en', COLD_START))).toEqual([]);
  });
});

describe('PlayoutForecast', () => {
  const f: PlanFigures = {
    tokenGapMs: 25,
    latenessMs: 12,
    charsPerToken: 4,
    wordChars: 12,
    sentenceChars: 100,
    speechMsPerChar: 65,
    firstByteMs: 120,
    nextFirstByteMs: 120,
    realTimeFactor: 0.2,
    marginMs: 40,
  };

  it('starts a sequential provider\'s next piece only once the previous one is generated', () => {
    const sequential = new PlayoutForecast(COLD_START);
    sequential.release(0, 10, { ...f, firstByteMs: 100, realTimeFactor: 1 }, true); // ready 100, 650 ms of audio generated by 750
    expect(sequential.generated).toBe(750);
    // Ready no sooner than 750 + 120 whenever it goes, past the 750 − 40 it should sound by: go by 750.
    expect(sequential.deadline({ ...f, realTimeFactor: 1 })).toBe(750);
    const pipelined = new PlayoutForecast(CONTINUATION);
    pipelined.release(0, 10, { ...f, firstByteMs: 100, realTimeFactor: 0.2 }, true); // ready 100, ends 750, generated 230
    expect(pipelined.deadline(f)).toBe(750 - 40 - 120);
  });

  it('moves with the real first audio', () => {
    const forecast = new PlayoutForecast(CONTINUATION);
    forecast.release(0, 10, { ...f, firstByteMs: 100 }, true);
    forecast.started(160);
    expect(forecast.end).toBe(160 + 650);
  });
});
