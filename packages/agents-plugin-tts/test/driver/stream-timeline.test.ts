import { describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import type { StreamTimeline, TimelineEvents } from '../../src/driver/timeline.js';
import { collect, fixtureEachTest, fixtures, speak, tokens } from './harness.js';

type Seen = { streamId: string; name: keyof TimelineEvents };
const NAMES = ['chunk', 'sent', 'first_byte', 'first_frame', 'track_done'] as const;

function record(timeline: StreamTimeline): Seen[] {
  const seen: Seen[] = [];
  for (const name of NAMES) timeline.on(name, (e: { streamId: string }) => seen.push({ streamId: e.streamId, name }));
  return seen;
}

// Each stream has its own timeline: a listener hears its stream and no other, however many run.
describe('a timeline per stream', () => {
  const each = fixtureEachTest<FirstwordTTS>();

  for (const name of ['resemble', 'cartesia'] as const) {
    it(`${name}: two concurrent streams each hear only their own events, observed from their first`, async () => {
      each.fx = await fixtures[name]();
      each.engine = each.fx.make();
      const observed: { stream: unknown; timeline: StreamTimeline; seen: Seen[] }[] = [];
      each.engine.onStream((stream, timeline) => observed.push({ stream, timeline, seen: record(timeline) }));
      const a = each.engine.stream();
      const b = each.engine.stream();
      expect(observed.map((o) => o.stream)).toEqual([a, b]);
      expect(observed.map((o) => o.timeline)).toEqual([a.timeline, b.timeline]);
      speak(a, tokens('Alpha speaks first. Then alpha again.'));
      speak(b, tokens('Bravo answers here. And bravo ends.'));
      await Promise.all([collect(a), collect(b)]);
      for (const [stream, o] of [a, b].map((s, i) => [s, observed[i]!] as const)) {
        expect(new Set(o.seen.map((s) => s.streamId))).toEqual(new Set([stream.id]));
        expect(o.seen[0]!.name).toBe('chunk');
        expect(o.seen.map((s) => s.name)).toEqual(expect.arrayContaining([...NAMES]));
      }
    });
  }

  it('synthesize() and unitStream() are observed too, and an observer that stopped hears no more streams', async () => {
    each.fx = await fixtures.cartesia();
    each.engine = each.fx.make();
    const streams: unknown[] = [];
    const stop = each.engine.onStream((stream) => streams.push(stream));
    const one = each.engine.synthesize('One request.');
    const seen = record((one as unknown as { timeline: StreamTimeline }).timeline);
    await collect(one);
    const unit = each.engine.unitStream();
    expect(streams).toEqual([one, unit]);
    expect(seen.map((s) => s.name)).toEqual(['sent', 'first_byte', 'first_frame']);
    unit.close();
    stop();
    each.engine.stream().close();
    expect(streams).toHaveLength(2);
  });
});
