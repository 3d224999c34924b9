/**
 * bench:room's ear telling the acknowledgement from the reply by the Cartesia fake's tones: runs
 * of one tone in the frames the caller read, and which run is the reply's first audio.
 */
import { describe, expect, it } from 'vitest';
import type { Heard } from '../../bench/room/ear.js';
import { contentOnEar, pitchRuns, replyTones } from '../../bench/room/pitch.js';

const LOUD = 3000;
const THRESHOLD = 300;

/** 10 ms frames from `start`: each spec is [frames, hz, rms]. */
function frames(start: number, ...parts: Array<[number, number, number?]>): Heard[] {
  const out: Heard[] = [];
  for (const [n, hz, rms = LOUD] of parts) {
    for (let i = 0; i < n; i++) out.push({ at: start + out.length * 10, rms, hz, ms: 10, index: out.length });
  }
  return out;
}

describe('pitchRuns', () => {
  it('splits loud frames into runs of one tone, a quiet frame or a change of tone ending a run', () => {
    // 200 ms quiet, ack 300 Hz 400 ms, 100 ms quiet, reply 425 Hz 300 ms then 450 Hz 200 ms.
    const heard = frames(1000, [20, 0, 5], [40, 300], [10, 0, 5], [30, 425], [20, 450]);
    expect(pitchRuns(heard, 0, Infinity, THRESHOLD)).toEqual([
      { at: 1200, ms: 400, hz: 300 },
      { at: 1700, ms: 300, hz: 425 },
      { at: 2000, ms: 200, hz: 450 },
    ]);
  });

  it("counts an onset frame whose tone cannot be read, or reads wrong, as the next run's start", () => {
    // A frame half silence reads as noise (3100 Hz); one with a single crossing reads 0.
    const heard = frames(0, [5, 0, 5], [1, 3100], [10, 300], [3, 0, 5], [1, 0], [10, 425]);
    expect(pitchRuns(heard, -1, Infinity, THRESHOLD)).toEqual([
      { at: 50, ms: 110, hz: 300 },
      { at: 190, ms: 110, hz: 425 },
    ]);
  });

  it('drops runs too short to be a piece, keeps only frames in the window, and settles arrival times', () => {
    const heard = frames(0, [2, 500], [3, 0, 5], [10, 300], [10, 425]);
    expect(pitchRuns(heard, 0, 190, THRESHOLD, (f) => f.at - 7)).toEqual([{ at: 43, ms: 100, hz: 300 }, { at: 143, ms: 50, hz: 425 }]);
  });
});

describe('replyTones', () => {
  it("keeps the tones of the turn's reply text, not those of acknowledgement phrases (a job process prewarming during the turn)", () => {
    expect(
      replyTones([
        { transcript: 'Okay. ', hz: 175 },
        { transcript: 'The pharmacy opens ', hz: 200 },
        { transcript: 'at nine.', hz: 225 },
        { transcript: '네.', hz: 250 },
        { transcript: ' ', hz: 275 },
      ]),
    ).toEqual([200, 225]);
  });
});

describe('contentOnEar', () => {
  const ackRun = { at: 1300, ms: 400, hz: 300 };
  const reply = [
    { at: 2100, ms: 700, hz: 425 },
    { at: 2800, ms: 900, hz: 450 },
  ];

  it('is the first run at a reply tone after the acknowledgement', () => {
    expect(contentOnEar([ackRun, ...reply], [425, 450], { played: true, durationMs: 400 })).toEqual({ at: 2100, ackHz: 300 });
  });

  it('is the first run at a reply tone when no acknowledgement played', () => {
    expect(contentOnEar(reply, [425, 450], { played: false })).toEqual({ at: 2100 });
  });

  it("skips the acknowledgement's own tone when a stutter split its run, even when a reply piece has that tone too", () => {
    const runs = [{ at: 1300, ms: 200, hz: 450 }, { at: 1520, ms: 200, hz: 450 }, ...reply];
    expect(contentOnEar(runs, [425, 450], { played: true, durationMs: 400 })).toEqual({ at: 2100, ackHz: 450 });
  });

  it('says so when the acknowledgement and the reply share a tone and ran together', () => {
    const runs = [{ at: 1300, ms: 1100, hz: 425 }, reply[1]!];
    expect(contentOnEar(runs, [425, 450], { played: true, durationMs: 400 })).toEqual({ why: 'the acknowledgement and the reply share the tone 425 Hz and ran together' });
  });

  it('says so when nothing at a reply tone was heard, or the fake voiced no reply', () => {
    expect(contentOnEar([ackRun], [425], { played: true, durationMs: 400 })).toEqual({ why: 'no run at a reply tone (425 Hz) among 300' });
    expect(contentOnEar([ackRun, ...reply], [], { played: true })).toEqual({ why: 'the fake voiced no reply text during the turn' });
  });
});
