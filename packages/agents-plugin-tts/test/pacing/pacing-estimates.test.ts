import { initializeLogger } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { type Chunk, sanitizeForSpeech } from '../../src/chunking/index.js';
import { createPacedChunker } from '../../src/pacing/paced-chunker.js';
import { PacingEstimates, ReplyTokens } from '../../src/pacing/pacing-estimates.js';
import { pacingShape } from '../../src/protocol/codec.js';
import { CartesiaTTS, ResembleTTS } from '../../src/index.js';
import type { TimelineEvents } from '../../src/driver/timeline.js';
import { observeStream } from '../../src/driver/timeline-observer.js';
import { type CartesiaServer, startCartesiaServer } from '../../../../test/servers/cartesia-server.js';
import { collect, speak, tokens, everyStream } from '../driver/harness.js';

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
  it('measures the pace as a line through the arrivals, and lateness as the spread around it', () => {
    const steady = replyTokens([100, 100, 100, 100, 100]);
    expect(steady.gaps).toBe(5);
    expect(steady.gapMean).toBeCloseTo(100, 9);
    expect(steady.lateness).toBeCloseTo(0, 9);
    expect(steady.tokens).toBe(6);
    expect(steady.words).toBe(6);
  });

  it('keeps the pace through a stall and the burst after it; the stall shows as lateness', () => {
    // Tokens due every 100 ms; 3 and 4 held back by a 300 ms stall, then delivered with 5.
    const bunched = new ReplyTokens();
    for (const at of [0, 100, 200, 500, 500, 500, 600, 700]) bunched.add(at, 'abc ');
    expect(bunched.gapMean).toBeGreaterThan(95);
    expect(bunched.gapMean).toBeLessThan(115);
    expect(bunched.lateness).toBeGreaterThan(0.3);
    expect(bunched.lateness).toBeLessThan(1.5);
  });
});

describe('PacingEstimates', () => {
  it('plans from the priors before any reply, slow and late', () => {
    const f = new PacingEstimates().planFigures(new ReplyTokens());
    expect(f.tokenGapMs).toBe(100);
    expect(f.latenessMs).toBeCloseTo(100 * 2 * 0.5, 9);
    expect(f.speechMsPerChar).toBeCloseTo(70 * 0.85, 9);
    expect(f.marginMs).toBe(40);
  });

  it('lets this reply\'s own tokens move the plan within a few tokens, the earlier replies as the prior', () => {
    const e = new PacingEstimates({ priors: { tokenGapMs: 25, lateness: 0 } });
    const planned = (gaps: number) => e.planFigures(replyTokens(Array(gaps).fill(100))).tokenGapMs;
    // One 100 ms gap against four of the prior's 25 ms: (4 · 25 + 100) / 5 = 40 ms.
    expect(planned(1)).toBeCloseTo(40, 9);
    expect(planned(12)).toBeCloseTo((4 * 25 + 12 * 100) / 16, 9);
  });

  it('plans a jittered LLM later than a steady one of the same pace', () => {
    const e = new PacingEstimates({ priors: { tokenGapMs: 67, lateness: 0 } });
    const steady = e.planFigures(replyTokens(Array(20).fill(67)));
    const jittered = e.planFigures(replyTokens(Array.from({ length: 20 }, (_, i) => (i % 4 < 2 ? 34 : 100))));
    expect(jittered.tokenGapMs).toBeCloseTo(steady.tokenGapMs, 0);
    expect(jittered.latenessMs).toBeGreaterThan(steady.latenessMs * 1.3);
  });

  it('learns the LLM from finished replies, and plans sentences a little longer than most', () => {
    const e = new PacingEstimates();
    e.observeReply(replyTokens([30, 30])); // too short to say anything
    expect(e.estimates.tokenGapMs.samples).toBe(0);
    for (let i = 0; i < 10; i++) e.observeReply(replyTokens(Array(30).fill(25)));
    expect(e.estimates.tokenGapMs.mean).toBeCloseTo(25, 6);
    expect(e.estimates.charsPerToken.mean).toBeCloseTo(4, 6);
    e.observeSentence(5);
    // One short sentence barely moves the prior (90): it weighs like 4 sentences.
    expect(e.planFigures(new ReplyTokens()).sentenceChars).toBeGreaterThan(70);
    for (let i = 0; i < 40; i++) e.observeSentence(i % 2 ? 20 : 60);
    const planned = e.planFigures(new ReplyTokens()).sentenceChars;
    expect(planned).toBeGreaterThan(60);
    expect(planned).toBeLessThan(90);
  });

  it('rejects settings that would make the plan meaningless', () => {
    expect(() => new PacingEstimates({ guardMs: Number.NaN })).toThrow(RangeError);
    expect(() => new PacingEstimates({ priors: { tokenGapMs: 0 } })).toThrow(RangeError);
  });
});

describe('PacingEstimates from a TTS timeline', () => {
  const chunk = (text: string, reason: Chunk['reason']): Chunk => ({ text, start: 0, end: text.length, reason });

  it('takes the first byte, speech per character of text read as written, and real-time factor', () => {
    const timeline = new EventEmitter<TimelineEvents>();
    const e = new PacingEstimates();
    const stop = observeStream(e, timeline);
    const at = 1000;
    timeline.emit('chunk', { streamId: 's', segmentId: 's_0', index: 0, chunk: chunk('a'.repeat(50), 'clause'), at });
    timeline.emit('sent', { streamId: 's', segmentId: 's_0', track: 'k', text: 'a'.repeat(50), at });
    timeline.emit('first_byte', { streamId: 's', segmentId: 's_0', track: 'k', at: at + 150 });
    timeline.emit('sent', { streamId: 's', segmentId: 's_0', track: 'k', text: 'b'.repeat(50), at: at + 400 });
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
    // The track kept receiving text after its audio began: no real-time factor sample.
    expect(v.realTimeFactor.samples).toBe(0);
    // Text read in spoken form ("$5" → "five dollars") speaks longer than its characters: no sample.
    const spoken = chunk('It is $5 now.', 'end');
    const other = new EventEmitter<TimelineEvents>();
    const stopOther = observeStream(e, other);
    other.emit('chunk', { streamId: 't', segmentId: 't_0', index: 0, chunk: spoken, at });
    other.emit('sent', { streamId: 't', segmentId: 't_0', track: 'm', text: 'It is five dollars now.', at });
    other.emit('track_done', { streamId: 't', segmentId: 't_0', track: 'm', chunks: [spoken], startSample: 0, endSample: 16_000, sampleRate: 16_000, at: 9000 });
    expect(e.estimates.speechMsPerChar.samples).toBe(1);
    stopOther();
    stop();
    timeline.emit('first_byte', { streamId: 's', segmentId: 's_0', track: 'k2', at: at + 900 });
    expect(e.estimates.firstByteMs.samples).toBe(1);
  });

  it('learns sentences from the text, whatever the pacer cut, once the reply is over', () => {
    const e = new PacingEstimates();
    let clock = 0;
    const chunker = createPacedChunker({}, { shape: { continuation: true, sequential: false }, estimates: e, now: () => (clock += 50) });
    for (const token of tokens('Sure. The meeting has been moved to Thursday. Bye now.')) chunker.push(token);
    expect(e.estimates.sentenceChars.samples).toBe(0);
    chunker.end();
    expect(e.estimates.sentenceChars.samples).toBe(3);
    expect(e.estimates.sentenceChars.mean).toBeCloseTo((5 + 39 + 8) / 3, 9);
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
    everyStream(engine).on('pacing', (e) => reports.push(e));
    everyStream(engine).on('chunk', (e) => texts.push(e.chunk.text));
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
