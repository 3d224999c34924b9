/**
 * The combined turn decision (TURN_DETECTOR=combined: Smart Turn v3.2 + the transcript rules +
 * the silence) against the rules it would replace, offline, on the same pauses (a benchmark, not a
 * test): per language, how often the agent would start its reply or its acknowledgement inside a
 * pause the caller went on after, and how long after the caller's last sound it takes a real end.
 *
 * The material (the eSpeak corpus and recorded human speech under `--human DIR`, never
 * committed) and how each rule is run on it: decision-cases.ts. A grid of policies over the same
 * pauses: decision-sweep.ts.
 *
 *   npx tsx bench/turn/decision-lab.ts -- [--word-lag-ms 300] [--audio-ms 100] [--human DIR | --no-human] [--files N] [--cache FILE] [--no-espeak]
 *
 * `--cache FILE` keeps Smart Turn's answers between runs (keyed by recording and pause), so the
 * policy can be tuned without running the model again on a loaded machine.
 */
import { DEFAULT_TURN_POLICY } from '../../src/turn/turn-decision.js';
import { ArgsError } from '../flags.js';
import { percentile } from '../playout.js';
import { separation } from './audio-eot.js';
import { type DecisionSet, type LabArgs, collectSets, parseLabArgs } from './decision-cases.js';
import { LANGUAGES, combinedTally, printTable } from './decision-tally.js';

function printEspeak(args: LabArgs, set: DecisionSet): void {
  const combined = combinedTally(set.turns, args.audioMs);
  printTable(`eSpeak corpus (${set.turns.length} utterances), words ${args.wordLagMs} ms after their audio, Smart Turn answer ${args.audioMs} ms after the VAD end; "take" and "ack" ms after the last voiced sample`, [
    ...set.references.map((r) => [r.label, r.tally] as const),
    ['combined (Smart Turn + words)', combined.byLanguage],
  ]);
  console.log(`combined: turns taken inside a piece (the voice's own gaps): ${combined.insideEnds}`);
  for (const language of LANGUAGES) {
    const of = (end: boolean) => set.answers.filter((a) => a.language === language && a.model === 'smart' && a.end === end).map((a) => a.p);
    console.log(`Smart Turn ${language}: ends vs pauses separation (AUC) ${separation(of(false), of(true)).toFixed(2)} (pauses ${of(false).length}, ends ${of(true).length})`);
  }
}

function printHuman(args: LabArgs, set: DecisionSet): void {
  console.log(`\nHuman speech under ${args.human} (none of it committed):\n  ${set.sources.join('\n  ')}`);
  printTable(`Human speech: every Silero end of speech the speaker went on after is a pause (at 250 ms; at 550 ms for the framework defaults), the last one the end; words unknown`, [
    ...set.references.map((r) => [r.label, r.tally] as const),
    ['combined, words read finished', combinedTally(set.turns, args.audioMs).byLanguage],
  ]);
  for (const L of LANGUAGES) {
    const of = (model: 'smart' | 'mini', end: boolean) => set.answers.filter((a) => a.language === L && a.model === model && a.end === end).map((a) => a.p);
    console.log(`${L}: ends vs pauses (AUC): Smart Turn ${separation(of('smart', false), of('smart', true)).toFixed(2)}, v1-mini ${separation(of('mini', false), of('mini', true)).toFixed(2)} (pauses ${of('smart', false).length}, ends ${of('smart', true).length})`);
  }
}

async function main(): Promise<void> {
  const args = parseLabArgs(process.argv.slice(2).filter((a) => a !== '--'));
  const started = performance.now();
  console.log(`Combined turn decision lab; policy ${JSON.stringify(DEFAULT_TURN_POLICY)}. Figures taken on a loaded machine.`);
  const { sets, inferenceMs } = await collectSets(args);
  for (const set of sets) (set.name === 'espeak' ? printEspeak : printHuman)(args, set);
  if (args.human && !sets.some((s) => s.name === 'human')) console.log(`\nHuman speech: none under ${args.human}.`);
  if (inferenceMs.length) console.log(`Smart Turn inference incl. features: p50 ${Math.round(percentile(inferenceMs, 50))} ms, p90 ${Math.round(percentile(inferenceMs, 90))} ms over ${inferenceMs.length} (loaded machine)`);
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof ArgsError ? error.message : error);
    process.exit(error instanceof ArgsError ? 2 : 1);
  },
);
