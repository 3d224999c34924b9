/**
 * Where a reply could not have both an early start and no silence, which one the pacer gave up
 * and why, in words: the lines under "Pacing" in `npm run bench`.
 */
import { DEFAULT_PACING_OPTIONS } from '@firstword/agents-plugin-tts';
import { type Cell, type Row, conditionsOf, rowsOf, scenarioKey } from './report.js';
import type { Provider } from './scenarios.js';

function reasonsText(c: Cell): string {
  return Object.entries(c.pacing?.reasons ?? {})
    .map(([reason, n]) => `${reason} ${n}/${c.turns}`)
    .join(', ');
}

/** Why a first chunk was held: its speech against what must follow it at the planned pace. */
function heldWhy(provider: Provider, c: Cell): string {
  const p = c.pacing!;
  const speech = Math.round(c.firstClause.length * p.plannedSpeechMsPerChar);
  const next =
    provider === 'resemble'
      ? `the rest of its sentence (planned up to ${Math.round(p.plannedSentenceChars)} characters: Resemble has no continuation, so it goes whole)`
      : 'the next word boundary';
  return (
    `"${c.firstClause}" speaks ~${speech} ms, less than ${next} takes to arrive at the planned ` +
    `${Math.round(p.plannedTokenGapMs)} ms per token plus the ${Math.round(p.plannedFirstByteMs)} ms first byte`
  );
}

export function pacingNotes(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const provider of [...new Set(rows.map((r) => r.provider))]) {
    for (const condition of conditionsOf(rows.filter((r) => r.provider === provider))) {
      for (const row of rowsOf(rows, provider, condition)) {
        const c = row.cells.firstword;
        if (!c?.pacing) continue;
        const where = `${provider} ${scenarioKey(row.scenario, row)}`;
        const eager = row.cells['firstword-eager'];
        const gave = c.pacing.reasons;
        if ((gave.held ?? 0) > 0) {
          const silences = eager ? ` (firstword-eager: ${eager.underrunTotal} silences in ${eager.turns} turns, ${Math.round(eager.underrunMs)} ms per turn)` : '';
          lines.push(`${where}: TTFA given up for no silence — first chunk held +${Math.round(c.pacing.heldP50Ms)} ms (p50) in ${gave.held}/${c.turns} turns: ${heldWhy(provider, c)}${silences}`);
        }
        const gaveUp = (gave.bound ?? 0) + (gave['slow-llm'] ?? 0);
        if (gaveUp > 0) {
          lines.push(
            `${where}: no silence given up for the start in ${gaveUp}/${c.turns} turns (${reasonsText(c)}): a silence of ~${Math.round(c.pacing.predictedGapP50Ms)} ms was predicted ` +
              `(bound: not covered ${DEFAULT_PACING_OPTIONS.maxHoldMs} ms past the first clause; slow-llm: the LLM writes slower than the voice speaks)`,
          );
        }
        if (c.underrunTotal > 0 && gaveUp === 0) {
          lines.push(
            `${where}: MISS — ${c.underrunTotal} silences in ${c.turns} turns (${Math.round(c.underrunMs)} ms per turn) although the plan covered them (${reasonsText(c)}): ` +
              `the text came slower than planned (${Math.round(c.pacing.plannedTokenGapMs)} ms per token) or the machine's timers were late`,
          );
        }
      }
    }
  }
  return lines;
}
