/**
 * Retries resume where the failed attempt left off: what ended is kept, only unfinished tracks go
 * out again, played audio is skipped, and words already heard are not timed twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, speak, tokens } from './harness.js';

const REPLY = 'Sure, I can help with that. The store opens at nine in the morning on weekdays. On weekends it opens an hour later, at ten.';

describe('retries after a dropped socket', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  // With an interleaving server a later request can finish before an earlier one. When the socket
  // then drops, the ended-but-unplayed track keeps its buffered audio; only unfinished tracks are
  // sent again, and what already played is skipped.
  it('resemble (interleaved): a request that ended before the drop is kept; every text heard once, in order', async () => {
    let faulted = false;
    fx = await fixtures.resemble({
      interleave: true,
      frameBytes: 200,
      realTimeFactor: 0.3,
      // The longest request (the 3rd: "Sure," goes alone) drops after all its audio, before its
      // audio_end: by then the shorter 4th request, streamed concurrently, has ended but cannot play yet.
      fault: (_r: unknown, i: number) =>
        i === 2 && !faulted ? ((faulted = true), { kind: 'terminate-mid-request', afterBytes: Infinity }) : undefined,
    } as Record<string, unknown>);
    // The eager first-clause rule, so that the requests are exactly "Sure," and three sentences.
    engine = fx.make({ speech: false, chunking: { pacing: false } });
    const sent = recordSent(engine);
    const stream = engine.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
    speak(stream, tokens(REPLY));
    const out = await collect(stream);
    const texts = [...new Set(sent.get(stream.id))];
    expect(faulted).toBe(true);
    expect(texts).toHaveLength(4);
    // Only the dropped request went out again; the ended one was kept, not re-synthesized.
    expect(sent.get(stream.id)).toEqual([...texts, texts[2]]);
    expect(out.endOfStream).toBe(true);
    expect(heardTags(out.samples)).toEqual(texts.map((t) => ({ tag: fx!.tagOf(t), samples: samplesForText(t, 16000, 2) })));
  });

  // A flushed (two-segment) Cartesia reply survives a socket drop in its second segment: each
  // segment's text heard once, and exactly one `final` per segment.
  it('cartesia: a two-segment reply survives a drop in segment 2; one final frame per segment', async () => {
    let faulted = false;
    fx = await fixtures.cartesia({
      frameBytes: 200,
      realTimeFactor: 0.3,
      fault: (c: { transcript: string }) =>
        c.transcript.includes('weekdays') && !faulted ? ((faulted = true), { kind: 'terminate', afterBytes: 1000 }) : undefined,
    } as Record<string, unknown>);
    engine = fx.make({ speech: false });
    const sent = recordSent(engine);
    const stream = engine.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
    for (const t of tokens('Sure, I can help with that. ')) stream.pushText(t);
    stream.flush();
    for (const t of tokens('The store opens at nine in the morning on weekdays. On weekends it opens an hour later, at ten.')) stream.pushText(t);
    stream.endInput();
    const out = await collect(stream);
    const texts = [...new Set(sent.get(stream.id))];
    expect(faulted).toBe(true);
    expect(heardTags(out.samples)).toEqual(texts.map((t) => ({ tag: fx!.tagOf(t), samples: samplesForText(`${t} `, 16000, 2) })));
    const finals = out.frames.filter((f) => f.final);
    expect(finals).toHaveLength(2);
    expect(new Set(finals.map((f) => f.segmentId)).size).toBe(2);
  });

  // A retry re-sends a partly played request and skips its already-played samples; its word timings
  // must be skipped likewise, or aligned transcripts repeat the words heard before the drop ("The
  // store opens The store opens at …").
  it('resemble: words heard before a retry are not timed again', async () => {
    let faulted = false;
    fx = await fixtures.resemble({
      timestamps: true,
      fault: (_r: unknown, i: number) => (i === 1 && !faulted ? ((faulted = true), { kind: 'terminate-mid-request', afterBytes: 1000 }) : undefined),
    } as Record<string, unknown>);
    engine = fx.make({ speech: false, wordTimestamps: true });
    const stream = engine.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
    speak(stream, tokens(REPLY));
    const out = await collect(stream);
    const words = out.frames.flatMap((f) => f.timedTranscripts ?? []).map((t) => t.text.trim());
    expect(faulted).toBe(true);
    expect(words).toEqual(REPLY.split(' '));
  });
});
