/**
 * Offline turn lab (a benchmark, not a test): how soon a turn can be committed, and how often a
 * caller who only paused gets answered, for a grid of Silero minSilenceDuration × endpointing
 * minDelay × maxDelay × turn detector — without running a session per setting.
 *
 * The corpus is rendered by the local voice (16 kHz) and run once through the real Silero VAD;
 * every setting is then replayed on those windows with the framework's commit rule (turn-sim.ts).
 * The scripted STT finalises each piece 150 ms after its last voiced sample. The local audio
 * end-of-turn model is asked where the framework asks it (audio-eot.ts).
 *
 * Recorded human speech, where found (human-speech.ts), is run beside it for the audio model and
 * for Silero's ends inside an utterance.
 *
 *   npm run bench:turn-lab -- [--json FILE] [--stt-final-ms 150] [--top 15] [--human DIR | --no-human]
 */
import { initializeLogger } from '@livekit/agents';
import { VAD } from '@livekit/agents-plugin-silero';
import { writeFileSync } from 'node:fs';
import type { AckLanguage } from '../../src/ack/phrases.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { type RenderedUtterance, renderUtterance, sampleMs } from '../../src/spoken/utterance.js';
import { isTurnComplete } from '../../src/turn/transcript-detector.js';
import { ArgsError, readFlags } from '../flags.js';
import { percentile } from '../playout.js';
import { type AudioRequest, audioModelThreshold, audioRequests, loadAudioModel, separation } from './audio-eot.js';
import { TURN_CORPUS } from './corpus.js';
import { DEFAULT_HUMAN_ROOT, evaluateHumanSpeech, printHumanFindings } from './human-speech.js';
import { COMMIT_TARGET_MS, FALSE_END_TARGET, type LabRow, distinctRows, labRow, paretoBest, rowTable } from './lab-report.js';
import { transcriptConfusion } from './transcript-confusion.js';
import { type DetectorChoice, type Judges, type LabUtterance, type TurnSetting, simulateTurn, turnEvents } from './turn-sim.js';
import { type VadTrace, replayAgrees, replayVad, traceVad } from './vad-trace.js';

const MIN_SILENCE_MS = [150, 200, 250, 300, 400, 550];
const MIN_DELAY_MS = [0, 200, 300, 400, 500];
const MAX_DELAY_MS = [1000, 1500, 2500];
const DETECTORS: DetectorChoice[] = ['none', 'transcript', 'audio', 'both'];
const SAMPLE_RATE = 16_000;
/** The VAD is loaded with the plugin's default; its own decisions check the replay. */
const CHECK_SILENCE_MS = 550;

const HELP = `npm run bench:turn-lab -- [--json FILE] [--stt-final-ms N] [--top N] [--human DIR | --no-human]

  --json FILE         write every row, the audio model's answers and the transcript confusion
  --stt-final-ms N    the scripted STT's final, ms after each piece's last voiced sample (default 150)
  --top N             Pareto rows to print (default 15)
  --human DIR         where recorded human speech was unpacked (default ${DEFAULT_HUMAN_ROOT}); --no-human skips it`;

interface Args {
  json?: string;
  sttFinalAfterMs: number;
  top: number;
  human?: string;
}

function parse(argv: readonly string[]): Args | 'help' {
  const args: Args = { sttFinalAfterMs: 150, top: 15, human: DEFAULT_HUMAN_ROOT };
  const outcome = readFlags(argv, (read) => {
    if (read.flag === '--help' || read.flag === '-h') return 'help';
    else if (read.flag === '--json') args.json = read.value();
    else if (read.flag === '--stt-final-ms') args.sttFinalAfterMs = read.num(0, 2000, true);
    else if (read.flag === '--top') args.top = read.num(1, 500, true);
    else if (read.flag === '--human') args.human = read.value();
    else if (read.flag === '--no-human') args.human = undefined;
    else throw new ArgsError(`unknown flag ${read.flag}`);
  });
  return outcome === 'help' ? 'help' : args;
}

interface Prepared {
  utterance: LabUtterance;
  rendered: RenderedUtterance;
  trace: VadTrace;
  requests: AudioRequest[];
}

interface Lab {
  prepared: Prepared[];
  timings: Record<string, number>;
  replayDisagrees: string[];
  vad: Awaited<ReturnType<typeof VAD.load>>;
  model: ReturnType<typeof loadAudioModel>;
}

async function prepare(): Promise<Lab> {
  const timings: Record<string, number> = {};
  let t = performance.now();
  const synth = await EspeakSynthesizer.start();
  const rendered: RenderedUtterance[] = [];
  try {
    for (const u of TURN_CORPUS) rendered.push(await renderUtterance(synth, u, { sampleRate: SAMPLE_RATE, tailMs: 1500 }));
  } finally {
    await synth.close();
  }
  timings.renderMs = performance.now() - t;

  t = performance.now();
  const vad = await VAD.load({ minSilenceDuration: CHECK_SILENCE_MS });
  const traces: VadTrace[] = [];
  for (const r of rendered) traces.push(await traceVad(vad, r.samples, r.sampleRate));
  timings.vadMs = performance.now() - t;
  const replayDisagrees = TURN_CORPUS.filter((u, i) => !replayAgrees(traces[i]!, replayVad(traces[i]!, { minSilenceMs: CHECK_SILENCE_MS }))).map((u) => u.id);

  t = performance.now();
  const model = loadAudioModel();
  model.initEot();
  timings.audioModelLoadMs = performance.now() - t;
  t = performance.now();
  const prepared: Prepared[] = [];
  for (const [i, u] of TURN_CORPUS.entries()) {
    const r = rendered[i]!;
    const requests = await audioRequests(model, r.samples, replayVad(traces[i]!, { minSilenceMs: Number.POSITIVE_INFINITY }));
    const pieces = r.pieces.map((p, k) => ({ ...u.pieces[k]!, text: p.text, firstVoicedMs: sampleMs(r, p.firstVoiced), lastVoicedMs: sampleMs(r, p.lastVoiced) }));
    prepared.push({ utterance: { id: u.id, language: u.language, kind: u.kind, pieces }, rendered: r, trace: traces[i]!, requests });
  }
  timings.audioModelMs = performance.now() - t;
  return { prepared, timings, replayDisagrees, vad, model };
}

function grid(): TurnSetting[] {
  const out: TurnSetting[] = [];
  for (const minSilenceMs of MIN_SILENCE_MS)
    for (const minDelayMs of MIN_DELAY_MS)
      for (const maxDelayMs of MAX_DELAY_MS) for (const detector of DETECTORS) out.push({ minSilenceMs, minDelayMs, maxDelayMs, detector });
  return out;
}

function runGrid(prepared: readonly Prepared[], judges: Judges): LabRow[] {
  const rows: LabRow[] = [];
  for (const minSilenceMs of MIN_SILENCE_MS) {
    const perUtterance = prepared.map((p) => ({
      p,
      events: turnEvents(p.utterance, replayVad(p.trace, { minSilenceMs }), judges),
      requests: new Map(p.requests.map((r) => [r.window, r])),
    }));
    for (const setting of grid().filter((s) => s.minSilenceMs === minSilenceMs)) {
      rows.push(labRow(setting, perUtterance.map(({ p, events, requests }) => simulateTurn(p.utterance, events, requests, setting, judges))));
    }
  }
  return rows;
}

type Where = 'pause-clear' | 'pause-ambiguous' | 'end' | 'inside';

/** Where each audio-model request fell: in a pause (clear or ambiguous), after the last piece, or inside a piece. */
function audioAnswers(prepared: readonly Prepared[]) {
  return prepared.flatMap(({ utterance: u, requests }) =>
    requests.map((r) => {
      let where: Where = 'inside';
      u.pieces.forEach((p, i) => {
        const next = u.pieces[i + 1];
        if (r.atMs >= p.lastVoicedMs && (!next || r.atMs < next.firstVoicedMs)) where = !next ? 'end' : p.completeSoFar ? 'pause-ambiguous' : 'pause-clear';
      });
      return { id: u.id, language: u.language, where, atMs: r.atMs, probability: r.probability, inferenceMs: r.readyAtMs - r.atMs };
    }),
  );
}

function printAudioSummary(answers: ReturnType<typeof audioAnswers>): void {
  console.log('\nLocal audio end-of-turn model (turn-detector-v1-mini), asked at 224 ms of silence as the framework asks it');
  console.log('language  where            n   p10   p50   p90   ≥ threshold (judged over)');
  for (const language of ['ko', 'en'] as const) {
    const threshold = audioModelThreshold(language);
    for (const where of ['pause-clear', 'pause-ambiguous', 'end', 'inside'] as const) {
      const ps = answers.filter((a) => a.language === language && a.where === where).map((a) => a.probability);
      if (ps.length === 0) continue;
      const over = ps.filter((p) => p >= threshold).length;
      const f = (x: number) => x.toFixed(2).padStart(5);
      console.log(`${language} (${threshold})  ${where.padEnd(15)} ${String(ps.length).padStart(3)} ${f(percentile(ps, 10))} ${f(percentile(ps, 50))} ${f(percentile(ps, 90))}   ${over}/${ps.length}`);
    }
  }
  for (const language of ['ko', 'en'] as const) {
    const of = (where: Where[]) => answers.filter((a) => a.language === language && where.includes(a.where)).map((a) => a.probability);
    console.log(`${language}: ends vs pauses separation (AUC) ${separation(of(['pause-clear', 'pause-ambiguous']), of(['end'])).toFixed(2)}`);
  }
  const inference = answers.map((a) => a.inferenceMs);
  console.log(`inference: p50 ${percentile(inference, 50).toFixed(0)} ms, p90 ${percentile(inference, 90).toFixed(0)} ms (loaded machine)`);
}

function printConfusion(): ReturnType<typeof transcriptConfusion> {
  const confusion = transcriptConfusion(TURN_CORPUS);
  console.log('\nTranscript detector on the corpus (words so far at each pause; all words at the end)');
  console.log('form            lang | clear pauses: unfinished  over | ambiguous pauses: unfinished  over | ends: over  unfinished');
  for (const c of confusion) {
    console.log(
      `${c.form.padEnd(15)} ${c.language}   |                 ${String(c.clearJudgedUnfinished).padStart(3)}   ${String(c.clearJudgedOver).padStart(3)} |                     ${String(c.ambiguousJudgedUnfinished).padStart(3)}   ${String(c.ambiguousJudgedOver).padStart(3)} |        ${String(c.finalJudgedOver).padStart(3)}   ${String(c.finalJudgedUnfinished).padStart(3)}`,
    );
    for (const miss of c.misses) console.log(`    miss: ${miss}`);
  }
  return confusion;
}

function corpusSummary(prepared: readonly Prepared[]): string {
  const counts = new Map<string, number>();
  for (const { utterance: u } of prepared) counts.set(`${u.language}/${u.kind}`, (counts.get(`${u.language}/${u.kind}`) ?? 0) + 1);
  const pauses = prepared.flatMap((p) => p.utterance.pieces.slice(0, -1));
  const byLength = [300, 500, 700, 1000].map((ms) => `${ms} ms ×${pauses.filter((p) => p.pauseAfterMs === ms).length}`).join(', ');
  return `${prepared.length} utterances (${[...counts].map(([k, n]) => `${k} ${n}`).join(', ')}); ${pauses.length} pauses: ${byLength}`;
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args === 'help') return void console.log(HELP);
  // The plugin warns "slower than realtime" when pushed faster than real time on a loaded machine: noise here.
  initializeLogger({ pretty: false, level: 'error' });
  const started = performance.now();
  const { prepared, timings, replayDisagrees, vad, model } = await prepare();
  const replayChecked = prepared.length;
  const verdicts = new Map<string, boolean>();
  const judges: Judges = {
    transcriptOver(text, language: AckLanguage) {
      const key = `${language}\u0000${text}`;
      if (!verdicts.has(key)) verdicts.set(key, isTurnComplete(text, language));
      return verdicts.get(key)!;
    },
    audioThreshold: audioModelThreshold,
    sttFinalAfterMs: args.sttFinalAfterMs,
  };
  let t = performance.now();
  const rows = runGrid(prepared, judges);
  timings.gridMs = performance.now() - t;

  console.log('Offline turn lab — eSpeak speech, real Silero VAD, analytic commit rule. Figures taken on a loaded machine.');
  console.log(corpusSummary(prepared));
  console.log(`VAD replay vs the plugin's own decisions at ${CHECK_SILENCE_MS} ms: ${replayChecked - replayDisagrees.length}/${replayChecked} agree${replayDisagrees.length ? ` (differ: ${replayDisagrees.join(', ')})` : ''}`);
  const confusion = printConfusion();
  const answers = audioAnswers(prepared);
  printAudioSummary(answers);

  t = performance.now();
  const human = args.human ? await evaluateHumanSpeech(args.human, vad, model, MIN_SILENCE_MS) : undefined;
  timings.humanMs = performance.now() - t;
  if (args.human) printHumanFindings(human, args.human);
  else console.log('\nHuman speech: skipped (--no-human).');

  const distinct = distinctRows(rows);
  console.log('\nPer minSilenceDuration (no detector, minDelay 0): VAD end after the last voiced sample, early ack');
  console.log('sil | VAD end p50 p90 | ack false ≤700 all | ack p50 p90 early | in-piece commits');
  for (const r of distinct.filter((x) => x.detector === 'none' && x.minDelayMs === 0)) {
    const allAck = (r.falseAckAll * 100).toFixed(1);
    console.log(`${String(r.minSilenceMs).padStart(3)} |        ${Math.round(r.vadEndP50)} ${Math.round(r.vadEndP90)} |    ${(r.falseAckShort * 100).toFixed(1)}% ${allAck}% |  ${Math.round(r.ackP50)} ${Math.round(r.ackP90)} ${(r.ackEarlyShare * 100).toFixed(0)}% | ${r.inPieceCommits}`);
  }

  console.log('\nTranscript detector, maxDelay 1500: false ends ≤700 ms (all / clear) and commit p50, by minSilenceDuration × minDelay');
  console.log(`sil | ${MIN_DELAY_MS.map((d) => `min ${String(d).padStart(3)}: fe≤700 clear  p50`.padEnd(28)).join(' | ')}`);
  for (const minSilenceMs of MIN_SILENCE_MS) {
    const cells = MIN_DELAY_MS.map((minDelayMs) => {
      const r = distinct.find((x) => x.minSilenceMs === minSilenceMs && x.minDelayMs === minDelayMs && x.maxDelayMs === 1500 && x.detector === 'transcript')!;
      return `${(r.falseEndShort * 100).toFixed(1).padStart(12)}% ${(r.falseEndClearShort * 100).toFixed(1).padStart(4)}% ${String(Math.round(r.commitP50)).padStart(4)}`.padEnd(28);
    });
    console.log(`${String(minSilenceMs).padStart(3)} | ${cells.join(' | ')}`);
  }

  const best = paretoBest(distinct);
  const clearBest = paretoBest(distinct, 'clear');
  const top = (rows: LabRow[]) => rows.slice(0, args.top);
  console.log(`\nPareto-best settings, false ends ≤ ${FALSE_END_TARGET * 100}% of ALL pauses ≤ 700 ms (${best.length}; by commit p50; target commit ≤ ~${COMMIT_TARGET_MS} ms when over)`);
  console.log(rowTable(top(best)));
  console.log(`\nPareto-best settings, false ends ≤ ${FALSE_END_TARGET * 100}% of the CLEAR pauses ≤ 700 ms (ambiguous ones — words already a whole turn — not held against it) (${clearBest.length})`);
  console.log(rowTable(top(clearBest)));
  console.log('\nBest per detector (lowest commit p50 on the clear-pause target), and today’s setting (Silero 550, minDelay 500, no detector)');
  const perDetector = DETECTORS.map((d) => clearBest.find((r) => r.detector === d)).filter((r): r is LabRow => r !== undefined);
  const today = distinct.find((r) => r.minSilenceMs === 550 && r.minDelayMs === 500 && r.detector === 'none');
  console.log(rowTable([...perDetector, ...(today ? [today] : [])]));
  console.log('\nFastest settings regardless of false ends (what the target costs)');
  console.log(rowTable([...distinct].sort((a, b) => a.commitP50 - b.commitP50 || a.falseEndShort - b.falseEndShort).slice(0, 5)));

  const total = performance.now() - started;
  console.log(`\n${distinct.length} distinct settings; render ${(timings.renderMs! / 1000).toFixed(1)} s, VAD ${(timings.vadMs! / 1000).toFixed(1)} s, audio model ${(timings.audioModelMs! / 1000).toFixed(1)} s (load ${(timings.audioModelLoadMs! / 1000).toFixed(1)} s), grid ${(timings.gridMs! / 1000).toFixed(1)} s, human speech ${(timings.humanMs! / 1000).toFixed(1)} s, total ${(total / 1000).toFixed(1)} s`);
  if (args.json) {
    writeFileSync(args.json, JSON.stringify({ settings: rows, pareto: best, paretoClear: clearBest, audioModel: answers, humanSpeech: human, transcriptConfusion: confusion, timings }, null, 2));
    console.log(`rows written to ${args.json}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof ArgsError) {
      console.error(`${error.message}\n\n${HELP}`);
      process.exit(2);
    }
    console.error(error);
    process.exit(1);
  },
);
