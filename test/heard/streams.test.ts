/** The stream helpers of src/heard: ending on interruption, timed words respelled, the tracker. */
import { voice } from '@livekit/agents';
import { ReadableStream } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { type Chunk, createChunker } from '@firstword/agents-plugin-tts/chunking';
import { type Interruptible, ReplyTracker, respellTimedWords, untilInterrupted } from '../../src/heard/index.js';
import { StreamTimeline } from '@firstword/agents-plugin-tts';
import { withTimeout } from '../helpers/async.js';

class FakeSpeech implements Interruptible {
  interrupted = false;
  #interrupt!: () => void;
  readonly #interruptedFut = new Promise<void>((resolve) => (this.#interrupt = resolve));

  interrupt(): void {
    this.interrupted = true;
    this.#interrupt();
  }

  waitIfNotInterrupted(aw: Promise<unknown>[]): Promise<void> {
    return Promise.race([Promise.all(aw).then(() => undefined), this.#interruptedFut]);
  }
}

/** A source that yields `items` and then stays open forever, like the framework's timings stream. */
function neverEnding<T>(items: T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
    },
  });
}

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

describe('untilInterrupted', () => {
  it('ends a stream whose writer never closes as soon as the speech is interrupted', async () => {
    const speech = new FakeSpeech();
    let stops = 0;
    const stream = untilInterrupted(neverEnding(['a', 'b']), speech, () => stops++);
    const reader = stream.getReader();
    expect(await reader.read()).toEqual({ done: false, value: 'a' });
    expect(await reader.read()).toEqual({ done: false, value: 'b' });
    const pending = reader.read();
    speech.interrupt();
    expect(await withTimeout(pending, 1_000, 'the stream to end')).toEqual({ done: true, value: undefined });
    expect(stops).toBe(1);
  });

  it('passes a source through untouched and never reports an interruption when it ends first', async () => {
    const speech = new FakeSpeech();
    let stops = 0;
    const source = new ReadableStream<string>({
      start(controller) {
        controller.enqueue('x');
        controller.enqueue('y');
        controller.close();
      },
    });
    expect(await withTimeout(readAll(untilInterrupted(source, speech, () => stops++)), 1_000, 'the stream')).toEqual(['x', 'y']);
    speech.interrupt();
    await new Promise((resolve) => setImmediate(resolve));
    expect(stops).toBe(0);
  });
});

function chunksOf(reply: string): Chunk[] {
  const chunker = createChunker({});
  return [...chunker.push(reply), ...chunker.end()];
}

/** A tracker that has seen `reply` and its chunks on stream `s1`, as the TTS node would. */
function trackerFor(reply: string, timeline = new StreamTimeline('s1')): ReplyTracker {
  const tracker = new ReplyTracker(1000);
  tracker.follow(timeline);
  tracker.appendReply(reply);
  chunksOf(reply).forEach((chunk, index) => timeline.emit('chunk', { streamId: 's1', segmentId: 's1_0', index, chunk, at: 0 }));
  return tracker;
}

describe('respellTimedWords', () => {
  it("gives each timed word the reply's own text, so the words join into exactly the reply", async () => {
    const reply = 'Of course, **go** ahead. 3 things first.';
    const tracker = trackerFor(reply);
    // The provider's words, cut where frames fell and spelled its way.
    const words = ['Of ', 'co ', 'urse, ', 'go ', 'ahea ', 'd. ', '3 ', 'things '];
    const timed = words.map((text, i) => voice.createTimedString({ text, startTime: i / 10, endTime: (i + 1) / 10 }));
    const source = new ReadableStream<string | voice.TimedString>({
      start(controller) {
        for (const t of timed) controller.enqueue(t);
        controller.close();
      },
    });
    const out = await withTimeout(readAll(source.pipeThrough(respellTimedWords(tracker))), 1_000, 'respelled words');
    const text = out.map((item) => (voice.isTimedString(item) ? item.text : item));
    expect(text.join('')).toBe(reply);
    expect(text.slice(0, 4)).toEqual(['Of', ' co', 'urse,', ' **go**']);
    const times = out.filter(voice.isTimedString).map((t) => [t.startTime, t.endTime]);
    expect(times).toEqual(timed.map((t) => [t.startTime, t.endTime]));
  });

  it('leaves plain text (no aligned transcripts) alone', async () => {
    const tracker = trackerFor('Hello there.');
    const source = new ReadableStream<string | voice.TimedString>({
      start(controller) {
        controller.enqueue('Hello ');
        controller.enqueue('there.');
        controller.close();
      },
    });
    expect(await readAll(source.pipeThrough(respellTimedWords(tracker)))).toEqual(['Hello ', 'there.']);
  });
});

describe('ReplyTracker', () => {
  it("builds spans from its own stream's finished tracks and one open span for the rest", () => {
    const timeline = new StreamTimeline('s1');
    const other = new StreamTimeline('other');
    const reply = 'First sentence is here. Second one follows now. Third closes it.';
    const tracker = trackerFor(reply, timeline);
    const chunks = tracker.chunks;
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    const done = (streamId: string, c: Chunk[], startSample: number, endSample: number) =>
      (streamId === 's1' ? timeline : other).emit('track_done', { streamId, segmentId: `${streamId}_0`, track: 't', chunks: c, startSample, endSample, sampleRate: 1000, at: 0 });
    done('other', [chunks[0]!], 0, 999); // another stream's track, on its own timeline, never reaches it
    done('s1', [chunks[0]!], 0, 100);
    done('s1', [], 100, 150); // the rest of a chunk split at the provider's limit
    const spans = tracker.spans();
    expect(spans[0]).toEqual({ chunks: [chunks[0]], startSample: 0, endSample: 150 });
    expect(spans[1]).toEqual({ chunks: chunks.slice(1), startSample: 150 });

    tracker.unfollow();
    done('s1', [chunks[1]!], 150, 300);
    expect(tracker.spans()).toHaveLength(2); // no longer listening
  });

  it('stops its stream once, when asked', () => {
    const tracker = new ReplyTracker(1000);
    let stops = 0;
    tracker.onStop = () => stops++;
    tracker.stop();
    tracker.stop();
    expect(stops).toBe(1);
  });
});
