// @ts-check
/**
 * Per-turn "time to first audio" as this browser sees it: from the moment the user stops
 * speaking to the moment the agent becomes audible. Pure: the page feeds it events with
 * timestamps, tests feed it numbers.
 *
 * The agent's greeting (no user turn before it) is not a turn and is not measured.
 */

/**
 * @typedef {{ turn: number, ms: number }} TurnMeasurement
 * @typedef {{
 *   userSpeaking(speaking: boolean, at: number): void,
 *   agentSpeaking(speaking: boolean, at: number): TurnMeasurement | null,
 * }} TurnTimer
 */

/** @returns {TurnTimer} */
export function createTurnTimer() {
  /** @type {number | null} */
  let userStoppedAt = null;
  let agentAudible = false;
  let turns = 0;

  return {
    userSpeaking(speaking, at) {
      // Talking again (or over the agent) restarts the wait: only the last stop counts.
      userStoppedAt = speaking ? null : at;
    },

    agentSpeaking(speaking, at) {
      if (!speaking) {
        agentAudible = false;
        return null;
      }
      if (agentAudible) return null;
      agentAudible = true;
      if (userStoppedAt === null) return null;
      const ms = Math.max(0, Math.round(at - userStoppedAt));
      userStoppedAt = null;
      turns += 1;
      return { turn: turns, ms };
    },
  };
}
