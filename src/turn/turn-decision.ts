/**
 * One judgement per pause: has the caller finished, or only paused? It weighs what the voice says
 * (the audio end-of-turn model's probability, asked once per pause), what the words say (the
 * transcript rules' likelihood, src/turn/transcript-detector.ts) and how long the silence has
 * lasted, and answers with how much silence it needs before the agent takes the turn: little when
 * both say "finished", more the less sure they are, never more than a bound. A separate, lower
 * level says whether a short acknowledgement ("네.", "Okay.") would fit the pause.
 *
 * Words lag their audio (a live STT's words arrive some 300 ms after they were spoken), so words
 * heard before the pause was seen can be missing its last part: "I need a" whose "table" is still
 * on its way. Such stale words may hold the turn open but never end it; with no word at all the
 * turn is never ended (there is nothing to answer).
 *
 * Pure and clockless: the caller says how long the silence has lasted and whether the words are
 * fresh, so every rule is a table test.
 */

export interface PauseEvidence {
  /** Silence since the caller's last voiced audio, ms. */
  silenceMs: number;
  /** The audio model's P(finished) for this pause, once it has answered. */
  audio?: number;
  /** The words so far this turn, judged; undefined when no word has come yet. */
  words?: {
    /** The transcript rules' P(finished) for them. */
    likelihood: number;
    /** They cover the audio up to the pause (a final, or words that landed after the lag). */
    fresh: boolean;
  };
}

export interface TurnPolicy {
  /** Silence a sure "finished" still waits: the floor of every end. */
  minSilenceMs: number;
  /** The bound: at this silence any turn with words ends, however unsure the evidence. */
  maxSilenceMs: number;
  /** Confidence from which the turn ends at `minSilenceMs`. */
  sureLevel: number;
  /** Confidence at or below which the turn waits the full bound. */
  unsureLevel: number;
  /** Confidence from which an acknowledgement fits the pause. */
  backchannelLevel: number;
}

/**
 * The knee of the policy sweep (bench/turn/decision-sweep.ts; docs/latency.md "Combined turn
 * decision"): over the eSpeak corpus and recorded human speech in both languages, the policy past
 * which a longer floor buys few fewer replies inside the caller's pauses. A sure turn ends 600 ms
 * after the caller's last sound, an unsure one waits up to 1.5 s. With TURN_DETECTOR=combined these
 * are the worker's TURN_MIN_DELAY_MS / TURN_MAX_DELAY_MS unless those are set (src/config).
 */
export const DEFAULT_TURN_POLICY: TurnPolicy = {
  minSilenceMs: 600,
  maxSilenceMs: 1500,
  sureLevel: 0.7,
  unsureLevel: 0.25,
  backchannelLevel: 0.7,
};

export interface PauseJudgement {
  /** P(finished) from everything known now, 0–1. */
  confidence: number;
  /** Silence the turn needs to end on this evidence (Infinity: never, without a word). */
  endAtSilenceMs: number;
  /** Take the turn now. */
  endTurn: boolean;
  /** An acknowledgement fits now (not a reason to take the turn). */
  backchannelFits: boolean;
}

export function judgePause(evidence: PauseEvidence, policy: TurnPolicy = DEFAULT_TURN_POLICY): PauseJudgement {
  validate(evidence, policy);
  const confidence = combinedConfidence(evidence);
  const endAtSilenceMs = requiredSilence(evidence, confidence, policy);
  const endTurn = evidence.silenceMs >= endAtSilenceMs;
  // The ack answers the voice and the words together, never stale words alone.
  const grounded = evidence.audio !== undefined || evidence.words?.fresh === true;
  const backchannelFits = grounded && evidence.words !== undefined && confidence >= policy.backchannelLevel && evidence.silenceMs >= policy.minSilenceMs;
  return { confidence, endAtSilenceMs, endTurn, backchannelFits };
}

/**
 * The least sure of the voice and the words: each can hold the turn open, neither can end it
 * over the other's objection. (A mean in log-odds let the audio model's near-certain answers
 * overrule "…and" on the eSpeak corpus: bench/turn/decision-lab.ts.) Stale words count only when
 * they say "more is coming": as "finished" they say nothing about the part not yet heard.
 */
export function combinedConfidence(evidence: PauseEvidence): number {
  const parts: number[] = [];
  if (evidence.audio !== undefined) parts.push(evidence.audio);
  if (evidence.words) parts.push(evidence.words.fresh ? evidence.words.likelihood : Math.min(evidence.words.likelihood, 0.5));
  return parts.length === 0 ? 0.5 : Math.min(...parts);
}

function requiredSilence(evidence: PauseEvidence, confidence: number, policy: TurnPolicy): number {
  if (!evidence.words) return Number.POSITIVE_INFINITY;
  // Stale words and no voice: nothing fresh says "finished"; only the bound ends the turn.
  if (!evidence.words.fresh && evidence.audio === undefined) return policy.maxSilenceMs;
  if (confidence >= policy.sureLevel) return policy.minSilenceMs;
  if (confidence <= policy.unsureLevel) return policy.maxSilenceMs;
  const unsure = (policy.sureLevel - confidence) / (policy.sureLevel - policy.unsureLevel);
  return policy.minSilenceMs + unsure * (policy.maxSilenceMs - policy.minSilenceMs);
}

function validate(evidence: PauseEvidence, policy: TurnPolicy): void {
  const probability = (name: string, p: number | undefined) => {
    if (p !== undefined && !(p >= 0 && p <= 1)) throw new RangeError(`${name} must be a probability in [0, 1], got ${p}`);
  };
  probability('audio', evidence.audio);
  probability('words.likelihood', evidence.words?.likelihood);
  if (!(evidence.silenceMs >= 0)) throw new RangeError(`silenceMs must be ≥ 0, got ${evidence.silenceMs}`);
  if (!(policy.minSilenceMs >= 0 && policy.minSilenceMs <= policy.maxSilenceMs)) throw new RangeError('the policy needs 0 ≤ minSilenceMs ≤ maxSilenceMs');
  if (!(policy.unsureLevel < policy.sureLevel)) throw new RangeError('the policy needs unsureLevel < sureLevel');
}
