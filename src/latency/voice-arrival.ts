/**
 * When the caller's voice last reached the agent, by its level — the gate the web page's turn
 * timer uses on its own microphone (src/audio/level.ts). Silero's end of speech comes out of a
 * smoothed probability over 32 ms windows, after the framework's resampler and streams, so it
 * lands later than the voice did; the page times from its last voiced frame, and so does this.
 *
 * Reads the frames the session's own VAD is given: no second stream of the caller's track.
 */
import { type FrameRead, arrivalOf } from '../audio/frame-arrival.js';
import { CALLER_FRAME_MS } from '../audio/caller-frames.js';
import { isVoiced } from '../audio/level.js';
import type { CallerFrames } from '../stt/shared-vad.js';
import { now } from './clock.js';

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
  frame(samples: Int16Array, at: number = now(), ms: number = CALLER_FRAME_MS): void {
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
 * Feeds {@link VoiceArrivals} from the caller's audio as the session hears it: the frames its VAD
 * is given (src/stt/shared-vad.ts), so the caller's track is read once, not twice. A frame's
 * arrival is when it reached the VAD, i.e. its last sample had arrived: the end of the voice it
 * carries. Returns the arrivals and how to stop following.
 */
export function followCallerVoice(frames: CallerFrames, arrivals = new VoiceArrivals()): { arrivals: VoiceArrivals; close(): void } {
  const unsubscribe = frames.subscribe((frame) =>
    arrivals.frame(frame.data.subarray(0, frame.samplesPerChannel * frame.channels), now(), (frame.samplesPerChannel / frame.sampleRate) * 1000),
  );
  return { arrivals, close: unsubscribe };
}
