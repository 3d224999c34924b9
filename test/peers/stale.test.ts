/** bench/peers/tags.ts: which frames heard after a barge-in are stale, told by their audio tags. */
import { describe, expect, it } from 'vitest';
import { frameTags, staleAfterBargeIn } from '../../bench/peers/tags.js';
import { synthesizeTaggedPcm16, tagForText } from '../servers/audio-tag.js';

const frame = (at: number, ms: number, ...texts: string[]) => ({ at, ms, tags: texts.map(tagForText).sort((a, b) => a - b) });

describe('stale audio after a barge-in', () => {
  it('counts the frames that carry a text of the interrupted reply, and only those', () => {
    const heard = [
      frame(-5, 20, 'The store opens at nine.'), // arrived after the barge-in, before the next request
      frame(310, 20, 'Sure.'),
      frame(330, 20, 'Sure.', 'The store opens at nine.'), // a frame straddling both
      frame(350, 40, 'Sure.'),
    ];
    const result = staleAfterBargeIn(heard, ['Hello there.', 'The store opens at nine.'], ['Sure.']);
    expect(result).toEqual({ staleFrames: 2, staleMs: 40, unknownFrames: 0 });
  });

  it('does not call a text stale that the next reply sent too, and flags audio no text explains', () => {
    const heard = [frame(300, 20, 'Okay.'), frame(320, 20, 'never sent')];
    expect(staleAfterBargeIn(heard, ['Okay.'], ['Okay.'])).toEqual({ staleFrames: 0, staleMs: 0, unknownFrames: 1 });
  });

  it("reads a frame's tags from the servers' tagged audio (silence is no tag)", () => {
    const a = synthesizeTaggedPcm16('first', 24_000, 5);
    const b = synthesizeTaggedPcm16('second', 24_000, 5);
    const pcm = Buffer.concat([a.subarray(0, 20), Buffer.alloc(8), b.subarray(0, 20)]);
    const samples = Int16Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(2 * i));
    expect(frameTags(samples)).toEqual([tagForText('first'), tagForText('second')].sort((x, y) => x - y));
  });
});
