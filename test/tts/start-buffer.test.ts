/**
 * The jitter buffer before a stream's first frame (src/tts/start-buffer.ts, wired in playout.ts):
 * it holds frames until enough audio is in hand or its deadline passes, never loses or reorders
 * one, and lets nothing out after a barge-in. Timing is driven by vitest's fake clock.
 */
import type { tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FirstwordTTS } from '../../src/tts/base.js';
import { OrderedPlayout } from '../../src/tts/playout.js';
import { StartBuffer } from '../../src/tts/start-buffer.js';
import { type Segment, TrackBook } from '../../src/tts/track.js';
import { samplesForText } from '../servers/audio-tag.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, speak, tokens } from './harness.js';

const RATE = 16000;
const frameOf = (ms: number, i: number, final = false): tts.SynthesizedAudio => ({
  requestId: String(i),
  segmentId: 's',
  frame: new AudioFrame(new Int16Array((RATE * ms) / 1000).fill(i), RATE, 1, (RATE * ms) / 1000),
  final,
});

describe('StartBuffer', () => {
  afterEach(() => vi.useRealTimers());

  it('holds frames until holdMs of audio is in hand, then sends them all and passes later ones through', () => {
    const out: number[] = [];
    const buffer = new StartBuffer(100, (a) => out.push(Number(a.requestId)));
    for (let i = 0; i < 4; i++) buffer.put(frameOf(20, i));
    expect(out).toEqual([]);
    buffer.put(frameOf(20, 4)); // 100 ms in hand
    expect(out).toEqual([0, 1, 2, 3, 4]);
    buffer.put(frameOf(20, 5));
    expect(out).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('lets the held frames go when holdMs has passed since the first, however little audio came', () => {
    vi.useFakeTimers();
    const out: number[] = [];
    const buffer = new StartBuffer(300, (a) => out.push(Number(a.requestId)));
    buffer.put(frameOf(20, 0));
    vi.advanceTimersByTime(200);
    buffer.put(frameOf(20, 1));
    vi.advanceTimersByTime(99);
    expect(out).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out).toEqual([0, 1]);
  });

  it('a final frame (the segment is complete) releases at once; drop() loses what is held', () => {
    const out: number[] = [];
    const released = new StartBuffer(1000, (a) => out.push(Number(a.requestId)));
    released.put(frameOf(20, 0));
    released.put(frameOf(20, 1, true));
    expect(out).toEqual([0, 1]);
    const dropped = new StartBuffer(1000, (a) => out.push(Number(a.requestId)));
    dropped.put(frameOf(20, 7));
    dropped.drop();
    dropped.put(frameOf(20, 8));
    expect(out).toEqual([0, 1, 8]);
  });

  it('0 passes every frame straight through', () => {
    const out: number[] = [];
    const buffer = new StartBuffer(0, (a) => out.push(Number(a.requestId)));
    buffer.put(frameOf(20, 3));
    expect(out).toEqual([3]);
  });
});

describe('OrderedPlayout with a start buffer', () => {
  it('holds the first frames of the stream, not those after the buffer opened', () => {
    const put: tts.SynthesizedAudio[] = [];
    const playout = new OrderedPlayout(RATE, 320, { put: (a) => put.push(a), trackDone: () => {} }, { startBufferMs: 60 });
    const book = new TrackBook(((n) => () => String(++n))(0));
    const segment: Segment = { id: 's', tracks: [], closed: false, heldOpener: '' };
    const track = book.create(segment, true);
    segment.tracks.push(track);
    playout.add(track);
    const ms = (n: number) => Buffer.alloc((RATE * n * 2) / 1000, 1);
    playout.accept(track, ms(40)); // two 20 ms frames: held
    expect(put).toHaveLength(0);
    playout.accept(track, ms(20)); // 60 ms in hand: all three go out
    expect(put).toHaveLength(3);
    playout.accept(track, ms(20)); // straight through
    expect(put).toHaveLength(4);
  });
});

describe.each(['resemble', 'cartesia'] as const)('%s with a start buffer', (name) => {
  let fx: ProviderFixture;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });

  it('plays a bursty reply whole, once, in order', async () => {
    const pacing = name === 'resemble' ? { burst: { audioMs: 100, gapMs: 30 }, realTimeFactor: 0.1 } : { jitterMs: 30 };
    fx = await fixtures[name]({ ...pacing, frameBytes: 640 } as Record<string, unknown>);
    engine = fx.make({ startBufferMs: 150 });
    const sent = recordSent(engine);
    const stream = engine.stream();
    speak(stream, tokens('Sure, the order left this morning. It arrives tomorrow before noon.'));
    const out = await collect(stream);
    expect(out.endOfStream).toBe(true);
    const texts = sent.get(stream.id)!;
    expect(heardTags(out.samples)).toEqual(texts.map((t) => ({ tag: fx.tagOf(t), samples: samplesForText(fx.wireText(t), RATE, 2) })));
    expect(out.frames.filter((f) => f.final)).toHaveLength(1);
  });

  it('a barge-in while frames are held lets none of them out', async () => {
    fx = await fixtures[name]({ realTimeFactor: 1, frameBytes: 640 } as Record<string, unknown>);
    engine = fx.make({ startBufferMs: 2000 });
    const firstBytes: string[] = [];
    engine.timeline.on('first_byte', (e) => firstBytes.push(e.streamId));
    const stream = engine.stream();
    speak(stream, tokens('This reply is interrupted before its buffer fills.'));
    while (firstBytes.length === 0) await new Promise((r) => setTimeout(r, 5));
    stream.close();
    const out = await collect(stream, 3000).catch(() => ({ frames: [] as tts.SynthesizedAudio[] }));
    expect(out.frames).toEqual([]);
  });

  it(`the default: ${name === 'resemble' ? 'the first 600 ms of audio come out together' : 'frames come out as they arrive'}`, async () => {
    // Audio in real time, a 20 ms frame at a time: without a buffer the stream has one frame in
    // hand at a time; with one, the whole buffer is there the moment the first frame is.
    fx = await fixtures[name]({ realTimeFactor: 1, frameBytes: 640, msPerChar: 30 } as Record<string, unknown>);
    engine = fx.make({ chunking: { policy: 'unit' } });
    const stream = engine.stream();
    speak(stream, ['Sure, the order left the warehouse this morning and arrives tomorrow before noon.']);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    let inHand = 1;
    const tick = Symbol('tick');
    for (;;) {
      const next = await Promise.race([iterator.next(), new Promise<typeof tick>((r) => setImmediate(() => r(tick)))]);
      if (next === tick || next.done) break;
      inHand++;
    }
    stream.close();
    // 600 ms of audio arrive in ~600 ms, as long as the buffer's deadline: a late timer may let go a
    // few frames short of it.
    if (name === 'resemble') expect(inHand).toBeGreaterThanOrEqual(400 / 20);
    else expect(inHand).toBeLessThan(5);
  });

  it('refuses a startBufferMs outside 0-2000 ms', async () => {
    fx = await fixtures[name]();
    for (const bad of [-1, 2001, Number.NaN]) expect(() => fx.make({ startBufferMs: bad })).toThrow(/startBufferMs/);
  });
});
