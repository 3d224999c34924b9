export interface TurnMeasurement {
  turn: number;
  ms: number;
}

export interface TurnTimer {
  userSpeaking(speaking: boolean, at: number): void;
  agentSpeaking(speaking: boolean, at: number): TurnMeasurement | null;
}

export function createTurnTimer(): TurnTimer;
