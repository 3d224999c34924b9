/**
 * When the caller's voice last reached the agent, by its level — the same gate the web page's
 * turn timer uses on its own microphone (web/turn-timer.js `VOICE_LEVEL`, -36 dBFS on the page's
 * meter scale). Silero's end of speech comes out of a smoothed probability over 32 ms windows and
 * was measured ~80 ms after the last voiced sample room-less and ~180 ms after the last voiced
 * frame's arrival in a room (its input reaches the VAD through the framework's resampler and
 * streams); the page times from its last voiced frame, so the agent's figure starts at the same
 * kind of moment.
 *
 * Reads its own AudioStream of the caller's microphone (16 kHz mono, 20 ms frames: ~50 events a
 * second, a fraction of the session's own input stream), and follows the track when the caller
 * republishes it.
 */
import { AudioStream, type RemoteParticipant, type RemoteTrack, type RemoteTrackPublication, type Room, RoomEvent, TrackKind, TrackSource } from '@livekit/rtc-node';
import { displayLevel } from '../../web/level-meter.js';
import { VOICE_LEVEL } from '../../web/turn-timer.js';
import { now } from '../tts/timeline.js';

const TAP_SAMPLE_RATE = 16_000;
const TAP_FRAME_MS = 20;
/** Voiced frames kept: ample for the few seconds between a last word and the turn's report. */
const KEPT_VOICED_FRAMES = 500;

/** Whether a frame of 16-bit PCM is voice by the page's gate. */
export function isVoiced(samples: Int16Array): boolean {
  if (samples.length === 0) return false;
  let sum = 0;
  for (const s of samples) sum += (s / 32768) * (s / 32768);
  return displayLevel(Math.sqrt(sum / samples.length)) >= VOICE_LEVEL;
}

/** Arrival times (`now()`) of voiced frames, newest last; the last one at or before a moment. */
export class VoiceArrivals {
  readonly #voicedAt: number[] = [];

  /** A frame arrived at `at`; only voiced ones are kept. */
  frame(samples: Int16Array, at: number = now()): void {
    if (!isVoiced(samples)) return;
    this.#voicedAt.push(at);
    if (this.#voicedAt.length > KEPT_VOICED_FRAMES) this.#voicedAt.shift();
  }

  /**
   * The end of the last voiced frame that arrived in (`after`, `atOrBefore`]: when the caller's
   * voice last reached the agent before a VAD decision. Undefined when none did (a typed turn).
   */
  lastVoiceEnd(after: number, atOrBefore: number): number | undefined {
    for (let i = this.#voicedAt.length - 1; i >= 0; i--) {
      const at = this.#voicedAt[i]!;
      if (at > atOrBefore) continue;
      return at > after ? at : undefined;
    }
    return undefined;
  }
}

/** A browser's microphone, or a SIP bridge's call audio (livekit-sip publishes it without a source). */
const isCallerVoice = (source: TrackSource | undefined): boolean => source === TrackSource.SOURCE_MICROPHONE || source === TrackSource.SOURCE_UNKNOWN || source === undefined;

/**
 * Feeds {@link VoiceArrivals} from `identity`'s microphone in `room`. A frame's arrival is when
 * the stream delivered it, i.e. its last sample arrived: the end of the voice it carries.
 */
export function tapCallerVoice(room: Room, identity: string, arrivals = new VoiceArrivals()): { arrivals: VoiceArrivals; close(): void } {
  let stream: AudioStream | undefined;
  let closed = false;
  const read = (track: RemoteTrack): void => {
    void stream?.cancel().catch(() => {});
    const current = new AudioStream(track, { sampleRate: TAP_SAMPLE_RATE, numChannels: 1, frameSizeMs: TAP_FRAME_MS });
    stream = current;
    void (async () => {
      try {
        for await (const frame of current) {
          if (closed || stream !== current) break;
          arrivals.frame(frame.data);
        }
      } catch {
        // The track went away; a republished one starts a new stream.
      }
    })();
  };
  const onSubscribed = (track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant): void => {
    if (closed || participant.identity !== identity || track.kind !== TrackKind.KIND_AUDIO) return;
    if (!isCallerVoice(publication.source)) return;
    read(track);
  };
  room.on(RoomEvent.TrackSubscribed, onSubscribed);
  for (const publication of room.remoteParticipants.get(identity)?.trackPublications.values() ?? []) {
    if (publication.track && publication.kind === TrackKind.KIND_AUDIO && isCallerVoice(publication.source)) read(publication.track as RemoteTrack);
  }
  return {
    arrivals,
    close: () => {
      closed = true;
      room.off(RoomEvent.TrackSubscribed, onSubscribed);
      void stream?.cancel().catch(() => {});
      stream = undefined;
    },
  };
}
