/**
 * The combined turn decision (src/turn/turn-decision.ts) replayed on a VAD timeline, beside the
 * VAD-plus-endpointing rules it would replace, on the same pauses: for each end of speech the VAD
 * reports, when (if ever) the agent would take the turn, and when an acknowledgement would fit.
 *
 * Every end of speech followed by more speech is a pause the caller went on after: a turn taken
 * or an ack fitted before the caller resumed counts against the rule. The end of speech after
 * the last one is the turn's real end: how long after the caller's last sound the turn is taken
 * is the latency cost.
 *
 * Evidence arrives on its own clock: the audio model's answer `audioMs` after the VAD's end of
 * speech (once per pause, on the audio up to it), each word `wordLagMs` after its audio (eSpeak:
 * a piece's words when its last voiced sample is that old; human speech without a transcript:
 * neutral words then). As in the worker (src/turn/combined-detector.ts), each check waits up to
 * AUDIO_WAIT_MS for the model's answer before it judges: an answer due within that wait is heard
 * before the turn can end, while an acknowledgement is judged on what is known at once.
 */
import { AUDIO_WAIT_MS } from '../../src/turn/combined-detector.js';
import { type PauseEvidence, type TurnPolicy, DEFAULT_TURN_POLICY, judgePause } from '../../src/turn/turn-decision.js';
import type { VadTimeline } from './vad-trace.js';

export interface PauseCase {
  /** The VAD's lastSpeakingTime for this end of speech, ms. */
  speechEndMs: number;
  /** The VAD's end-of-speech decision, ms. */
  vadEndMs: number;
  /** The VAD's next start of speech (the caller went on), or undefined at the turn's end. */
  resumeMs?: number;
  /** The audio model's P(finished) on the audio up to `vadEndMs`. */
  audio?: number;
  /** The words' likelihood and when it holds: each entry from `atMs` on (sorted); fresh once they cover the pause. */
  words: Array<{ atMs: number; likelihood: number; fresh: boolean }>;
}

export interface PauseOutcome {
  /** When the turn would be taken, ms (Infinity: not before the caller resumed / never). */
  endMs: number;
  ackMs: number;
}

/** Each VAD end of speech with what follows it. */
export function vadPauses(timeline: VadTimeline): Array<{ speechEndMs: number; vadEndMs: number; resumeMs?: number }> {
  const out: Array<{ speechEndMs: number; vadEndMs: number; resumeMs?: number }> = [];
  timeline.decisions.forEach((d, i) => {
    if (d.type !== 'end') return;
    const next = timeline.decisions.slice(i + 1).find((x) => x.type === 'start');
    out.push({ speechEndMs: d.speechEndMs, vadEndMs: d.atMs, resumeMs: next?.atMs });
  });
  return out;
}

/**
 * The combined decision over one pause: the evidence is piecewise constant between its arrivals,
 * and within a stretch the turn ends as soon as the silence reaches what the judgement asks.
 */
export function combinedOutcome(c: PauseCase, audioMs: number, policy: TurnPolicy = DEFAULT_TURN_POLICY, audioWaitMs = AUDIO_WAIT_MS): PauseOutcome {
  const audioAt = c.vadEndMs + audioMs;
  // The first check is at the VAD's end of speech: it (and every later one) awaits an answer due within the wait.
  const judgedFrom = c.audio !== undefined && audioMs <= audioWaitMs ? audioAt : c.vadEndMs;
  const changes = [c.vadEndMs, audioAt, ...c.words.map((w) => w.atMs)].filter((t) => t >= c.vadEndMs).sort((a, b) => a - b);
  const stop = c.resumeMs ?? Number.POSITIVE_INFINITY;
  let endMs = Number.POSITIVE_INFINITY;
  let ackMs = Number.POSITIVE_INFINITY;
  for (const [i, start] of changes.entries()) {
    if (start >= stop) break;
    const until = Math.min(changes[i + 1] ?? Number.POSITIVE_INFINITY, stop);
    const words = c.words.filter((w) => w.atMs <= start).at(-1);
    const evidence: PauseEvidence = { silenceMs: 0, audio: start >= audioAt ? c.audio : undefined, words: words && { likelihood: words.likelihood, fresh: words.fresh } };
    if (start >= judgedFrom) {
      const judged = judgePause(evidence, policy);
      const at = Math.max(start, c.speechEndMs + judged.endAtSilenceMs);
      if (at < until && at < endMs) endMs = at;
    }
    // The ack's level does not depend on the silence beyond the floor: probe past it.
    const ackAt = Math.max(start, c.speechEndMs + policy.minSilenceMs);
    if (ackAt < until && ackMs === Number.POSITIVE_INFINITY && judgePause({ ...evidence, silenceMs: ackAt - c.speechEndMs }, policy).backchannelFits) ackMs = ackAt;
    if (endMs < Number.POSITIVE_INFINITY && ackMs < Number.POSITIVE_INFINITY) break;
  }
  return { endMs, ackMs: Math.min(ackMs, endMs) };
}

/**
 * The framework's VAD-plus-endpointing rule when the words are judged one way for the whole
 * pause: the turn is taken `delayMs` after the VAD's lastSpeakingTime, not before its end of speech.
 */
export function endpointingOutcome(speechEndMs: number, vadEndMs: number, delayMs: number): number {
  return Math.max(vadEndMs, speechEndMs + delayMs);
}
