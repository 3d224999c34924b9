// @ts-check
/**
 * Per-turn "time to first audio" as this browser sees it: from the moment the user stops
 * speaking (or sends a typed message) to the moment the agent becomes audible — the first agent
 * sound, whichever comes first of the agent's own audio level on this page (an early
 * acknowledgement included), its "speaking" state and the SFU's speaking flag. Pure: the page
 * feeds it events with timestamps, tests feed it numbers.
 *
 * Where the end of speech comes from, best first:
 * - `userLevel`: this page's own microphone level, every analysed frame (the microphone meter).
 *   The end of speech is the last frame at or above {@link VOICE_LEVEL}.
 * - `userSpeaking`: livekit-client's speaking flag for the local participant. The SFU computes
 *   it (livekit-server: 400 ms windows, smoothed over two), so "stopped" arrives up to about a
 *   second after the user fell silent: measured from it, every turn looked that much faster, and
 *   with a quick agent the flag was not even down yet when the agent spoke, which lost the turn.
 *   Only used while the microphone level has never shown voice (Web Audio not running…), and
 *   a "stopped" while the agent is audible is ignored (it is the late end of the turn just
 *   answered, not the end of a new one).
 * A typed message counts from its sending (`userTyped`); when the user both spoke and typed,
 * the later of the two ends the turn.
 *
 * The agent's greeting (no user turn before it) is not a turn and is not measured. Voice while
 * the agent is audible (echo, or talking over it) does not end a turn; the agent stopping does,
 * so speech after a barge-in counts again.
 */

/** Microphone level (the meter's 0..1 scale, -60..0 dBFS) that counts as voice: -36 dBFS. */
export const VOICE_LEVEL = 0.4;

/** Quiet before an agent frame for it to be the start of a sound rather than more of one. */
export const AGENT_ONSET_QUIET_MS = 150;

/**
 * `endAt` and `heardAt` are the two moments measured (the page's clock, `performance.now()`),
 * for joining the page's view of a turn with another's (the worker's turn log, in epoch ms once
 * `performance.timeOrigin` is added).
 *
 * @typedef {{ turn: number, ms: number, endAt: number, heardAt: number }} TurnMeasurement
 * @typedef {{
 *   userSpeaking(speaking: boolean, at: number): void,
 *   userLevel(level: number, at: number): void,
 *   userTyped(at: number): void,
 *   agentLevel(level: number, at: number): TurnMeasurement | null,
 *   agentSpeaking(speaking: boolean, at: number): TurnMeasurement | null,
 * }} TurnTimer
 */

/** @returns {TurnTimer} */
export function createTurnTimer() {
  /** @type {number | null} the SFU's end of speech */
  let userStoppedAt = null;
  /** @type {number | null} the last frame of voice on this page's microphone */
  let voiceAt = null;
  /** @type {number | null} */
  let typedAt = null;
  /** the microphone level has shown voice once: the speaking flag is not needed */
  let levelWorks = false;
  let agentAudible = false;
  /** @type {number | null} the last frame the agent's own level was voice */
  let lastAgentLoudAt = null;
  let turns = 0;

  return {
    userSpeaking(speaking, at) {
      // Talking again (or over the agent) restarts the wait: only the last end of speech counts.
      if (speaking) userStoppedAt = null;
      else if (!agentAudible) userStoppedAt = at;
    },

    userLevel(level, at) {
      if (level < VOICE_LEVEL) return;
      levelWorks = true;
      if (!agentAudible) voiceAt = at;
    },

    userTyped(at) {
      typedAt = at;
    },

    agentLevel(level, at) {
      if (level < VOICE_LEVEL) return null;
      // An onset only: the agent was quiet for a while before this frame. The page hears a reply's
      // tail after the agent's state already says "listening" (jitter buffer), and a message typed
      // then must not be timed to that tail.
      const onset = lastAgentLoudAt === null || at - lastAgentLoudAt >= AGENT_ONSET_QUIET_MS;
      lastAgentLoudAt = at;
      if (!onset || agentAudible) return null;
      // Only as the answer to a turn: the greeting is no turn and must not mark the agent audible
      // (the next end of speech would be ignored).
      if (voiceAt === null && typedAt === null && (levelWorks || userStoppedAt === null)) return null;
      return this.agentSpeaking(true, at);
    },

    agentSpeaking(speaking, at) {
      if (!speaking) {
        agentAudible = false;
        return null;
      }
      if (agentAudible) return null;
      agentAudible = true;
      const heard = voiceAt === null && typedAt === null ? null : Math.max(voiceAt ?? -Infinity, typedAt ?? -Infinity);
      const end = heard ?? (levelWorks ? null : userStoppedAt);
      userStoppedAt = null;
      voiceAt = null;
      typedAt = null;
      if (end === null) return null;
      const ms = Math.max(0, Math.round(at - end));
      turns += 1;
      return { turn: turns, ms, endAt: end, heardAt: at };
    },
  };
}
