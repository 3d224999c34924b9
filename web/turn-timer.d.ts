export interface TurnMeasurement {
  turn: number;
  ms: number;
  /** When the user's turn ended and when the agent was first heard (`performance.now()`). */
  endAt: number;
  heardAt: number;
}

export interface TurnTimer {
  userSpeaking(speaking: boolean, at: number): void;
  userLevel(level: number, at: number): void;
  userTyped(at: number): void;
  /** The agent's audio level on this page: the first agent sound of a turn, an early ack included. */
  agentLevel(level: number, at: number): TurnMeasurement | null;
  agentSpeaking(speaking: boolean, at: number): TurnMeasurement | null;
}

/** Microphone level (0..1, -60..0 dBFS) that counts as voice. */
export const VOICE_LEVEL: number;

/** Quiet before an agent frame for it to be the start of a sound rather than more of one. */
export const AGENT_ONSET_QUIET_MS: number;

export function createTurnTimer(): TurnTimer;
