/**
 * When the caller's voice last reached the agent, by its level — the gate the web page's turn
 * timer uses on its own microphone (src/audio/level.ts). Silero's end of speech comes out of a
 * smoothed probability over 32 ms windows, after the framework's resampler and streams, so it
 * lands later than the voice did; the page times from its last voiced frame, and so does this.
 *
 * Reads its own AudioStream of the caller's microphone (16 kHz mono, 20 ms frames: ~50 events a
 * second, a fraction of the session's own input stream), and follows the track when the caller
 * republishes it.
 */
import { type AudioFrame, AudioStream, type RemoteParticipant, type RemoteTrack, type RemoteTrackPublication, type Room, RoomEvent, TrackKind, TrackSource } from '@livekit/rtc-node';
import { type FrameRead, arrivalOf } from '../audio/frame-arrival.js';
import { isVoiced } from '../audio/level.js';
import { now } from './clock.js';

const TAP_SAMPLE_RATE = 16_000;
const TAP_FRAME_MS = 20;
/** Frames kept (8 s): more than the longest wait from a last word to its turn (1.5 s at most). */
const KEPT_FRAMES = 400;

/**
 * The tap's recent frames as read, voiced or not, newest last; the last voiced arrival before a
 * moment. A read lags its frame's arrival whenever the worker's event loop is busy (a blocked
 * loop reads a second of frames in one burst): arrivals are settled by the frames read after
 * them (src/audio/frame-arrival.ts), so a busy moment does not move the end of speech.
 */
export class VoiceArrivals {
  readonly #reads: Array<FrameRead & { voiced: boolean }> = [];

  /** A frame of `ms` was read at `at`. */
  frame(samples: Int16Array, at: number = now(), ms: number = TAP_FRAME_MS): void {
    this.#reads.push({ at, ms, voiced: isVoiced(samples) });
    if (this.#reads.length > KEPT_FRAMES) this.#reads.shift();
  }

  /**
   * The arrival of the last voiced frame that arrived in (`after`, `atOrBefore`]: when the
   * caller's voice last reached the agent before a VAD decision. Undefined when none did (a typed
   * turn, or voice older than the frames kept).
   */
  lastVoiceEnd(after: number, atOrBefore: number): number | undefined {
    for (let i = this.#reads.length - 1; i >= 0; i--) {
      if (!this.#reads[i]!.voiced) continue;
      const at = arrivalOf(this.#reads, i);
      if (at > atOrBefore) continue;
      return at > after ? at : undefined;
    }
    return undefined;
  }
}

/**
 * Feeds {@link VoiceArrivals} from `identity`'s microphone in `room` (the track RoomIO listens to).
 * A frame's arrival is when the stream delivered it, i.e. its last sample arrived: the end of the
 * voice it carries.
 */
export function tapCallerVoice(room: Room, identity: string, arrivals = new VoiceArrivals()): { arrivals: VoiceArrivals; close(): void } {
  let reader: ReadableStreamDefaultReader<AudioFrame> | undefined;
  let closed = false;
  const stop = (): void => {
    // A reader, not `stream.cancel()`: the stream is locked to its reader, and cancelling a
    // locked stream only rejects.
    void reader?.cancel().catch(() => {});
    reader = undefined;
  };
  const read = (track: RemoteTrack): void => {
    stop();
    const current = new AudioStream(track, { sampleRate: TAP_SAMPLE_RATE, numChannels: 1, frameSizeMs: TAP_FRAME_MS }).getReader();
    reader = current;
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await current.read();
          if (done || closed || reader !== current) break;
          arrivals.frame(value.data.subarray(0, value.samplesPerChannel), now(), (value.samplesPerChannel / value.sampleRate) * 1000);
        }
      } catch {
        // The track went away; a republished one starts a new stream.
      }
    })();
  };
  const isMicrophone = (publication: RemoteTrackPublication): boolean =>
    publication.kind === TrackKind.KIND_AUDIO && publication.source === TrackSource.SOURCE_MICROPHONE;
  const onSubscribed = (track: RemoteTrack, publication: RemoteTrackPublication, participant: RemoteParticipant): void => {
    if (!closed && participant.identity === identity && isMicrophone(publication)) read(track);
  };
  room.on(RoomEvent.TrackSubscribed, onSubscribed);
  for (const publication of room.remoteParticipants.get(identity)?.trackPublications.values() ?? []) {
    if (publication.track && isMicrophone(publication)) read(publication.track as RemoteTrack);
  }
  return {
    arrivals,
    close: () => {
      closed = true;
      room.off(RoomEvent.TrackSubscribed, onSubscribed);
      stop();
    },
  };
}
