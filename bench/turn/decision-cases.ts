/**
 * The combined-decision lab's material, gathered once: per set (the eSpeak corpus, recorded human
 * speech) every VAD end of speech with Smart Turn's answer and the words' evidence (decision-tally.ts
 * `TurnCases`), and the rules the combined decision would replace already counted on the same
 * pauses. What costs time (eSpeak, Silero, the models) happens here; any policy is then arithmetic.
 *
 * - eSpeak corpus (bench/turn/corpus.ts), real Silero VAD; the framework defaults, firstword's
 *   current setting and LiveKit's local audio model run through the framework's commit rule
 *   (turn-sim.ts) on the same VAD trace.
 * - Recorded human speech (human-speech.ts; never committed): no transcripts, so the words are
 *   taken to read finished once `wordLagMs` after the pause, for firstword's rule and the combined
 *   one alike (their fastest case): what is left to tell them apart is the voice.
 */
import { type VAD, initializeLogger } from '@livekit/agents';
import { VAD as SileroVAD } from '@livekit/agents-plugin-silero';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AckLanguage } from '../../src/ack/phrases.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { renderUtterance, sampleMs } from '../../src/spoken/utterance.js';
import { SmartTurnModel, pcmToFloat } from '../../src/turn/smart-turn.js';
import { isTurnComplete, predictTurnComplete } from '../../src/turn/transcript-detector.js';
import { ArgsError, type FlagReader, readFlags } from '../flags.js';
import { audioModelThreshold, audioRequests, loadAudioModel } from './audio-eot.js';
import { TURN_CORPUS } from './corpus.js';
import { type Tally, type TurnCases, both, record } from './decision-tally.js';
import { DEFAULT_HUMAN_ROOT, HUMAN_SOURCES, decode } from './human-speech.js';
import { endpointingOutcome, vadPauses } from './pause-decision.js';
import { type Judges, type LabUtterance, type TurnSetting, simulateTurn, turnEvents } from './turn-sim.js';
import { type VadTrace, replayVad, traceVad } from './vad-trace.js';

const SAMPLE_RATE = 16_000;
/** Silero's end of speech for the combined decision: the worker's TURN_SILENCE_MS. */
export const SILENCE_MS = 250;

export type SetName = 'espeak' | 'human';

export interface CollectOptions {
  wordLagMs: number;
  /** Recordings per human source. */
  files: number;
}

/** One set's pauses, and the rules that are not the combined decision, counted on them. */
export interface DecisionSet {
  name: SetName;
  turns: TurnCases[];
  /** The fixed rules (they do not depend on the combined decision's policy), in REFERENCES' order. */
  references: Array<{ key: ReferenceKey; label: string; tally: Record<AckLanguage, Tally> }>;
  /** Each model's P(finished) at pauses and at ends, for their separation (AUC). */
  answers: Array<{ language: AckLanguage; model: 'smart' | 'mini'; end: boolean; p: number }>;
  /** Human sources read, with their file counts and licences. */
  sources: string[];
}

/** The rules the combined decision is measured against: the framework's defaults, firstword's rule, LiveKit's model. */
export const REFERENCES = ['framework', 'firstword', 'mini'] as const;
export type ReferenceKey = (typeof REFERENCES)[number];
const LABELS: Record<SetName, Record<ReferenceKey, string>> = {
  espeak: { framework: 'framework defaults (VAD 550, 500 ms)', firstword: 'firstword today (250, transcript)', mini: 'LiveKit v1-mini (250, 300/1500)' },
  human: { framework: 'framework defaults (VAD 550, 500 ms)', firstword: 'firstword, words read finished', mini: 'LiveKit v1-mini (250, 300/1500)' },
};
const references = (name: SetName): DecisionSet['references'] => REFERENCES.map((key) => ({ key, label: LABELS[name][key], tally: both() }));

type AudioModel = ReturnType<typeof loadAudioModel>;

/** Smart Turn's answers by recording and pause, kept in `file` when given. */
export class Answers {
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

const upTo = (samples: Int16Array, ms: number) => samples.slice(0, Math.round((ms / 1000) * SAMPLE_RATE));

export async function collectEspeak(options: CollectOptions, vad: VAD, smart: Answers, mini: AudioModel): Promise<DecisionSet> {
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
  const judges: Judges = { transcriptOver: (text, language) => isTurnComplete(text, language), audioThreshold: audioModelThreshold, sttFinalAfterMs: options.wordLagMs };
  const baselines: Record<ReferenceKey, TurnSetting> = {
    framework: { minSilenceMs: 550, minDelayMs: 500, maxDelayMs: 3000, detector: 'none' },
    firstword: { minSilenceMs: SILENCE_MS, minDelayMs: 300, maxDelayMs: 1500, detector: 'transcript' },
    mini: { minSilenceMs: SILENCE_MS, minDelayMs: 300, maxDelayMs: 1500, detector: 'audio' },
  };
  const set: DecisionSet = { name: 'espeak', turns: [], references: references('espeak'), answers: [], sources: [] };
  for (const { u, samples, trace } of utterances) {
    const requests = new Map((await audioRequests(mini, samples, replayVad(trace, { minSilenceMs: Number.POSITIVE_INFINITY }))).map((r) => [r.window, r]));
    for (const reference of set.references) {
      const setting = baselines[reference.key];
      const result = simulateTurn(u, turnEvents(u, replayVad(trace, { minSilenceMs: setting.minSilenceMs }), judges), requests, setting, judges);
      const t = reference.tally[u.language];
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
    }

    const last = u.pieces.length - 1;
    const turn: TurnCases = { language: u.language, slots: last, lastSoundMs: u.pieces[last]!.lastVoicedMs, cases: [] };
    for (const vp of vadPauses(replayVad(trace, { minSilenceMs: SILENCE_MS }))) {
      let k = 0;
      u.pieces.forEach((p, i) => void (p.firstVoicedMs <= vp.speechEndMs && (k = i)));
      const inside = vp.vadEndMs < u.pieces[k]!.lastVoicedMs;
      const words = u.pieces.slice(0, k + 1).map((p, j) => ({
        atMs: p.lastVoicedMs + options.wordLagMs,
        likelihood: predictTurnComplete(u.pieces.slice(0, j + 1).map((x) => x.text).join(' '), u.language),
        fresh: j === k && !inside,
      }));
      const audio = await smart.predict(`${u.id}@${vp.vadEndMs}`, upTo(samples, vp.vadEndMs));
      turn.cases.push({ pause: { ...vp, audio, words }, slot: k, inside });
      if (!inside || vp.resumeMs === undefined) set.answers.push({ language: u.language, model: 'smart', end: vp.resumeMs === undefined, p: audio });
    }
    set.turns.push(turn);
  }
  return set;
}

export async function collectHuman(options: CollectOptions, root: string, vad: VAD, smart: Answers, mini: AudioModel): Promise<DecisionSet> {
  const set: DecisionSet = { name: 'human', turns: [], references: references('human'), answers: [], sources: [] };
  const tallyOf = (key: ReferenceKey) => set.references.find((r) => r.key === key)!.tally;
  const [framework, firstword, miniRule] = [tallyOf('framework'), tallyOf('firstword'), tallyOf('mini')];
  for (const source of HUMAN_SOURCES) {
    const dir = path.join(root, source.dir);
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir).filter(source.pick).sort().slice(0, options.files);
    set.sources.push(`${source.language} ${source.label}: ${files.length} files (${source.licence})`);
    const L = source.language;
    for (const file of files) {
      const samples = await decode(path.join(dir, file));
      const trace = await traceVad(vad, samples, SAMPLE_RATE);
      const pauses = vadPauses(replayVad(trace, { minSilenceMs: SILENCE_MS }));
      // Framework defaults: their own VAD ends at 550 ms, counted against the same pauses (those ≥ 250 ms).
      const frameworkPauses = vadPauses(replayVad(trace, { minSilenceMs: 550 }));
      for (const vp of frameworkPauses) {
        const at = endpointingOutcome(vp.speechEndMs, vp.vadEndMs, 500);
        record(framework[L], vp.resumeMs, at - vp.speechEndMs, at, undefined);
      }
      framework[L].pauses += pauses.filter((vp) => vp.resumeMs !== undefined).length - frameworkPauses.filter((vp) => vp.resumeMs !== undefined).length;
      const turn: TurnCases = { language: L, slots: 0, lastSoundMs: Number.NaN, cases: [] };
      for (const [k, vp] of pauses.entries()) {
        const at = endpointingOutcome(vp.speechEndMs, vp.vadEndMs, 300);
        // firstword's early ack speaks at the VAD end when the words read finished.
        record(firstword[L], vp.resumeMs, at - vp.speechEndMs, at, vp.vadEndMs);
        const heard = upTo(samples, vp.vadEndMs);
        const p = await smart.predict(`${source.dir}/${file}@${vp.vadEndMs}`, heard);
        const pm = await mini.predict(heard.slice(Math.max(0, heard.length - 19_200)));
        const isEnd = vp.resumeMs === undefined;
        set.answers.push({ language: L, model: 'smart', end: isEnd, p }, { language: L, model: 'mini', end: isEnd, p: pm });
        const miniAt = endpointingOutcome(vp.speechEndMs, vp.vadEndMs, pm >= audioModelThreshold(L) ? 300 : 1500);
        record(miniRule[L], vp.resumeMs, miniAt - vp.speechEndMs, miniAt, undefined);
        // No transcript: the words are taken to read finished once they cover the pause, as for firstword's row.
        const words = [...(k > 0 ? [{ atMs: 0, likelihood: 1, fresh: false }] : []), { atMs: vp.speechEndMs + options.wordLagMs, likelihood: 1, fresh: true }];
        turn.cases.push({ pause: { ...vp, audio: p, words }, slot: k });
        if (isEnd) turn.lastSoundMs = vp.speechEndMs;
        else turn.slots++;
      }
      if (turn.cases.length > 0) set.turns.push(turn);
    }
  }
  return set;
}

export interface LabArgs {
  wordLagMs: number;
  audioMs: number;
  human?: string;
  files: number;
  cache?: string;
  espeak: boolean;
}

/** The lab's flags; `extra` reads a caller's own (return true when it took the flag). */
export function parseLabArgs(argv: readonly string[], extra?: (read: FlagReader) => boolean): LabArgs {
  const args: LabArgs = { wordLagMs: 300, audioMs: 100, human: DEFAULT_HUMAN_ROOT, files: 40, espeak: true };
  readFlags(argv, (read) => {
    if (read.flag === '--word-lag-ms') args.wordLagMs = read.num(0, 2000, true);
    else if (read.flag === '--audio-ms') args.audioMs = read.num(0, 2000, true);
    else if (read.flag === '--human') args.human = read.value();
    else if (read.flag === '--no-human') args.human = undefined;
    else if (read.flag === '--files') args.files = read.num(1, 1000, true);
    else if (read.flag === '--cache') args.cache = read.value();
    else if (read.flag === '--no-espeak') args.espeak = false;
    else if (!extra?.(read)) throw new ArgsError(`unknown flag ${read.flag}`);
  });
  return args;
}

/**
 * Silero, Smart Turn (through the cache) and LiveKit's model over the sets the flags ask for,
 * once. A human root with none of the sources yields no human set.
 */
export async function collectSets(args: LabArgs): Promise<{ sets: DecisionSet[]; inferenceMs: number[] }> {
  initializeLogger({ pretty: false, level: 'error' });
  const vad = await SileroVAD.load({ minSilenceDuration: 550 });
  const smart = new Answers(await SmartTurnModel.load(), args.cache);
  const mini = loadAudioModel();
  mini.initEot();
  const sets: DecisionSet[] = [];
  const options = { wordLagMs: args.wordLagMs, files: args.files };
  try {
    if (args.espeak) sets.push(await collectEspeak(options, vad, smart, mini));
    if (args.human) {
      const human = await collectHuman(options, args.human, vad, smart, mini);
      if (human.sources.length > 0) sets.push(human);
    }
  } finally {
    smart.save();
    await smart.model.close();
  }
  return { sets, inferenceMs: smart.inferenceMs };
}
