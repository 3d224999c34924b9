// Kept apart from the replay model so the command line can show them without loading the agents SDK.
/** A hosted model's typical time to first token and streaming rate. */
export const REPLAY_DEFAULTS = { firstTokenDelayMs: 350, tokensPerSecond: 40 } as const;
