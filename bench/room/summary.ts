/**
 * Figures from the joined turns: per strategy x language (and overall) the caller's first sound
 * (acknowledgement or reply) and first content (the reply itself), on the caller's ear and as the
 * worker logged them, every stage as p50/p90 after the last voiced sample, ratios to the official
 * plugin, barge-in.
 * Failed turns are counted and listed, never dropped: percentiles are over the turns that
 * produced a number, next to how many did not.
 */
import { cpus } from 'node:os';
import { percentile } from '../playout.js';
import { SCENARIOS } from '../scenarios.js';
import { type JoinedTurn, STAGE_KEYS, type StageKey } from './join.js';
import type { RoomArgs } from './args.js';

export interface Dist {
  n: number;
  p50Ms: number | null;
  p90Ms: number | null;
}

export interface Group {
  name: string;
  /** 'ko', 'en' or 'all'. */
  language: string;
  /** Turns planned, and those that produced a caller wait. */
  planned: number;
  turns: number;
  misses: string[];
  /** The caller's ear: first agent audio, and the reply's first audio (turns where its tone told it). */
  firstSound: Dist;
  firstContent: Dist;
  /** The worker's `firstSoundMs` / `firstContentMs` of the joined turns (its estimate of the caller's clock). */
  workerFirstSound: Dist;
  workerFirstContent: Dist;
  /** |ear - worker| per turn: how far the worker's estimate of the caller's clock was from the caller's own. */
  soundOff: Dist;
  contentOff: Dist;
  /** Turns measured whose reply the ear could not tell from the acknowledgement. */
  contentMisses: number;
  /** How the acknowledgement went, per the worker's lines (played, skipped ...). */
  acks: Record<string, number>;
  stages: Record<StageKey | 'transport', Dist>;
  livekit: Record<'endOfUtteranceDelayMs' | 'transcriptionDelayMs' | 'llmTtftMs' | 'ttsTtfbMs', Dist>;
  /** Replies with a silence of 100 ms or more inside them, and their total silence. */
  gapTurns: number;
  gapMs: number;
  logMisses: number;
}

export interface BargeGroup {
  name: string;
  language: string;
  planned: number;
  measured: number;
  misses: string[];
  p50Ms: number | null;
  p90Ms: number | null;
  /** The barge-in turns' own caller wait, before the cut. */
  callerWait: Dist;
}

export interface Pair {
  p50: number | null;
  p90: number | null;
}

/** firstword / LiveKit's plugin, per figure. */
export interface Ratio {
  language: string;
  firstSound: Pair;
  firstContent: Pair;
  workerFirstSound: Pair;
  workerFirstContent: Pair;
}

export interface ScenarioRow {
  scenario: string;
  cells: Record<string, { sound: Dist; content: Dist }>;
}

/** The same figures over the turns that ended with the machine's 1-minute load at most `maxLoad`. */
export interface QuietView {
  maxLoad: number;
  cells: Array<{ name: string; sound: Dist; content: Dist; meanLoad: number | null }>;
  ratio: { firstSound: Pair; firstContent: Pair };
}

export interface Summary {
  strategies: string[];
  quiet: QuietView;
  groups: Group[];
  ratios: Ratio[];
  barge: BargeGroup[];
  scenarios: ScenarioRow[];
  warmups: JoinedTurn[];
}

const round = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

export function dist(values: ReadonlyArray<number | undefined>): Dist {
  const present = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (present.length === 0) return { n: 0, p50Ms: null, p90Ms: null };
  return { n: present.length, p50Ms: round(percentile(present, 50)), p90Ms: round(percentile(present, 90)) };
}

const off = (ear: number | undefined, worker: number | undefined) => (ear === undefined || worker === undefined ? undefined : Math.abs(ear - worker));

const describeMiss = (t: JoinedTurn) => `#${t.id} ${t.scenario}: ${t.error ?? 'no figure'}`;

function group(name: string, language: string, turns: readonly JoinedTurn[]): Group {
  const ok = turns.filter((t) => t.ok && t.callerWaitMs !== undefined);
  const stages = {} as Group['stages'];
  for (const key of STAGE_KEYS) stages[key] = dist(ok.map((t) => t.stages[key]));
  // The reply's first frame from the worker's output to the caller's ear.
  stages.transport = dist(ok.map((t) => (t.stages.playbackStarted === undefined || t.stages.received === undefined ? undefined : t.stages.received - t.stages.playbackStarted)));
  const lk = (key: keyof Group['livekit']) => dist(ok.map((t) => t.livekit?.[key]));
  const acks: Record<string, number> = {};
  for (const t of ok) if (t.worker) acks[t.worker.ack ?? 'none'] = (acks[t.worker.ack ?? 'none'] ?? 0) + 1;
  return {
    name,
    language,
    planned: turns.length,
    turns: ok.length,
    misses: turns.filter((t) => !ok.includes(t)).map(describeMiss),
    firstSound: dist(ok.map((t) => t.callerWaitMs)),
    firstContent: dist(ok.map((t) => t.firstContentMs)),
    workerFirstSound: dist(ok.map((t) => t.worker?.firstSoundMs)),
    workerFirstContent: dist(ok.map((t) => t.worker?.firstContentMs)),
    soundOff: dist(ok.map((t) => off(t.callerWaitMs, t.worker?.firstSoundMs))),
    contentOff: dist(ok.map((t) => off(t.firstContentMs, t.worker?.firstContentMs))),
    contentMisses: ok.filter((t) => t.firstContentMs === undefined).length,
    acks,
    stages,
    livekit: { endOfUtteranceDelayMs: lk('endOfUtteranceDelayMs'), transcriptionDelayMs: lk('transcriptionDelayMs'), llmTtftMs: lk('llmTtftMs'), ttsTtfbMs: lk('ttsTtfbMs') },
    gapTurns: ok.filter((t) => (t.gaps ?? 0) > 0).length,
    gapMs: ok.reduce((n, t) => n + (t.gapMs ?? 0), 0),
    logMisses: ok.filter((t) => t.logMiss !== undefined).length,
  };
}

function bargeGroup(name: string, language: string, turns: readonly JoinedTurn[]): BargeGroup {
  const measured = turns.filter((t) => t.ok && t.barge?.ms !== undefined);
  const d = dist(measured.map((t) => t.barge!.ms));
  return {
    name,
    language,
    planned: turns.length,
    measured: measured.length,
    misses: turns.filter((t) => !measured.includes(t)).map(describeMiss),
    p50Ms: d.p50Ms,
    p90Ms: d.p90Ms,
    callerWait: dist(turns.map((t) => t.callerWaitMs)),
  };
}

const ratio = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null || b === 0 ? null : Math.round((a / b) * 1000) / 1000);
const pair = (fw: Dist | undefined, lk: Dist | undefined): Pair => ({ p50: ratio(fw?.p50Ms, lk?.p50Ms), p90: ratio(fw?.p90Ms, lk?.p90Ms) });

export function summarize(turns: readonly JoinedTurn[]): Summary {
  const strategies = [...new Set(turns.map((t) => t.strategy))];
  const languages = [...new Set(turns.map((t) => t.language))].sort();
  const groups: Group[] = [];
  const barge: BargeGroup[] = [];
  for (const name of strategies) {
    const mine = turns.filter((t) => t.strategy === name);
    for (const language of [...languages, 'all']) {
      const pick = (kind: string) => mine.filter((t) => t.kind === kind && (language === 'all' || t.language === language));
      groups.push(group(name, language, pick('turn')));
      if (pick('barge').length) barge.push(bargeGroup(name, language, pick('barge')));
    }
  }
  const find = (name: string, language: string) => groups.find((g) => g.name === name && g.language === language);
  const ratios = [...languages, 'all'].map((language) => {
    const fw = find('firstword', language);
    const lk = find('livekit-cartesia', language);
    return {
      language,
      firstSound: pair(fw?.firstSound, lk?.firstSound),
      firstContent: pair(fw?.firstContent, lk?.firstContent),
      workerFirstSound: pair(fw?.workerFirstSound, lk?.workerFirstSound),
      workerFirstContent: pair(fw?.workerFirstContent, lk?.workerFirstContent),
    };
  });
  const order = (name: string) => SCENARIOS.findIndex((s) => s.name === name);
  const names = [...new Set(turns.filter((t) => t.kind === 'turn').map((t) => t.scenario))].sort((a, b) => order(a) - order(b));
  const scenarios = names.map((scenario) => ({
    scenario,
    cells: Object.fromEntries(
      strategies.map((s) => {
        const mine = turns.filter((t) => t.kind === 'turn' && t.scenario === scenario && t.strategy === s && t.ok);
        return [s, { sound: dist(mine.map((t) => t.callerWaitMs)), content: dist(mine.map((t) => t.firstContentMs)) }];
      }),
    ),
  }));
  return { strategies, quiet: quietView(turns, strategies), groups, ratios, barge, scenarios, warmups: turns.filter((t) => t.kind === 'warmup') };
}

function quietView(turns: readonly JoinedTurn[], strategies: readonly string[], maxLoad = cpus().length): QuietView {
  const measured = turns.filter((t) => t.kind === 'turn' && t.ok);
  const cells = strategies.map((name) => {
    const mine = measured.filter((t) => t.strategy === name);
    const loads = mine.map((t) => t.load1).filter((v): v is number => v !== undefined);
    const quiet = mine.filter((t) => t.load1 !== undefined && t.load1 <= maxLoad);
    return {
      name,
      sound: dist(quiet.map((t) => t.callerWaitMs)),
      content: dist(quiet.map((t) => t.firstContentMs)),
      meanLoad: loads.length ? Math.round((loads.reduce((a, b) => a + b, 0) / loads.length) * 100) / 100 : null,
    };
  });
  const fw = cells.find((c) => c.name === 'firstword');
  const lk = cells.find((c) => c.name === 'livekit-cartesia');
  return { maxLoad, cells, ratio: { firstSound: pair(fw?.sound, lk?.sound), firstContent: pair(fw?.content, lk?.content) } };
}

export function toJson(summary: Summary, turns: readonly JoinedTurn[], run: { args: RoomArgs; loadBefore: string; loadAfter: string; wallMs: number; driver: unknown; workerWarnings: unknown; fatal: string | null; joinProblems: string[] }) {
  return {
    strategies: summary.groups.filter((g) => g.language !== 'all'),
    overall: summary.groups.filter((g) => g.language === 'all'),
    ratios: summary.ratios,
    quietTurns: summary.quiet,
    bargeIn: summary.barge,
    scenarios: summary.scenarios,
    run: { ...run, args: { ...run.args } },
    turns,
  };
}
