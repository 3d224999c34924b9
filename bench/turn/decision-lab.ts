/**
 * The combined turn decision (TURN_DETECTOR=combined: Smart Turn v3.2 + the transcript rules +
 * the silence) against the rules it would replace, offline, on the same pauses (a benchmark, not a
 * test): per language, how often the agent would start its reply or its acknowledgement inside a
 * pause the caller went on after, and how long after the caller's last sound it takes a real end.
 *
 * - eSpeak corpus (bench/turn/corpus.ts), real Silero VAD; the framework defaults, firstword's
 *   current setting and LiveKit's local audio model run through the framework's commit rule
 *   (turn-sim.ts), the combined decision through pause-decision.ts on the same VAD trace.
 * - Recorded human speech (`--human DIR`, human-speech.ts; never committed): no transcripts, so
 *   the words are taken to read finished once `--word-lag-ms` after the pause, for firstword's
 *   rule and the combined one alike (their fastest case): what is left to tell them apart is the voice.
 *
 *   npx tsx bench/turn/decision-lab.ts -- [--word-lag-ms 300] [--audio-ms 100] [--human DIR | --no-human] [--files N] [--cache FILE] [--no-espeak]
 *
 * `--cache FILE` keeps Smart Turn's answers between runs (keyed by recording and pause), so the
 * policy can be tuned without running the model again on a loaded machine.
 */
import { initializeLogger } from '@livekit/agents';
import { VAD } from '@livekit/agents-plugin-silero';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AckLanguage } from '../../src/ack/phrases.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { renderUtterance, sampleMs } from '../../src/spoken/utterance.js';
import { SmartTurnModel, pcmToFloat } from '../../src/turn/smart-turn.js';
import { isTurnComplete, predictTurnComplete } from '../../src/turn/transcript-detector.js';
import { DEFAULT_TURN_POLICY } from '../../src/turn/turn-decision.js';
import { ArgsError, readFlags } from '../flags.js';
import { percentile } from '../playout.js';
import { audioModelThreshold, audioRequests, loadAudioModel, separation } from './audio-eot.js';
import { TURN_CORPUS } from './corpus.js';
import { DEFAULT_HUMAN_ROOT, HUMAN_SOURCES, decode } from './human-speech.js';
import { type PauseCase, combinedOutcome, endpointingOutcome, vadPauses } from './pause-decision.js';
import { type Judges, type LabUtterance, type TurnSetting, simulateTurn, turnEvents } from './turn-sim.js';
import { type VadTrace, replayVad, traceVad } from './vad-trace.js';

const SAMPLE_RATE = 16_000;
const SILENCE_MS = 250;

interface Args {
  wordLagMs: number;
  audioMs: number;
  human?: string;
  files: number;
  cache?: string;
  espeak: boolean;
}

function parse(argv: readonly string[]): Args {
  const args: Args = { wordLagMs: 300, audioMs: 100, human: DEFAULT_HUMAN_ROOT, files: 40, espeak: true };
  readFlags(argv, (read) => {
    if (read.flag === '--word-lag-ms') args.wordLagMs = read.num(0, 2000, true);
    else if (read.flag === '--audio-ms') args.audioMs = read.num(0, 2000, true);
    else if (read.flag === '--human') args.human = read.value();
    else if (read.flag === '--no-human') args.human = undefined;
    else if (read.flag === '--files') args.files = read.num(1, 1000, true);
    else if (read.flag === '--cache') args.cache = read.value();
    else if (read.flag === '--no-espeak') args.espeak = false;
    else throw new ArgsError(`unknown flag ${read.flag}`);
  });
  return args;
}

/** One rule's outcome on one language's pauses and ends. */
interface Tally {
  pauses: number;
  replies: number;
  acks: number;
  sounds: number;
  ends: number[];
  ackEnds: number[];
}

const tally = (): Tally => ({ pauses: 0, replies: 0, acks: 0, sounds: 0, ends: [], ackEnds: [] });

function row(name: string, t: Tally): string {
  const pct = (n: number) => `${((100 * n) / Math.max(1, t.pauses)).toFixed(1).padStart(5)} %`;
  const ms = (xs: number[], p: number) => (xs.length ? String(Math.round(percentile(xs, p))).padStart(5) : '    —');
  const ack = t.ackEnds.length ? `${ms(t.ackEnds, 50)} ${ms(t.ackEnds, 90)}` : '    —     —';
  return `${name.padEnd(34)} ${String(t.pauses).padStart(4)}  ${pct(t.replies)}  ${pct(t.acks)}  ${pct(t.sounds)}   ${ms(t.ends, 50)} ${ms(t.ends, 90)}  ${ack}  ${t.ends.filter((e) => !Number.isFinite(e)).length}`;
}

function printTable(title: string, rows: Array<[string, Record<AckLanguage, Tally>]>): void {
  console.log(`\n${title}`);
  for (const language of ['ko', 'en'] as const) {
    console.log(`${language}: rule                               pauses replies-in  acks-in  any-sound  take p50 p90  ack p50 p90  never`);
    for (const [name, t] of rows) console.log(`    ${row(name, t[language])}`);
  }
}

const both = (): Record<AckLanguage, Tally> => ({ ko: tally(), en: tally() });

/** Smart Turn's answers by recording and pause, kept in `--cache FILE` when given. */
class Answers {
  readonly #known: Record<string, number>;
  readonly inferenceMs: number[] = [];

  constructor(
    readonly model: SmartTurnModel,
    readonly file?: string,
  ) {
    this.#known = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>) : {};
  }

  async predict(key: string, pcm: Int16Array): Promise<number> {
    if (this.#known[key] === undefined) {
      const started = performance.now();
      this.#known[key] = await this.model.predict(pcmToFloat(pcm));
      this.inferenceMs.push(performance.now() - started);
    }
    return this.#known[key]!;
  }

  save(): void {
    if (this.file) writeFileSync(this.file, JSON.stringify(this.#known));
  }
}

async function espeak(args: Args, vad: Awaited<ReturnType<typeof VAD.load>>, smart: Answers, mini: ReturnType<typeof loadAudioModel>) {
  const synth = await EspeakSynthesizer.start();
  const utterances: Array<{ u: LabUtterance; samples: Int16Array; trace: VadTrace }> = [];
  try {
    for (const spec of TURN_CORPUS) {
      const r = await renderUtterance(synth, spec, { sampleRate: SAMPLE_RATE, tailMs: 2000 });
      const pieces = r.pieces.map((p, k) => ({ ...spec.pieces[k]!, text: p.text, firstVoicedMs: sampleMs(r, p.firstVoiced), lastVoicedMs: sampleMs(r, p.lastVoiced) }));
      utterances.push({ u: { id: spec.id, language: spec.language, kind: spec.kind, pieces }, samples: r.samples, trace: await traceVad(vad, r.samples, SAMPLE_RATE) });
    }
  } finally {
    await synth.close();
  }
  const judges: Judges = { transcriptOver: (text, language) => isTurnComplete(text, language), audioThreshold: audioModelThreshold, sttFinalAfterMs: args.wordLagMs };
  const baselines: Array<[string, TurnSetting]> = [
    ['framework defaults (VAD 550, 500 ms)', { minSilenceMs: 550, minDelayMs: 500, maxDelayMs: 3000, detector: 'none' }],
    ['firstword today (250, transcript)', { minSilenceMs: 250, minDelayMs: 300, maxDelayMs: 1500, detector: 'transcript' }],
    ['LiveKit v1-mini (250, 300/1500)', { minSilenceMs: 250, minDelayMs: 300, maxDelayMs: 1500, detector: 'audio' }],
  ];
  const rows: Array<[string, Record<AckLanguage, Tally>]> = baselines.map(([name]) => [name, both()]);
  const combined = both();
  const answers: Array<{ language: AckLanguage; end: boolean; p: number }> = [];
  let insidePieceEnds = 0;
  for (const { u, samples, trace } of utterances) {
    const requests = new Map((await audioRequests(mini, samples, replayVad(trace, { minSilenceMs: Number.POSITIVE_INFINITY }))).map((r) => [r.window, r]));
    baselines.forEach(([, setting], i) => {
      const result = simulateTurn(u, turnEvents(u, replayVad(trace, { minSilenceMs: setting.minSilenceMs }), judges), requests, setting, judges);
      const t = rows[i]![1][u.language];
      for (const p of result.pauses) {
        t.pauses++;
        if (p.falseEnd) t.replies++;
        // The early ack speaks only with firstword's own turn handling.
        const acked = setting.detector === 'transcript' && p.falseAck;
        if (acked) t.acks++;
        if (p.falseEnd || acked) t.sounds++;
      }
      t.ends.push(Number.isNaN(result.commitMs) ? Number.POSITIVE_INFINITY : result.commitMs);
      if (setting.detector === 'transcript') t.ackEnds.push(Number.isNaN(result.ackMs) ? Number.POSITIVE_INFINITY : result.ackMs);
    });

    const last = u.pieces.length - 1;
    const pauseFalse = new Map<number, { reply: boolean; ack: boolean }>();
    let end: { endMs: number; ackMs: number } | undefined;
    for (const vp of vadPauses(replayVad(trace, { minSilenceMs: SILENCE_MS }))) {
      let k = 0;
      u.pieces.forEach((p, i) => void (p.firstVoicedMs <= vp.speechEndMs && (k = i)));
      const inside = vp.vadEndMs < u.pieces[k]!.lastVoicedMs;
      const words = u.pieces.slice(0, k + 1).map((p, j) => ({
        atMs: p.lastVoicedMs + args.wordLagMs,
        likelihood: predictTurnComplete(u.pieces.slice(0, j + 1).map((x) => x.text).join(' '), u.language),
        fresh: j === k && !inside,
      }));
      const audio = await smart.predict(`${u.id}@${vp.vadEndMs}`, samples.slice(0, Math.round((vp.vadEndMs / 1000) * SAMPLE_RATE)));
      const c: PauseCase = { ...vp, audio, words };
      const outcome = combinedOutcome(c, args.audioMs);
      if (vp.resumeMs === undefined) {
        end = outcome;
        answers.push({ language: u.language, end: true, p: audio });
        continue;
      }
      const reply = outcome.endMs < vp.resumeMs;
      const ack = outcome.ackMs < vp.resumeMs;
      if (inside) {
        if (reply) insidePieceEnds++;
        continue;
      }
      answers.push({ language: u.language, end: false, p: audio });
      const seen = pauseFalse.get(k) ?? { reply: false, ack: false };
      pauseFalse.set(k, { reply: seen.reply || reply, ack: seen.ack || ack });
    }
    const t = combined[u.language];
    for (let k = 0; k < last; k++) {
      const f = pauseFalse.get(k);
      t.pauses++;
      if (f?.reply) t.replies++;
      if (f?.ack) t.acks++;
      if (f?.reply || f?.ack) t.sounds++;
    }
    const lastVoiced = u.pieces[last]!.lastVoicedMs;
    t.ends.push(end ? end.endMs - lastVoiced : Number.POSITIVE_INFINITY);
    t.ackEnds.push(end ? end.ackMs - lastVoiced : Number.POSITIVE_INFINITY);
  }
  rows.push(['combined (Smart Turn + words)', combined]);
  printTable(`eSpeak corpus (${utterances.length} utterances), words ${args.wordLagMs} ms after their audio, Smart Turn answer ${args.audioMs} ms after the VAD end; "take" and "ack" ms after the last voiced sample`, rows);
  console.log(`combined: turns taken inside a piece (the voice's own gaps): ${insidePieceEnds}`);
  for (const language of ['ko', 'en'] as const) {
    const of = (end: boolean) => answers.filter((a) => a.language === language && a.end === end).map((a) => a.p);
    console.log(`Smart Turn ${language}: ends vs pauses separation (AUC) ${separation(of(false), of(true)).toFixed(2)} (pauses ${of(false).length}, ends ${of(true).length})`);
  }
}

async function human(args: Args, root: string, vad: Awaited<ReturnType<typeof VAD.load>>, smart: Answers, mini: ReturnType<typeof loadAudioModel>) {
  const rows: Array<[string, Record<AckLanguage, Tally>]> = [
    ['framework defaults (VAD 550, 500 ms)', both()],
    ['firstword, words read finished', both()],
    ['LiveKit v1-mini (250, 300/1500)', both()],
    ['combined, words read finished', both()],
  ];
  const auc: Record<AckLanguage, { smart: { p: number[]; e: number[] }; mini: { p: number[]; e: number[] } }> = {
    ko: { smart: { p: [], e: [] }, mini: { p: [], e: [] } },
    en: { smart: { p: [], e: [] }, mini: { p: [], e: [] } },
  };
  const used: string[] = [];
  for (const source of HUMAN_SOURCES) {
    const dir = path.join(root, source.dir);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir).filter(source.pick).sort().slice(0, args.files);
    used.push(`${source.language} ${source.label}: ${files.length} files (${source.licence})`);
    const L = source.language;
    for (const file of files) {
      const samples = await decode(path.join(dir, file));
      const trace = await traceVad(vad, samples, SAMPLE_RATE);
      const pauses = vadPauses(replayVad(trace, { minSilenceMs: SILENCE_MS }));
      // Framework defaults: their own VAD ends at 550 ms, counted against the same pauses (those ≥ 250 ms).
      const framework = rows[0]![1][L];
      for (const vp of vadPauses(replayVad(trace, { minSilenceMs: 550 }))) {
        const at = endpointingOutcome(vp.speechEndMs, vp.vadEndMs, 500);
        record(framework, vp.resumeMs, at - vp.speechEndMs, at, undefined);
      }
      framework.pauses += pauses.filter((vp) => vp.resumeMs !== undefined).length - vadPauses(replayVad(trace, { minSilenceMs: 550 })).filter((vp) => vp.resumeMs !== undefined).length;
      for (const vp of pauses) {
        const at = endpointingOutcome(vp.speechEndMs, vp.vadEndMs, 300);
        // firstword's early ack speaks at the VAD end when the words read finished.
        record(rows[1]![1][L], vp.resumeMs, at - vp.speechEndMs, at, vp.vadEndMs);
      }
      for (const [k, vp] of pauses.entries()) {
        const upTo = samples.slice(0, Math.round((vp.vadEndMs / 1000) * SAMPLE_RATE));
        const p = await smart.predict(`${source.dir}/${file}@${vp.vadEndMs}`, upTo);
        const pm = await mini.predict(upTo.slice(Math.max(0, upTo.length - 19_200)));
        const isEnd = vp.resumeMs === undefined;
        (isEnd ? auc[L].smart.e : auc[L].smart.p).push(p);
        (isEnd ? auc[L].mini.e : auc[L].mini.p).push(pm);
        const miniAt = endpointingOutcome(vp.speechEndMs, vp.vadEndMs, pm >= audioModelThreshold(L) ? 300 : 1500);
        record(rows[2]![1][L], vp.resumeMs, miniAt - vp.speechEndMs, miniAt, undefined);
        // No transcript: the words are taken to read finished once they cover the pause, as for firstword's row.
        const words = [...(k > 0 ? [{ atMs: 0, likelihood: 1, fresh: false }] : []), { atMs: vp.speechEndMs + args.wordLagMs, likelihood: 1, fresh: true }];
        const o = combinedOutcome({ ...vp, audio: p, words }, args.audioMs);
        record(rows[3]![1][L], vp.resumeMs, o.endMs - vp.speechEndMs, o.endMs, o.ackMs);
      }
    }
  }
  if (used.length === 0) return void console.log(`\nHuman speech: none under ${root}.`);
  console.log(`\nHuman speech under ${root} (none of it committed):\n  ${used.join('\n  ')}`);
  printTable(`Human speech: every Silero end of speech the speaker went on after is a pause (at 250 ms; at 550 ms for the framework defaults), the last one the end; words unknown`, rows);
  for (const L of ['ko', 'en'] as const) {
    console.log(`${L}: ends vs pauses (AUC): Smart Turn ${separation(auc[L].smart.p, auc[L].smart.e).toFixed(2)}, v1-mini ${separation(auc[L].mini.p, auc[L].mini.e).toFixed(2)} (pauses ${auc[L].smart.p.length}, ends ${auc[L].smart.e.length})`);
  }
}

/** One VAD end of speech under one rule: a pause (resume defined) or the turn's end. */
function record(t: Tally, resumeMs: number | undefined, takeAfterMs: number, takeAt: number, ackAt: number | undefined): void {
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

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2).filter((a) => a !== '--'));
  initializeLogger({ pretty: false, level: 'error' });
  const started = performance.now();
  const vad = await VAD.load({ minSilenceDuration: 550 });
  const smart = new Answers(await SmartTurnModel.load(), args.cache);
  const mini = loadAudioModel();
  mini.initEot();
  console.log(`Combined turn decision lab; policy ${JSON.stringify(DEFAULT_TURN_POLICY)}. Figures taken on a loaded machine.`);
  try {
    if (args.espeak) await espeak(args, vad, smart, mini);
    if (args.human) await human(args, args.human, vad, smart, mini);
  } finally {
    smart.save();
    await smart.model.close();
  }
  if (smart.inferenceMs.length) console.log(`Smart Turn inference incl. features: p50 ${Math.round(percentile(smart.inferenceMs, 50))} ms, p90 ${Math.round(percentile(smart.inferenceMs, 90))} ms over ${smart.inferenceMs.length} (loaded machine)`);
  console.log(`\ntotal ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof ArgsError ? error.message : error);
    process.exit(error instanceof ArgsError ? 2 : 1);
  },
);
