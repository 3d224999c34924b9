import { TrackKind } from '@livekit/rtc-node';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ListeningRoom, unheardCallerTracks, watchHearing } from '../../src/recovery/hearing-after-reconnect.js';
import { AGENT_KIND } from '../../src/recovery/recover.js';

type Publication = { kind?: TrackKind; subscribed: boolean };
const participant = (kind: number, tracks: Record<string, Publication>) => ({ kind, trackPublications: new Map(Object.entries(tracks)) });
const room = (participants: Record<string, ReturnType<typeof participant>>): ListeningRoom => ({ remoteParticipants: new Map(Object.entries(participants)) });
const audio = (subscribed: boolean): Publication => ({ kind: TrackKind.KIND_AUDIO, subscribed });

describe("the callers' tracks an agent does not hear", () => {
  it('are audio tracks of callers (SIP, web) not subscribed; agents and video are not counted', () => {
    const r = room({
      caller: participant(0, { TR_a: audio(false), TR_b: audio(true), TR_v: { kind: TrackKind.KIND_VIDEO, subscribed: false } }),
      sip: participant(3, { TR_s: audio(false) }),
      other: participant(AGENT_KIND, { TR_x: audio(false) }),
    });
    expect(unheardCallerTracks(r).sort()).toEqual(['TR_a', 'TR_s']);
  });

  it('matches a direct count over any room', () => {
    const pub = fc.record({ kind: fc.constantFrom(TrackKind.KIND_AUDIO, TrackKind.KIND_VIDEO, undefined), subscribed: fc.boolean() });
    const people = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.record({ kind: fc.integer({ min: 0, max: 6 }), tracks: fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), pub) }));
    fc.assert(
      fc.property(people, (ps) => {
        const r = room(Object.fromEntries(Object.entries(ps).map(([id, p]) => [id, participant(p.kind, p.tracks)])));
        const expected = Object.values(ps).flatMap((p) => (p.kind === AGENT_KIND ? [] : Object.entries(p.tracks).filter(([, t]) => t.kind === TrackKind.KIND_AUDIO && !t.subscribed).map(([sid]) => sid)));
        expect(unheardCallerTracks(r).sort()).toEqual(expected.sort());
      }),
    );
  });
});

describe('the watch after a reconnect', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('tells once, with the track, when a caller track stays unsubscribed past the patience', async () => {
    const publications: Record<string, Publication> = {};
    const r = room({ caller: participant(0, publications) });
    const deaf: string[][] = [];
    watchHearing(r, (t) => deaf.push(t), { patienceMs: 4000, windowMs: 30_000 });
    await vi.advanceTimersByTimeAsync(2000);
    (r.remoteParticipants.get('caller')!.trackPublications as Map<string, Publication>).set('TR_new', audio(false));
    await vi.advanceTimersByTimeAsync(3900);
    expect(deaf).toEqual([]);
    await vi.advanceTimersByTimeAsync(400);
    expect(deaf).toEqual([['TR_new']]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(deaf).toHaveLength(1);
  });

  it('says nothing when the track is subscribed in time, or when no caller track comes within the window', async () => {
    const tracks = new Map<string, Publication>([['TR_a', audio(false)]]);
    const deaf: string[][] = [];
    watchHearing({ remoteParticipants: new Map([['caller', { kind: 0, trackPublications: tracks }]]) }, (t) => deaf.push(t), { patienceMs: 4000, windowMs: 30_000 });
    await vi.advanceTimersByTimeAsync(3000);
    tracks.get('TR_a')!.subscribed = true;
    await vi.advanceTimersByTimeAsync(30_000);
    // After the window, a track that appears is no longer watched.
    tracks.set('TR_late', audio(false));
    await vi.advanceTimersByTimeAsync(30_000);
    expect(deaf).toEqual([]);
  });

  it('watches a track that appeared just before the end of the window to the end of its patience', async () => {
    const tracks = new Map<string, Publication>();
    const deaf: string[][] = [];
    watchHearing({ remoteParticipants: new Map([['caller', { kind: 0, trackPublications: tracks }]]) }, (t) => deaf.push(t), { patienceMs: 4000, windowMs: 10_000 });
    await vi.advanceTimersByTimeAsync(9500);
    tracks.set('TR_a', audio(false));
    await vi.advanceTimersByTimeAsync(5000);
    expect(deaf).toEqual([['TR_a']]);
  });

  it('stops on demand', async () => {
    const deaf: string[][] = [];
    const w = watchHearing(room({ caller: participant(0, { TR_a: audio(false) }) }), (t) => deaf.push(t));
    await vi.advanceTimersByTimeAsync(1000);
    w.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(deaf).toEqual([]);
  });
});
