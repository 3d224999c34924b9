/**
 * After livekit-server restarts, rtc-node rebuilds the agent's session and reports the room as
 * reconnected, yet now and then its new peer connections never carry media: the server offers the
 * caller's new track and logs "track not bound after timeout" every 3 s, the agent's republished
 * track times out too, and no event says so. The agent sits in the room, deaf and mute. This
 * watch notices: a caller's audio track still not subscribed `patienceMs` after it appeared,
 * within `windowMs` of the reconnect. Its one job is to tell; ./lost-room.ts hands the call over.
 * (The agent's own track is watched by ./speaking-after-reconnect.ts.)
 */
import { TrackKind } from '@livekit/rtc-node';
import { AGENT_KIND } from './recover.js';

/** What the watch reads of rtc-node's Room. */
export interface ListeningRoom {
  remoteParticipants: ReadonlyMap<string, { kind: number; trackPublications: ReadonlyMap<string, { kind?: TrackKind; subscribed: boolean }> }>;
}

/** The callers' audio tracks the agent has not subscribed to (their sids). */
export function unheardCallerTracks(room: ListeningRoom): string[] {
  const unheard: string[] = [];
  for (const participant of room.remoteParticipants.values()) {
    if (Number(participant.kind) === AGENT_KIND) continue;
    for (const [sid, publication] of participant.trackPublications) {
      if (publication.kind === TrackKind.KIND_AUDIO && !publication.subscribed) unheard.push(sid);
    }
  }
  return unheard;
}

export interface HearingWatchOptions {
  /** How long a caller's track may stay unsubscribed (a bound track takes well under a second). @defaultValue 4 s */
  patienceMs?: number;
  /** How long after the reconnect new tracks are looked for (callers rejoin a restarted server within seconds); a track already waiting is watched to the end of its patience. @defaultValue 30 s */
  windowMs?: number;
  /** @defaultValue 250 ms */
  pollMs?: number;
}

/** Calls `onDeaf` once, with the tracks not heard, if a caller's track stays unsubscribed past the patience. */
export function watchHearing(room: ListeningRoom, onDeaf: (tracks: string[]) => void, options: HearingWatchOptions = {}): { stop(): void } {
  const patienceMs = options.patienceMs ?? 4000;
  const endsAt = Date.now() + (options.windowMs ?? 30_000);
  const unheardSince = new Map<string, number>();
  const timer = setInterval(() => {
    const now = Date.now();
    const unheard = unheardCallerTracks(room);
    for (const sid of unheardSince.keys()) if (!unheard.includes(sid)) unheardSince.delete(sid);
    for (const sid of unheard) if (!unheardSince.has(sid)) unheardSince.set(sid, now);
    const deaf = [...unheardSince].filter(([, since]) => now - since >= patienceMs).map(([sid]) => sid);
    if (deaf.length > 0) {
      clearInterval(timer);
      onDeaf(deaf);
    } else if (now >= endsAt && unheardSince.size === 0) clearInterval(timer);
  }, options.pollMs ?? 250);
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
