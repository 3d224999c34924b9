import { initializeLogger } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { type Chunk, sanitizeForSpeech } from '../../src/chunking/index.js';
import { PacingEstimates, ReplyTokens } from '../../src/latency/pacing-estimates.js';
import { pacingShape } from '../../src/tts/codec.js';
import { CartesiaTTS, ResembleTTS } from '../../src/tts/index.js';
import type { TimelineEvents } from '../../src/tts/timeline.js';
import { type CartesiaServer, startCartesiaServer } from '../servers/cartesia-server.js';
import { collect, speak, tokens } from '../tts/harness.js';

initializeLogger({ pretty: false, level: 'warn' });

/** A reply's tokens: `gaps` ms apart (the first at 0), each `text`. */
function replyTokens(gaps: readonly number[], text = 'abc '): ReplyTokens {
  const t = new ReplyTokens();
  let at = 0;
  t.add(at, text);
  for (const gap of gaps) t.add((at += gap), text);
  return t;
}

describe('ReplyTokens', () => {
  it('measures gaps, their spread, characters and words; a burst of deltas is one token of time', () => {
    const t = replyTokens([100, 100, 100, 0, 100]);
    expect(t.gaps).toBe(4);
    expect(t.gapMean).toBe(100);
    expect(t.gapJitter).toBe(0);
    expect(t.tokens).toBe(6);
    expect(t.words).toBe(6);
    const jittered = replyTokens([50, 150, 50, 150]);
    expect(jittered.gapMean).toBe(100);
    expect(jittered.gapJitter).toBeCloseTo(Math.sqrt((4 * 2500) / 3) / 100, 9);
  });
});

describe('PacingEstimates', () => {
  it('plans from the priors before any reply, slow and spread out', () => {
    const f = new PacingEstimates().planFigures(new ReplyTokens());
    expect(f.tokenGapMs).toBeCloseTo(100 * (1 + 2 * 0.25), 9);
    expect(f.speechMsPerChar).toBeCloseTo(70 * 0.85, 9);
    expect(f.marginMs).toBe(40);
  });

  it('lets this reply\'s own tokens move the plan within a few tokens, the earlier replies as the prior', () => {
    const e = new PacingEstimates({ priors: { tokenGapMs: 25, gapJitter: 0 } });
    const planned = (gaps: number) => e.planFigures(replyTokens(Array(gaps).fill(100))).tokenGapMs;
    // One 100 ms gap against four of prior 25 ms: (4 · 25 + 100) / 5 = 40 ms, ×1.2 for the jitter floor.
    expect(planned(1)).toBeCloseTo(40 * 1.2, 9);
    expect(planned(12)).toBeCloseTo(((4 * 25 + 12 * 100) / 16) * 1.2, 9);
    expect(planned(12)).toBeGreaterThan(planned(1));
  });

  it('plans a jittered LLM with longer gaps than a steady one of the same mean', () => {
    const e = new PacingEstimates({ priors: { tokenGapMs: 67, gapJitter: 0 } });
    const steady = e.planFigures(replyTokens(Array(20).fill(67))).tokenGapMs;
    const jittered = e.planFigures(replyTokens(Array.from({ length: 20 }, (_, i) => (i % 2 ? 34 : 100)))).tokenGapMs;
    expect(jittered).toBeGreaterThan(steady * 1.3);
  });

  it('learns the LLM from finished replies, and remembers a rare long sentence', () => {
    const e = new PacingEstimates();
    e.observeReply(replyTokens([30, 30])); // too short to say anything
    expect(e.estimates.tokenGapMs.samples).toBe(0);
    for (let i = 0; i < 10; i++) e.observeReply(replyTokens(Array(30).fill(25)));
    expect(e.estimates.tokenGapMs.mean).toBeCloseTo(25, 6);
    expect(e.estimates.charsPerToken.mean).toBeCloseTo(4, 6);
    for (let i = 0; i < 20; i++) e.observeSentence(40);
    e.observeSentence(200);
    for (let i = 0; i < 5; i++) e.observeSentence(40);
    expect(e.planFigures(new ReplyTokens()).sentenceChars).toBeGreaterThan(150);
  });

  it('rejects settings that would make the plan meaningless', () => {
    expect(() => new PacingEstimates({ guardMs: Number.NaN })).toThrow(RangeError);
    expect(() => new PacingEstimates({ priors: { tokenGapMs: 0 } })).toThrow(RangeError);
  });
});

describe('PacingEstimates from a TTS timeline', () => {
  const chunk = (text: string, reason: Chunk['reason']): Chunk => ({ text, start: 0, end: text.length, reason });

  it('takes the first byte, speech per character, real-time factor and sentence lengths', () => {
    const timeline = new EventEmitter<TimelineEvents>();
    const e = new PacingEstimates();
    const stop = e.observe(timeline);
    const at = 1000;
    const emitChunk = (index: number, c: Chunk) => timeline.emit('chunk', { streamId: 's', segmentId: 's_0', index, chunk: c, at });
    emitChunk(0, chunk('Sure.', 'sentence'));
    timeline.emit('sent', { streamId: 's', segmentId: 's_0', track: 'k', text: 'Sure.', at });
    timeline.emit('first_byte', { streamId: 's', segmentId: 's_0', track: 'k', at: at + 150 });
    // A sentence cut early by the pacer counts as one sentence of 10 + 1 + 9 characters.
    emitChunk(1, chunk('x'.repeat(10), 'word'));
    emitChunk(2, chunk('y'.repeat(9), 'sentence'));
    timeline.emit('sent', { streamId: 's', segmentId: 's_0', track: 'k', text: 'rest', at: at + 400 });
    timeline.emit('track_done', {
      streamId: 's',
      segmentId: 's_0',
      track: 'k',
      chunks: [chunk('a'.repeat(50), 'clause'), chunk('b'.repeat(50), 'end')],
      startSample: 0,
      endSample: 16_000 * 7,
      sampleRate: 16_000,
      at: 9000,
    });
    const v = e.estimates;
    expect(v.firstByteMs).toMatchObject({ mean: 150, samples: 1 });
    expect(v.speechMsPerChar).toMatchObject({ mean: 70, samples: 1 });
    expect(v.sentenceChars.samples).toBe(2);
    expect(v.longestSentenceChars).toBe(20);
    // The track kept receiving text after its audio began: no real-time factor sample.
    expect(v.realTimeFactor.samples).toBe(0);
    stop();
    emitChunk(0, chunk('More.', 'sentence'));
    expect(e.estimates.sentenceChars.samples).toBe(2);
  });
});

describe('pacing on a TTS', () => {
  let server: CartesiaServer | undefined;
  let engine: CartesiaTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    await server?.close();
    engine = undefined;
    server = undefined;
  });

  const REPLY = 'Sure, here it is. The quarterly report shows that revenue grew by twelve percent. Thanks for asking.';

  it('is on by default: every reply reports its first chunk, all text is voiced once, and the TTS learns', async () => {
    server = await startCartesiaServer({ msPerChar: 2, firstByteDelayMs: 5 });
    engine = new CartesiaTTS({ apiKey: 'test-key', voice: 'voice-1', baseURL: server.httpUrl, sampleRate: 16000 });
    const reports: TimelineEvents['pacing'][0][] = [];
    const texts: string[] = [];
    engine.timeline.on('pacing', (e) => reports.push(e));
    engine.timeline.on('chunk', (e) => texts.push(e.chunk.text));
    for (let turn = 0; turn < 2; turn++) {
      const stream = engine.stream();
      speak(stream, tokens(REPLY));
      expect((await collect(stream)).endOfStream).toBe(true);
    }
    expect(reports).toHaveLength(2);
    expect(REPLY.startsWith(texts[0]!)).toBe(true);
    expect(texts.join(' ')).toBe(`${sanitizeForSpeech(REPLY)} ${sanitizeForSpeech(REPLY)}`);
    const v = engine.pacingEstimates!.estimates;
    expect(v.firstByteMs.samples).toBe(2);
    expect(v.sentenceChars.samples).toBeGreaterThanOrEqual(4);
  });

  it('is off with `pacing: false` and for the sentence and unit policies', () => {
    const base = { apiKey: 'test-key', voice: 'voice-1', baseURL: 'http://127.0.0.1:9' };
    engine = new CartesiaTTS({ ...base, chunking: { pacing: false } });
    expect(engine.pacingEstimates).toBeUndefined();
    expect(new CartesiaTTS({ ...base, chunking: { policy: 'sentence' } }).pacingEstimates).toBeUndefined();
    expect(new CartesiaTTS(base).pacingEstimates).toBeDefined();
  });

  it('plans with what each codec declares: Cartesia continues a context, Resemble starts cold, in order', () => {
    expect(pacingShape({ tracks: 'context', ordering: 'multiplexed' })).toEqual({ continuation: true, sequential: false });
    expect(pacingShape({ tracks: 'request', ordering: 'in-order' })).toEqual({ continuation: false, sequential: true });
    const resemble = new ResembleTTS({ apiKey: 'k', voiceUuid: 'v', baseURL: 'ws://127.0.0.1:9' });
    expect(resemble.pacingEstimates).toBeDefined();
  });
});
