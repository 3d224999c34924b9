import { initializeLogger } from '@livekit/agents';
import fc from 'fast-check';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/chunking/index.js';
import {
  AdaptiveFirstChunk,
  DEFAULT_ADAPTIVE_OPTIONS,
  type FirstChunkInputs,
  planFirstChunk,
} from '../../src/latency/adaptive.js';
import { EwmaEstimate } from '../../src/latency/ewma.js';
import { CartesiaTTS } from '../../src/tts/index.js';
import type { TimelineEvents } from '../../src/tts/timeline.js';
import { type CartesiaServer, startCartesiaServer } from '../servers/cartesia-server.js';
import { collect, speak, tokens } from '../tts/harness.js';

initializeLogger({ pretty: false, level: 'warn' });

const BASE: FirstChunkInputs = {
  llmCharsPerSec: 60,
  speechMsPerChar: 100,
  firstByteMs: 120,
  realTimeFactor: 0.2,
  nextChunkChars: 60,
  sequentialProvider: false,
  marginMs: 0,
};

/**
 * An independent event-level model of one reply: chunk 1 (L chars) sent at 0, chunk 2's text
 * complete after N chars at the LLM's rate; returns the silence between chunk 1's end and chunk 2's
 * start (0 = no underrun).
 */
function silenceBetweenChunks(i: FirstChunkInputs, firstChunkChars: number): number {
  const f2 = i.nextFirstByteMs ?? i.firstByteMs;
  const playbackEnd = i.firstByteMs + i.speechMsPerChar * firstChunkChars;
  const generatedEnd = i.firstByteMs + i.realTimeFactor * i.speechMsPerChar * firstChunkChars;
  const textDone = (1000 * i.nextChunkChars) / i.llmCharsPerSec;
  const ready = i.sequentialProvider ? Math.max(textDone, generatedEnd) + f2 : Math.max(textDone + f2, generatedEnd);
  return Math.max(0, ready + i.marginMs - playbackEnd);
}

describe('planFirstChunk', () => {
  it('finds the shortest first chunk whose playback covers writing and voicing chunk 2', () => {
    // 60 chars at 60 c/s = 1000 ms of LLM time; 100 ms of speech per char → 10 chars.
    const plan = planFirstChunk(BASE);
    expect(plan.coverChars).toBe(10);
    expect(plan.coverMs).toBe(1000);
    expect(plan.targetChars).toBe(20); // the chunker may cut naturally from half the target
    expect(plan.limitedBy).toBe('text');
    expect(plan.feasible).toBe(true);
  });

  it('covers only the difference of the two first bytes plus the margin, not chunk 1 latency twice', () => {
    const slowerSecond = planFirstChunk({ ...BASE, nextFirstByteMs: 320, marginMs: 100 });
    // (1000 + 320 − 120 + 100) / 100 = 13
    expect(slowerSecond.coverChars).toBe(13);
  });

  it('is exact: the cover never underruns and one character less does (property)', () => {
    const inputs = fc.record({
      llmCharsPerSec: fc.double({ min: 5, max: 400, noNaN: true }),
      speechMsPerChar: fc.double({ min: 30, max: 200, noNaN: true }),
      firstByteMs: fc.double({ min: 0, max: 600, noNaN: true }),
      nextFirstByteMs: fc.double({ min: 0, max: 600, noNaN: true }),
      realTimeFactor: fc.double({ min: 0, max: 0.95, noNaN: true }),
      nextChunkChars: fc.integer({ min: 0, max: 300 }),
      sequentialProvider: fc.boolean(),
      marginMs: fc.double({ min: 0, max: 200, noNaN: true }),
    });
    fc.assert(
      fc.property(inputs, (i) => {
        const plan = planFirstChunk(i, { minChars: 1, maxChars: 100_000 });
        expect(silenceBetweenChunks(i, plan.coverChars)).toBeLessThanOrEqual(1e-6);
        if (plan.coverChars > 1) expect(silenceBetweenChunks(i, plan.coverChars - 1)).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  it('asks for a longer first chunk when the LLM is slower, sentences longer, or speech faster', () => {
    const base = planFirstChunk(BASE).targetChars;
    expect(planFirstChunk({ ...BASE, llmCharsPerSec: 30 }).targetChars).toBeGreaterThan(base);
    expect(planFirstChunk({ ...BASE, nextChunkChars: 120 }).targetChars).toBeGreaterThan(base);
    expect(planFirstChunk({ ...BASE, speechMsPerChar: 50 }).targetChars).toBeGreaterThan(base);
    expect(planFirstChunk({ ...BASE, llmCharsPerSec: 240 }).targetChars).toBeLessThan(base);
  });

  it('on a sequential provider, chunk 2 latency starts after chunk 1 is generated', () => {
    // Text needs only 1 char (instant LLM); generation: a·L·(1 − 0.5) ≥ 120 → L ≥ 2.4 → 3.
    const plan = planFirstChunk({ ...BASE, llmCharsPerSec: Infinity, realTimeFactor: 0.5, sequentialProvider: true }, { minChars: 1 });
    expect(plan.coverChars).toBe(3);
    expect(plan.limitedBy).toBe('generation');
    const concurrent = planFirstChunk({ ...BASE, llmCharsPerSec: Infinity, realTimeFactor: 0.5 }, { minChars: 1 });
    expect(concurrent.coverChars).toBe(1);
  });

  it('clamps to the bounds and says when no length within them covers chunk 2', () => {
    const fast = planFirstChunk({ ...BASE, llmCharsPerSec: 10_000 });
    expect(fast).toMatchObject({ targetChars: 10, limitedBy: 'min', feasible: true });
    const slow = planFirstChunk({ ...BASE, llmCharsPerSec: 5, nextChunkChars: 200 });
    expect(slow).toMatchObject({ targetChars: 160, limitedBy: 'max', feasible: false });
    const cannotKeepUp = planFirstChunk({ ...BASE, realTimeFactor: 1.2, marginMs: 10 });
    expect(cannotKeepUp).toMatchObject({ targetChars: 160, limitedBy: 'max', feasible: false });
  });

  it('rejects estimates that would make the plan meaningless', () => {
    expect(() => planFirstChunk({ ...BASE, llmCharsPerSec: 0 })).toThrow(RangeError);
    expect(() => planFirstChunk({ ...BASE, speechMsPerChar: -1 })).toThrow(RangeError);
    expect(() => planFirstChunk({ ...BASE, nextChunkChars: Number.NaN })).toThrow(RangeError);
    expect(() => planFirstChunk(BASE, { minChars: 20, maxChars: 10 })).toThrow(RangeError);
    expect(() => planFirstChunk(BASE, { naturalCutFraction: 0 })).toThrow(RangeError);
  });
});

describe('EwmaEstimate', () => {
  it('keeps the prior until the first sample, which replaces it', () => {
    const e = new EwmaEstimate(50, 5);
    expect([e.mean, e.deviation, e.count]).toEqual([50, 5, 0]);
    e.observe(200);
    expect([e.mean, e.deviation, e.count]).toEqual([200, 20, 1]);
  });

  it('averages its first samples plainly, then weighs new ones by the gain', () => {
    const e = new EwmaEstimate(0);
    for (const x of [100, 200, 300]) e.observe(x);
    expect(e.mean).toBeCloseTo(200, 9); // (100 + 200 + 300) / 3
    e.observe(400); // fourth sample: 1/4 = the gain
    expect(e.mean).toBeCloseTo(250, 9);
    e.observe(1250); // from now on the gain (0.25), not 1/5
    expect(e.mean).toBeCloseTo(250 + 0.25 * 1000, 9);
  });

  it('converges on a steady signal and its deviation shrinks', () => {
    const e = new EwmaEstimate(10);
    for (let i = 0; i < 40; i++) e.observe(100);
    expect(e.mean).toBeCloseTo(100, 6);
    expect(e.deviation).toBeLessThan(0.1);
  });

  it('tracks spread: alternating samples keep a deviation near their half-distance', () => {
    const e = new EwmaEstimate(0);
    for (let i = 0; i < 60; i++) e.observe(i % 2 ? 80 : 120);
    expect(e.mean).toBeGreaterThan(90);
    expect(e.mean).toBeLessThan(110);
    expect(e.deviation).toBeGreaterThan(15);
    expect(e.upper(2)).toBeGreaterThan(130);
    expect(e.lower(2)).toBeLessThan(70);
  });

  it('ignores non-finite samples and bounds the pessimistic low value', () => {
    const e = new EwmaEstimate(10);
    e.observe(Number.NaN);
    e.observe(Number.POSITIVE_INFINITY);
    expect(e.count).toBe(0);
    e.observe(100);
    expect(e.lower(100, 0.5)).toBe(50);
    expect(() => new EwmaEstimate(1, 0, { gain: 2 })).toThrow(RangeError);
  });
});

describe('AdaptiveFirstChunk estimates', () => {
  const steadyTurns = (a: AdaptiveFirstChunk, llm: number, n = 30) => {
    for (let i = 0; i < n; i++) {
      a.observeLlmRate(llm);
      a.observeSpeech(65);
      a.observeFirstByte(120);
      a.observeLaterChunk(100);
    }
  };

  it('plans from the conservative priors before anything is observed', () => {
    const a = new AdaptiveFirstChunk();
    const p = DEFAULT_ADAPTIVE_OPTIONS.priors;
    const expected = planFirstChunk({
      llmCharsPerSec: p.llmCharsPerSec,
      speechMsPerChar: p.speechMsPerChar * (1 - DEFAULT_ADAPTIVE_OPTIONS.speechShortfall),
      firstByteMs: p.firstByteMs,
      realTimeFactor: p.realTimeFactor,
      nextChunkChars: p.laterChunkChars,
      sequentialProvider: false,
      marginMs: DEFAULT_ADAPTIVE_OPTIONS.guardMs,
    });
    expect(a.plan()).toEqual(expected);
    expect(a.lastPlan).toEqual(expected);
  });

  it('converges on what a steady fast LLM and voice imply, shorter than the priors', () => {
    const a = new AdaptiveFirstChunk({ speechShortfall: 0 });
    const prior = a.plan().targetChars;
    steadyTurns(a, 160);
    const plan = a.plan();
    // 100 chars at 160 c/s = 625 ms, + 40 ms guard → 665 / 65 → 11 chars; target 22.
    expect(plan.coverChars).toBe(11);
    expect(plan.targetChars).toBe(22);
    expect(plan.targetChars).toBeLessThan(prior);
  });

  it('asks for more when the LLM slows down, and for more while the first byte jitters', () => {
    const fast = new AdaptiveFirstChunk();
    steadyTurns(fast, 160);
    const slow = new AdaptiveFirstChunk();
    steadyTurns(slow, 60);
    expect(slow.plan().targetChars).toBeGreaterThan(fast.plan().targetChars);

    const jittery = new AdaptiveFirstChunk();
    steadyTurns(jittery, 160);
    for (let i = 0; i < 20; i++) jittery.observeFirstByte(i % 2 ? 60 : 400);
    expect(jittery.plan().coverChars).toBeGreaterThan(fast.plan().coverChars);
  });

  it('remembers a rare long sentence that mean plus deviations would forget, then lets it fade', () => {
    const a = new AdaptiveFirstChunk({ speechShortfall: 0 });
    for (let i = 0; i < 30; i++) {
      a.observeLlmRate(100);
      a.observeSpeech(100);
      a.observeFirstByte(100);
    }
    for (let i = 0; i < 20; i++) a.observeLaterChunk(30);
    a.observeLaterChunk(120);
    expect(a.estimates.laterChunkChars.mean + 2 * a.estimates.laterChunkChars.deviation).toBeLessThan(120);
    // (120 chars at 100 c/s + 40 ms guard) / 100 ms per char → 12.4 → 13.
    expect(a.plan().coverChars).toBe(13);
    for (let i = 0; i < 200; i++) a.observeLaterChunk(30);
    // Five half-lives later only the common length is left: (300 + 40) / 100 → 4.
    expect(a.plan().coverChars).toBe(4);
  });

  it('plans for a first chunk that speaks shorter than the average character (digits, symbols)', () => {
    const plain = new AdaptiveFirstChunk({ speechShortfall: 0 });
    const careful = new AdaptiveFirstChunk({ speechShortfall: 0.2 });
    for (const a of [plain, careful]) steadyTurns(a, 160);
    // 665 ms to cover: 65 ms per char → 11 chars; planned as 52 ms per char → 13.
    expect(plain.plan().coverChars).toBe(11);
    expect(careful.plan().coverChars).toBe(13);
  });

  it('treats a first estimate as uncertain: one sample plans longer than many equal ones', () => {
    const once = new AdaptiveFirstChunk();
    steadyTurns(once, 60, 1);
    const often = new AdaptiveFirstChunk();
    steadyTurns(often, 60, 30);
    expect(once.plan().targetChars).toBeGreaterThan(often.plan().targetChars);
  });
});

describe('AdaptiveFirstChunk from a TTS timeline', () => {
  const chunk = (text: string, start: number, end: number, reason: Chunk['reason']): Chunk => ({ text, start, end, reason });

  /** One reply: 3 chunks, first cut at a clause; rate 100 chars / 1000 ms after the cut. */
  function emitReply(timeline: EventEmitter<TimelineEvents>, streamId: string, t0: number) {
    const seg = `${streamId}_0`;
    timeline.emit('chunk', { streamId, segmentId: seg, index: 0, chunk: chunk('Sure, here', 0, 11, 'clause'), at: t0 });
    timeline.emit('sent', { streamId, segmentId: seg, track: `${streamId}-ctx`, text: 'Sure, here', at: t0 });
    timeline.emit('first_byte', { streamId, segmentId: seg, track: `${streamId}-ctx`, at: t0 + 150 });
    // The rest of the first sentence (not a sample of chunk-2 length), 40 chars in 400 ms.
    timeline.emit('chunk', { streamId, segmentId: seg, index: 1, chunk: chunk('x'.repeat(38), 11, 51, 'sentence'), at: t0 + 400 });
    // Two chunks cut by one delta: their characters count toward the same interval.
    timeline.emit('chunk', { streamId, segmentId: seg, index: 2, chunk: chunk('y'.repeat(28), 51, 81, 'sentence'), at: t0 + 1000 });
    timeline.emit('chunk', { streamId, segmentId: seg, index: 3, chunk: chunk('z'.repeat(28), 81, 111, 'end'), at: t0 + 1001 });
    timeline.emit('sent', { streamId, segmentId: seg, track: `${streamId}-ctx`, text: 'rest', at: t0 + 1001 });
  }

  it('turns chunk, send, first-byte and track events into samples', () => {
    const timeline = new EventEmitter<TimelineEvents>();
    const a = new AdaptiveFirstChunk();
    const stop = a.observe(timeline);
    emitReply(timeline, 's1', 1000);
    timeline.emit('track_done', {
      streamId: 's1',
      segmentId: 's1_0',
      track: 's1-ctx',
      chunks: [chunk('a'.repeat(50), 0, 50, 'clause'), chunk('b'.repeat(50), 50, 100, 'end')],
      startSample: 0,
      endSample: 16_000 * 7, // 7 s of audio for 100 chars
      sampleRate: 16_000,
      at: 9000,
    });

    let e = a.estimates;
    expect(e.firstByteMs).toMatchObject({ mean: 150, samples: 1 });
    expect(e.speechMsPerChar).toMatchObject({ mean: 70, samples: 1 });
    expect(e.laterChunkChars.samples).toBe(2); // chunks 2 and 3, not the rest of sentence 1
    expect(e.laterChunkChars.mean).toBeCloseTo(28, 6);
    // The multi-chunk track kept receiving text after its audio began: no real-time factor sample.
    expect(e.realTimeFactor.samples).toBe(0);
    // The LLM rate is a per-reply figure, committed when the next reply is planned.
    expect(e.llmCharsPerSec.samples).toBe(0);
    a.plan();
    e = a.estimates;
    expect(e.llmCharsPerSec.samples).toBe(1);
    expect(e.llmCharsPerSec.mean).toBeCloseTo(100, 6); // (111 − 11) chars over 1000 ms
    a.plan();
    expect(a.estimates.llmCharsPerSec.samples).toBe(1); // committed once

    stop();
    emitReply(timeline, 's2', 20_000);
    a.plan();
    expect(a.estimates.firstByteMs.samples).toBe(1);
    expect(a.estimates.llmCharsPerSec.samples).toBe(1);
  });

  it('measures the real-time factor only on a track whose text was all sent before its audio', () => {
    const timeline = new EventEmitter<TimelineEvents>();
    const a = new AdaptiveFirstChunk();
    a.observe(timeline);
    const streamId = 'one';
    timeline.emit('chunk', { streamId, segmentId: 'one_0', index: 0, chunk: chunk('Yes, that works for me.', 0, 23, 'end'), at: 0 });
    timeline.emit('sent', { streamId, segmentId: 'one_0', track: 'k', text: 'Yes, that works for me.', at: 0 });
    timeline.emit('first_byte', { streamId, segmentId: 'one_0', track: 'k', at: 100 });
    timeline.emit('track_done', {
      streamId,
      segmentId: 'one_0',
      track: 'k',
      chunks: [chunk('Yes, that works for me.', 0, 23, 'end')],
      startSample: 0,
      endSample: 24_000 * 2,
      sampleRate: 24_000,
      at: 100 + 600,
    });
    expect(a.estimates.realTimeFactor).toMatchObject({ mean: 0.3, samples: 1 });
  });
});

describe('adaptive chunking on a TTS', () => {
  let server: CartesiaServer | undefined;
  let engine: CartesiaTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    await server?.close();
    engine = undefined;
    server = undefined;
  });

  const REPLY =
    'The quarterly report shows that revenue grew by twelve percent compared to the same period last year. ' +
    'We expect the trend to continue next quarter as the new plan reaches more customers. Thanks for asking.';

  it('gives every new stream a first chunk sized by the current plan, and learns from its own turns', async () => {
    server = await startCartesiaServer({ msPerChar: 2, firstByteDelayMs: 5 });
    engine = new CartesiaTTS({
      apiKey: 'test-key',
      voice: 'voice-1',
      baseURL: server.httpUrl,
      sampleRate: 16000,
      chunking: { adaptive: { priors: { laterChunkChars: 40, llmCharsPerSec: 200, speechMsPerChar: 60 } } },
    });
    const adaptive = engine.adaptiveFirstChunk!;
    expect(adaptive).toBeDefined();
    const firstChunks: string[] = [];
    engine.timeline.on('chunk', (e) => {
      if (e.index === 0) firstChunks.push(e.chunk.text);
    });

    const plans: number[] = [];
    for (let turn = 0; turn < 2; turn++) {
      const stream = engine.stream();
      plans.push(adaptive.lastPlan!.targetChars);
      speak(stream, tokens(REPLY));
      const out = await collect(stream);
      expect(out.endOfStream).toBe(true);
    }
    // No clause in the first sentence: the first chunk is cut at a word boundary past the target,
    // or at the sentence end once it holds half the target.
    expect(firstChunks).toHaveLength(2);
    for (const [i, text] of firstChunks.entries()) {
      expect(text.length).toBeGreaterThanOrEqual(Math.ceil(plans[i]! / 2));
      expect(text.length).toBeLessThan(plans[i]! + 12);
      expect(REPLY.startsWith(text)).toBe(true);
    }
    const e = adaptive.estimates;
    expect(e.firstByteMs.samples).toBe(2);
    expect(e.speechMsPerChar.samples).toBeGreaterThanOrEqual(1);
    // The local server makes 2 ms of audio per character (plus the codec's separating spaces).
    expect(e.speechMsPerChar.mean).toBeGreaterThan(1.5);
    expect(e.speechMsPerChar.mean).toBeLessThan(2.5);
    // Very short speech per character: nothing short covers chunk 2, so the plan grew from the priors.
    expect(plans[1]).toBeGreaterThan(plans[0]!);
  });

  it('leaves the first chunk alone when adaptive is off', () => {
    engine = new CartesiaTTS({ apiKey: 'test-key', voice: 'voice-1', baseURL: 'http://127.0.0.1:9' });
    expect(engine.adaptiveFirstChunk).toBeUndefined();
  });
});
