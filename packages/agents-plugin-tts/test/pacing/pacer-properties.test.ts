/**
 * The pacer over generated replies and token traces (the bench's tokenizer; steady or jittered
 * token gaps), Korean and English, on both kinds of provider. Runs are discrete-event: a stepped
 * clock, no timers. A long soak: FC_RUNS_SCALE=20 npx vitest run test/pacing/pacer-properties.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeTrace } from '../../../../bench/llm.js';
import { createChunker } from '../../src/chunking/index.js';
import { DEFAULT_PACING_OPTIONS, type PacingSettings, ReplyTokens } from '../../src/pacing/pacing-estimates.js';
import type { ProviderShape } from '../../src/pacing/pacing-model.js';
import { type Physics, boundaries, eagerFirstAt, playoutGaps, runPaced } from './pacing-harness.js';

const runs = (n: number) => n * Number(process.env.FC_RUNS_SCALE ?? 1);

type Language = 'en' | 'ko';
const WORDS: Record<Language, readonly string[]> = {
  en: [
    'I', 'a', 'we', 'can', 'the', 'your', 'meeting', 'moved', 'Thursday', 'afternoon', 'appointment', 'dentist',
    'reminder', 'message', 'quarterly', 'revenue', 'subscription', 'customers', 'tomorrow', 'check', 'that', 'for',
    'you', 'room', 'three', 'invite', 'everyone', 'right', 'after', 'plan', 'invoice', 'settings', '$1,250.75', '4.5%',
  ],
  ko: [
    '네', '회의는', '목요일', '오후', '세', '시로', '옮겨졌고', '장소는', '회의실입니다', '확인했습니다', '치과', '예약을',
    '화요일', '오전에서', '두었고', '하루', '전날', '문자로', '알림을', '보내', '드릴게요', '더', '필요하신', '건', '지금',
    '바로', '확인해', '1,250,000원이고', '3월', '3일에',
  ],
};
const OPENERS: Record<Language, readonly string[]> = { en: ['Sure.', 'Sure,', 'Yes,', 'Okay.', 'Right, so'], ko: ['네.', '네,', '좋아요,', '음,'] };
const MAX_WORDS = 14;
/** The longest sentence a reply here can hold: what the planner is told to expect. */
const LONGEST: Record<Language, number> = { en: MAX_WORDS * 13 + 8, ko: MAX_WORDS * 15 };

const sentenceArb = (language: Language) =>
  fc
    .tuple(
      fc.array(fc.tuple(fc.constantFrom(...WORDS[language]), fc.constantFrom('', '', '', '', ',')), { minLength: 1, maxLength: MAX_WORDS }),
      fc.constantFrom('.', '.', '?', '!'),
    )
    .map(([words, end]) => words.map(([w, comma], i) => w + (i < words.length - 1 ? comma : '')).join(' ') + end);

const replyArb = (language: Language) =>
  fc
    .tuple(fc.option(fc.constantFrom(...OPENERS[language])), fc.array(sentenceArb(language), { minLength: 1, maxLength: 4 }))
    .map(([opener, sentences]) => [...(opener ? [opener] : []), ...sentences].join(' '));

const SHAPES: Record<'continuation' | 'cold-start', ProviderShape> = {
  continuation: { continuation: true, sequential: false },
  'cold-start': { continuation: false, sequential: true },
};

const caseArb = fc.constantFrom<Language>('en', 'ko').chain((language) =>
  fc.record({
    language: fc.constant(language),
    reply: replyArb(language),
    shape: fc.constantFrom(...(Object.keys(SHAPES) as Array<keyof typeof SHAPES>)),
    tokensPerSecond: fc.constantFrom<number>(15, 25, 40, 60),
    jitter: fc.constantFrom(0, 0.25, 0.5),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    firstByteMs: fc.integer({ min: 40, max: 250 }),
    realTimeFactor: fc.constantFrom(0, 0.2, 0.5),
  }),
);
type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

const SPEECH: Record<Language, number> = { en: 65, ko: 110 };

/**
 * The text is at least as far along as planned at every moment after `from`: the latest certain
 * word boundary is never behind the planned stream's (tokens of `charsPerToken` characters,
 * `latenessMs` late and then one every `tokenGapMs`, the boundary `wordChars` behind them). That
 * is the rate the pacer planned with, measured where it matters: in text that can be released.
 */
function atPlannedRate(
  trace: { tokens: string[]; at: number[] },
  from: number,
  f: { tokenGapMs: number; latenessMs: number; charsPerToken: number; wordChars: number },
): boolean {
  const probe = createChunker({ paced: true });
  let origin: number | undefined;
  let boundary = 0;
  for (let i = 0; i < trace.tokens.length; i++) {
    if (trace.at[i]! > from) {
      origin ??= probe.pending().chars;
      // Just before token i arrives, the planned stream has delivered this many tokens.
      const due = Math.max(0, Math.ceil((trace.at[i]! - from - f.latenessMs) / f.tokenGapMs - 1e-9) - 1);
      if (boundary < origin + due * f.charsPerToken - f.wordChars) return false;
    }
    probe.push(trace.tokens[i]!);
    boundary = probe.pending().releasable;
  }
  return true;
}

/** What earlier replies of the same LLM and voice would have taught the pacer. */
function settingsFor(c: Case): PacingSettings {
  const earlier = new ReplyTokens();
  const other = makeTrace(c.reply, c.language, { firstTokenMs: 0, tokensPerSecond: c.tokensPerSecond, jitter: c.jitter, seed: c.seed + 1 });
  other.tokens.forEach((token, i) => earlier.add(other.at[i]!, token));
  return {
    priors: {
      tokenGapMs: 1000 / c.tokensPerSecond,
      lateness: earlier.lateness,
      charsPerToken: c.language === 'ko' ? 1.6 : 4,
      wordChars: c.language === 'ko' ? 4 : 6,
      sentenceChars: LONGEST[c.language],
      speechMsPerChar: SPEECH[c.language],
      firstByteMs: c.firstByteMs,
      realTimeFactor: c.realTimeFactor,
    },
  };
}

const traceOf = (c: Case) =>
  makeTrace(c.reply, c.language, { firstTokenMs: 300, tokensPerSecond: c.tokensPerSecond, jitter: c.jitter, seed: c.seed });

const physicsOf = (c: Case): Physics => ({
  firstByteMs: c.firstByteMs,
  speechMsPerChar: SPEECH[c.language],
  realTimeFactor: c.realTimeFactor,
  sequential: SHAPES[c.shape].sequential,
});

describe('pacer properties', () => {
  it('leaves no silence when the text comes at least as fast as planned at the first release', () => {
    let planned = 0;
    let total = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        total++;
        const trace = traceOf(c);
        const run = runPaced(trace, SHAPES[c.shape], settingsFor(c));
        const report = run.report!;
        const asPlanned = atPlannedRate(trace, run.released[0]!.at, report.figures);
        // Only a first chunk sent as covered promises no silence ('bound' and 'slow-llm' say they could not).
        if (!asPlanned || report.reason === 'bound' || report.reason === 'slow-llm') return;
        planned++;
        const silences = playoutGaps(run.released, physicsOf(c)).filter((g) => g > 0.001);
        expect(silences, `${c.shape} ${c.language} ${c.tokensPerSecond} tok/s ±${c.jitter}: ${JSON.stringify(run.released.map((r) => [Math.round(r.at), r.chunk.text]))}`).toEqual([]);
      }),
      { numRuns: runs(300) },
    );
    // Not vacuous: many generated traces are within the plan (about half).
    expect(planned / total).toBeGreaterThan(0.4);
  });

  it('sends the first chunk when the first-clause rule would, or at most the hold bound later', () => {
    fc.assert(
      fc.property(caseArb, fc.constantFrom(2, 5, 15, 40), (c, tokensPerSecond) => {
        const slow = { ...c, tokensPerSecond };
        const trace = traceOf(slow);
        const run = runPaced(trace, SHAPES[c.shape], settingsFor(c));
        const eager = eagerFirstAt(trace);
        expect(run.report!.eagerAt).toBe(eager);
        expect(run.released[0]!.at).toBeGreaterThanOrEqual(eager);
        expect(run.released[0]!.at).toBeLessThanOrEqual(eager + DEFAULT_PACING_OPTIONS.maxHoldMs);
      }),
      { numRuns: runs(300) },
    );
  });

  it('without continuation, has at most one boundary more than sentence chunking, whatever the timing', () => {
    const timedArb = fc.record({
      language: fc.constantFrom<Language>('en', 'ko'),
      seed: fc.integer({ min: 1, max: 2 ** 30 }),
      tokensPerSecond: fc.constantFrom(3, 8, 15, 40, 100),
      jitter: fc.constantFrom(0, 0.5, 0.9),
      stallAt: fc.nat({ max: 80 }),
      stallMs: fc.constantFrom(0, 300, 2000),
    });
    fc.assert(
      fc.property(
        timedArb.chain((t) => fc.tuple(fc.constant(t), replyArb(t.language))),
        ([t, reply]) => {
          const trace = makeTrace(reply, t.language, { firstTokenMs: 300, tokensPerSecond: t.tokensPerSecond, jitter: t.jitter, seed: t.seed });
          trace.at.forEach((_, i) => {
            if (i >= t.stallAt) trace.at[i]! += t.stallMs;
          });
          const run = runPaced(trace, SHAPES['cold-start'], { priors: { tokenGapMs: 200, sentenceChars: 20 } });
          const sentences = createChunker({ policy: 'sentence' });
          const bySentence = [...sentences.push(reply), ...sentences.end()];
          expect(run.released.map((r) => r.chunk.text).join(' ')).toBe(bySentence.map((c) => c.text).join(' '));
          expect(boundaries(run.released.map((r) => r.chunk))).toBeLessThanOrEqual(boundaries(bySentence) + 1);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
