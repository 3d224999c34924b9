/**
 * The other half of ./hearing-after-reconnect.ts. After livekit-server restarts, rtc-node rejoins
 * and publishes the agent's audio track again, and now and then the server never receives that
 * track's media: it logs "publish time out" half a minute later, the caller's side never gets a
 * track to subscribe to, and the agent goes on answering into nothing. No event says so.
 *
 * The server is the one to ask: it lists a participant's track only once the track's media has
 * arrived (a track announced but never bound stays out of the list), and a caller can subscribe
 * only to a listed track. The agent's own audio track is normally listed well within a second of
 * the rejoin, speaking or not (the SDK sends silence). This watch tells when it still is not
 * after `patienceMs`; ./lost-room.ts hands the call over.
 */
import { TrackKind } from '@livekit/rtc-node';
import type { RecoveryApi, RoomParticipant } from './recover.js';

/** The protocol's TrackType.AUDIO, as the server's participant listing gives it. */
const TRACK_TYPE_AUDIO = 0;

/** What the watch reads of rtc-node's Room: whether the agent publishes audio at all. */
export interface SpeakingRoom {
  localParticipant?: { trackPublications: ReadonlyMap<string, { kind?: TrackKind }> };
}

export const publishesAudio = (room: SpeakingRoom): boolean =>
  [...(room.localParticipant?.trackPublications.values() ?? [])].some((publication) => publication.kind === TrackKind.KIND_AUDIO);

/** Whether the server lists an audio track of `identity` (false when it does not list the participant). */
export function listsAudioOf(participants: readonly RoomParticipant[], identity: string): boolean {
  const self = participants.find((p) => p.identity === identity);
  return self?.tracks?.some((track) => Number(track.type) === TRACK_TYPE_AUDIO) ?? false;
}

export interface SpeakingWatchOptions {
  /** How long after the reconnect the agent's audio may stay unlisted. @defaultValue 6 s */
  patienceMs?: number;
  /** How long the server's API is asked when it does not answer (it may still be coming back). @defaultValue 30 s */
  windowMs?: number;
  /** @defaultValue 500 ms */
  pollMs?: number;
}

/**
 * Asks the server every `pollMs` whether it lists the agent's audio track; stops once it does.
 * Calls `onMute` once if an answer after `patienceMs` still does not. Never throws: an API that
 * does not answer within the window ends the watch with no verdict (the room watch decides then).
 */
export function watchSpeaking(api: Pick<RecoveryApi, 'listParticipants'>, room: string, identity: string, onMute: () => void, options: SpeakingWatchOptions = {}): { stop(): void } {
  const startedAt = Date.now();
  const patienceMs = options.patienceMs ?? 6000;
  const windowMs = Math.max(options.windowMs ?? 30_000, patienceMs);
  const pollMs = options.pollMs ?? 500;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async () => {
    let listed: boolean | undefined;
    try {
      listed = listsAudioOf(await api.listParticipants(room), identity);
    } catch {
      listed = undefined; // not answering yet
    }
    if (stopped || listed === true) return;
    const waited = Date.now() - startedAt;
    if (listed === false && waited >= patienceMs) {
      stopped = true;
      onMute();
      return;
    }
    if (waited >= windowMs) return;
    timer = setTimeout(() => void poll(), pollMs);
    timer.unref?.();
  };
  timer = setTimeout(() => void poll(), pollMs);
  timer.unref?.();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
