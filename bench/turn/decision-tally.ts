/**
 * What the combined-decision lab counts, once the pauses are collected (decision-cases.ts): per
 * rule and language, the pauses the agent would start a reply or an acknowledgement in, and how
 * long after the caller's last sound it takes the real end. Pure arithmetic over the collected
 * pauses, so a grid of policies costs no VAD or model run (decision-sweep.ts).
 */
import type { AckLanguage } from '../../src/ack/phrases.js';
import { type TurnPolicy, DEFAULT_TURN_POLICY } from '../../src/turn/turn-decision.js';
import { percentile } from '../playout.js';
import { type PauseCase, combinedOutcome } from './pause-decision.js';

export const LANGUAGES = ['ko', 'en'] as const satisfies readonly AckLanguage[];

/** One rule's outcome on one language's pauses and ends. */
export interface Tally {
  pauses: number;
  replies: number;
  acks: number;
  sounds: number;
  /** Turn taken, ms after the caller's last sound at the real end (Infinity: never). */
  ends: number[];
  ackEnds: number[];
}

export const tally = (): Tally => ({ pauses: 0, replies: 0, acks: 0, sounds: 0, ends: [], ackEnds: [] });
export const both = (): Record<AckLanguage, Tally> => ({ ko: tally(), en: tally() });

/**
 * One recording or utterance as the combined decision sees it: every VAD end of speech with its
 * evidence. `slot` groups the ends of speech that fall in one pause the caller went on after
 * (eSpeak: the pause after piece `slot`; a turn taken in any of them counts once); `inside` marks
 * ends inside a piece's own voice (eSpeak only: counted apart). The end with no `resumeMs` is
 * the turn's real end, `lastSoundMs` its last sound.
 */
export interface TurnCases {
  language: AckLanguage;
  /** Pauses the caller went on after, each counted once whatever the decision did. */
  slots: number;
  lastSoundMs: number;
  cases: Array<{ pause: PauseCase; slot?: number; inside?: boolean }>;
}

export interface CombinedTally {
  byLanguage: Record<AckLanguage, Tally>;
  /** Turns taken inside a piece (the voice's own gaps), not counted as pauses. */
  insideEnds: number;
}

/** The combined decision under `policy` over collected turns. */
export function combinedTally(turns: readonly TurnCases[], audioMs: number, policy: TurnPolicy = DEFAULT_TURN_POLICY): CombinedTally {
  const byLanguage = both();
  let insideEnds = 0;
  for (const turn of turns) {
    const inSlot = new Map<number, { reply: boolean; ack: boolean }>();
    let end: { endMs: number; ackMs: number } | undefined;
    for (const { pause, slot, inside } of turn.cases) {
      const outcome = combinedOutcome(pause, audioMs, policy);
      if (pause.resumeMs === undefined) {
        end = outcome;
        continue;
      }
      const reply = outcome.endMs < pause.resumeMs;
      const ack = outcome.ackMs < pause.resumeMs;
      if (inside) {
        if (reply) insideEnds++;
        continue;
      }
      const seen = inSlot.get(slot!) ?? { reply: false, ack: false };
      inSlot.set(slot!, { reply: seen.reply || reply, ack: seen.ack || ack });
    }
    const t = byLanguage[turn.language];
    t.pauses += turn.slots;
    for (const f of inSlot.values()) {
      if (f.reply) t.replies++;
      if (f.ack) t.acks++;
      if (f.reply || f.ack) t.sounds++;
    }
    t.ends.push(end ? end.endMs - turn.lastSoundMs : Number.POSITIVE_INFINITY);
    t.ackEnds.push(end ? end.ackMs - turn.lastSoundMs : Number.POSITIVE_INFINITY);
  }
  return { byLanguage, insideEnds };
}

/** One VAD end of speech under one rule: a pause (resume defined) or the turn's end. */
export function record(t: Tally, resumeMs: number | undefined, takeAfterMs: number, takeAt: number, ackAt: number | undefined): void {
  if (resumeMs === undefined) {
    t.ends.push(takeAfterMs);
    if (ackAt !== undefined) t.ackEnds.push(Math.min(ackAt, takeAt) - (takeAt - takeAfterMs));
    return;
  }
  t.pauses++;
  const reply = takeAt < resumeMs;
  const ack = ackAt !== undefined && ackAt < resumeMs;
  if (reply) t.replies++;
  if (ack) t.acks++;
  if (reply || ack) t.sounds++;
}

/** A tally's headline figures: shares of pauses in %, latencies in ms (undefined: nothing to measure). */
export interface TallyFigures {
  pauses: number;
  repliesInPausePct: number;
  acksInPausePct: number;
  takeP50Ms: number;
  takeP90Ms: number;
  ackP50Ms?: number;
  ackP90Ms?: number;
  /** Real ends never taken. */
  never: number;
}

export function figures(t: Tally): TallyFigures {
  const pct = (n: number) => (100 * n) / Math.max(1, t.pauses);
  const at = (xs: number[], p: number) => (xs.length ? percentile(xs, p) : undefined);
  return {
    pauses: t.pauses,
    repliesInPausePct: pct(t.replies),
    acksInPausePct: pct(t.acks),
    takeP50Ms: at(t.ends, 50) ?? Number.NaN,
    takeP90Ms: at(t.ends, 90) ?? Number.NaN,
    ackP50Ms: at(t.ackEnds, 50),
    ackP90Ms: at(t.ackEnds, 90),
    never: t.ends.filter((e) => !Number.isFinite(e)).length,
  };
}

function row(name: string, t: Tally): string {
  const pct = (n: number) => `${((100 * n) / Math.max(1, t.pauses)).toFixed(1).padStart(5)} %`;
  const ms = (xs: number[], p: number) => (xs.length ? String(Math.round(percentile(xs, p))).padStart(5) : '    —');
  const ack = t.ackEnds.length ? `${ms(t.ackEnds, 50)} ${ms(t.ackEnds, 90)}` : '    —     —';
  return `${name.padEnd(34)} ${String(t.pauses).padStart(4)}  ${pct(t.replies)}  ${pct(t.acks)}  ${pct(t.sounds)}   ${ms(t.ends, 50)} ${ms(t.ends, 90)}  ${ack}  ${t.ends.filter((e) => !Number.isFinite(e)).length}`;
}

export function printTable(title: string, rows: ReadonlyArray<readonly [string, Record<AckLanguage, Tally>]>): void {
  console.log(`\n${title}`);
  for (const language of LANGUAGES) {
    console.log(`${language}: rule                               pauses replies-in  acks-in  any-sound  take p50 p90  ack p50 p90  never`);
    for (const [name, t] of rows) console.log(`    ${row(name, t[language])}`);
  }
}
