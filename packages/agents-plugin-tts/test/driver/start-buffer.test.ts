/**
 * The jitter buffer before a stream's first frame (src/driver/start-buffer.ts, wired in playout.ts):
 * it holds frames until enough audio is in hand or its deadline passes, never loses or reorders
 * one, and lets nothing out after a barge-in. Timing is driven by vitest's fake clock.
 */
import type { tts } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { AudioSink } from '../../src/driver/audio-sink.js';
import { OrderedPlayout } from '../../src/driver/playout.js';
import { StartBuffer } from '../../src/driver/start-buffer.js';
import { type Segment, TrackBook } from '../../src/driver/track.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, speak, tokens, everyStream } from './harness.js';

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
    const sink = new AudioSink({ sampleRate: RATE, frameMs: (320 * 1000) / RATE, maxFrameMs: (320 * 1000) / RATE, startBufferMs: 60 }, (a) => put.push(a));
    const playout = new OrderedPlayout(sink, { trackDone: () => {} });
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
    everyStream(engine).on('first_byte', (e) => firstBytes.push(e.streamId));
    const stream = engine.stream();
    speak(stream, tokens('This reply is interrupted before its buffer fills.'));
    while (firstBytes.length === 0) await new Promise((r) => setTimeout(r, 5));
    stream.close();
    const out = await collect(stream, 3000).catch(() => ({ frames: [] as tts.SynthesizedAudio[] }));
    expect(out.frames).toEqual([]);
  });

  /** Frames the stream has in hand the moment its first frame comes out. */
  async function framesAtFirst(text: string): Promise<number> {
    const stream = engine!.stream();
    speak(stream, [text]);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    let inHand = 1;
    const tick = Symbol('tick');
    for (;;) {
      const next = await Promise.race([iterator.next(), new Promise<typeof tick>((r) => setImmediate(() => r(tick)))]);
      if (next === tick || next.done) break;
      inHand++;
    }
    // Drained to the end, so that the whole reply's delivery is seen.
    for (;;) if ((await iterator.next()).done) break;
    return inHand;
  }

  it('the default: smooth delivery gets no buffer, reply after reply', async () => {
    // Audio in real time, a 20 ms frame at a time: without a buffer the stream has one frame in hand.
    fx = await fixtures[name]({ realTimeFactor: 1, frameBytes: 640, msPerChar: 10 } as Record<string, unknown>);
    engine = fx.make({ chunking: { policy: 'unit' } });
    expect(await framesAtFirst('Sure, the order left the warehouse this morning.')).toBeLessThan(5);
    expect(await framesAtFirst('It arrives tomorrow before noon.')).toBeLessThan(5);
  });

  it(`the default after bursts: ${name === 'resemble' ? 'the next reply gathers 600 ms before its first frame' : 'still no buffer (Cartesia declares none)'}`, async () => {
    const pacing = name === 'resemble' ? { burst: { audioMs: 200, gapMs: 400 }, realTimeFactor: 1 } : { jitterMs: 0, realTimeFactor: 1 };
    fx = await fixtures[name]({ ...pacing, frameBytes: 640, msPerChar: 10 } as Record<string, unknown>);
    engine = fx.make({ chunking: { policy: 'unit' } });
    // The first reply meets the bursts unbuffered: nothing was seen yet.
    expect(await framesAtFirst('Sure, the order left the warehouse this morning and arrives tomorrow.')).toBeLessThan(5);
    const second = await framesAtFirst('It arrives tomorrow before noon, at the front desk of your building.');
    // Held up to its 600 ms deadline: the first burst (200 ms, 10 frames) is all in hand at once,
    // where an unbuffered stream has one frame.
    if (name === 'resemble') expect(second).toBeGreaterThanOrEqual(8);
    else expect(second).toBeLessThan(5);
  });

  it('refuses a startBufferMs outside 0-2000 ms', async () => {
    fx = await fixtures[name]();
    for (const bad of [-1, 2001, Number.NaN]) expect(() => fx.make({ startBufferMs: bad })).toThrow(/startBufferMs/);
  });
});
