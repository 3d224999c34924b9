import { TrackKind } from '@livekit/rtc-node';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RoomParticipant } from '../../src/recovery/recover.js';
import { listsAudioOf, publishesAudio, watchSpeaking } from '../../src/recovery/speaking-after-reconnect.js';

const AUDIO = 0;
const VIDEO = 1;
const agent = (tracks: number[]): RoomParticipant => ({ identity: 'agent-AJ_1', kind: 4, attributes: {}, tracks: tracks.map((type) => ({ type })) });
const caller = (tracks: number[]): RoomParticipant => ({ identity: 'caller', kind: 0, attributes: {}, tracks: tracks.map((type) => ({ type })) });

/** The server's listings in turn (the last one repeats), counting the calls. */
function server(listings: Array<RoomParticipant[] | Error>) {
  const s = {
    calls: 0,
    async listParticipants() {
      s.calls++;
      const next = listings.length > 1 ? listings.shift()! : listings[0]!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return s;
}

describe("the agent's own audio as the server lists it", () => {
  it("counts only the agent's own audio tracks: not its video, not a caller's audio, not an unlisted agent", () => {
    expect(listsAudioOf([agent([AUDIO]), caller([])], 'agent-AJ_1')).toBe(true);
    expect(listsAudioOf([agent([VIDEO]), caller([AUDIO])], 'agent-AJ_1')).toBe(false);
    expect(listsAudioOf([caller([AUDIO])], 'agent-AJ_1')).toBe(false);
    expect(listsAudioOf([{ identity: 'agent-AJ_1', kind: 4, attributes: {} }], 'agent-AJ_1')).toBe(false);
  });

  it('matches a direct reading over any listing', () => {
    const person = fc.record({ identity: fc.constantFrom('agent-AJ_1', 'caller', 'agent-AJ_2'), kind: fc.integer({ min: 0, max: 4 }), tracks: fc.array(fc.constantFrom(AUDIO, VIDEO), { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(person, { maxLength: 4 }), (people) => {
        const listing = people.map((p) => ({ identity: p.identity, kind: p.kind, attributes: {}, tracks: p.tracks.map((type) => ({ type })) }));
        const first = people.find((p) => p.identity === 'agent-AJ_1');
        expect(listsAudioOf(listing, 'agent-AJ_1')).toBe(first !== undefined && first.tracks.includes(AUDIO));
      }),
    );
  });

  it('is watched only for an agent that publishes audio', () => {
    expect(publishesAudio({ localParticipant: { trackPublications: new Map([['TR_a', { kind: TrackKind.KIND_AUDIO }]]) } })).toBe(true);
    expect(publishesAudio({ localParticipant: { trackPublications: new Map([['TR_v', { kind: TrackKind.KIND_VIDEO }]]) } })).toBe(false);
    expect(publishesAudio({})).toBe(false);
  });
});

describe('the watch after a reconnect', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('tells once when the server still does not list the agent’s audio after the patience', async () => {
    const s = server([[agent([]), caller([AUDIO])]]);
    let mute = 0;
    watchSpeaking(s, 'call-1', 'agent-AJ_1', () => mute++, { patienceMs: 6000, pollMs: 500 });
    await vi.advanceTimersByTimeAsync(5600);
    expect(mute).toBe(0);
    await vi.advanceTimersByTimeAsync(500);
    expect(mute).toBe(1);
    const asked = s.calls;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(mute).toBe(1);
    expect(s.calls).toBe(asked);
  });

  it('stops asking once the track is listed (a resume keeps it listed from the first answer)', async () => {
    const s = server([[agent([])], [agent([])], [agent([AUDIO])]]);
    let mute = 0;
    watchSpeaking(s, 'call-1', 'agent-AJ_1', () => mute++, { patienceMs: 6000, pollMs: 500 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(mute).toBe(0);
    expect(s.calls).toBe(3);
  });

  it('gives no verdict on a server that does not answer, and judges on the first answer past the patience', async () => {
    const down = new Error('connect ECONNREFUSED');
    const silent = server([down]);
    let mute = 0;
    watchSpeaking(silent, 'call-1', 'agent-AJ_1', () => mute++, { patienceMs: 6000, windowMs: 30_000, pollMs: 500 });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(mute).toBe(0);
    expect(silent.calls).toBeLessThanOrEqual(61);

    const late = server([...Array.from({ length: 20 }, (): RoomParticipant[] | Error => down), [agent([])]]);
    watchSpeaking(late, 'call-1', 'agent-AJ_1', () => mute++, { patienceMs: 6000, windowMs: 30_000, pollMs: 500 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(mute).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(mute).toBe(1);
  });

  it('says nothing once stopped, even with an answer on its way', async () => {
    let release: (v: RoomParticipant[]) => void = () => {};
    const slow = { listParticipants: () => new Promise<RoomParticipant[]>((resolve) => (release = resolve)) };
    let mute = 0;
    const watch = watchSpeaking(slow, 'call-1', 'agent-AJ_1', () => mute++, { patienceMs: 0, pollMs: 500 });
    await vi.advanceTimersByTimeAsync(600);
    watch.stop();
    release([agent([])]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(mute).toBe(0);
  });
});
