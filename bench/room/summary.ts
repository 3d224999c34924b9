/**
 * Figures from the joined turns: per strategy x language (and overall) the caller's wait and
 * every stage as p50/p90 after the last voiced sample, ratios to the official plugin, barge-in.
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
  callerWaitP50Ms: number | null;
  callerWaitP90Ms: number | null;
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

export interface Ratio {
  language: string;
  p50: number | null;
  p90: number | null;
}

export interface ScenarioRow {
  scenario: string;
  cells: Record<string, Dist>;
}

/** The same caller wait over the turns that ended with the machine's 1-minute load at most `maxLoad`. */
export interface QuietView {
  maxLoad: number;
  cells: Array<{ name: string; wait: Dist; meanLoad: number | null }>;
  ratio: Ratio;
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

const describeMiss = (t: JoinedTurn) => `#${t.id} ${t.scenario}: ${t.error ?? 'no figure'}`;

function group(name: string, language: string, turns: readonly JoinedTurn[]): Group {
  const ok = turns.filter((t) => t.ok && t.callerWaitMs !== undefined);
  const stages = {} as Group['stages'];
  for (const key of STAGE_KEYS) stages[key] = dist(ok.map((t) => t.stages[key]));
  stages.transport = dist(ok.map((t) => (t.stages.playbackStarted === undefined ? undefined : t.callerWaitMs! - t.stages.playbackStarted)));
  const lk = (key: keyof Group['livekit']) => dist(ok.map((t) => t.livekit?.[key]));
  const wait = dist(ok.map((t) => t.callerWaitMs));
  return {
    name,
    language,
    planned: turns.length,
    turns: ok.length,
    misses: turns.filter((t) => !ok.includes(t)).map(describeMiss),
    callerWaitP50Ms: wait.p50Ms,
    callerWaitP90Ms: wait.p90Ms,
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
    return { language, p50: ratio(fw?.callerWaitP50Ms, lk?.callerWaitP50Ms), p90: ratio(fw?.callerWaitP90Ms, lk?.callerWaitP90Ms) };
  });
  const order = (name: string) => SCENARIOS.findIndex((s) => s.name === name);
  const names = [...new Set(turns.filter((t) => t.kind === 'turn').map((t) => t.scenario))].sort((a, b) => order(a) - order(b));
  const scenarios = names.map((scenario) => ({
    scenario,
    cells: Object.fromEntries(strategies.map((s) => [s, dist(turns.filter((t) => t.kind === 'turn' && t.scenario === scenario && t.strategy === s && t.ok).map((t) => t.callerWaitMs))])),
  }));
  return { strategies, quiet: quietView(turns, strategies), groups, ratios, barge, scenarios, warmups: turns.filter((t) => t.kind === 'warmup') };
}

function quietView(turns: readonly JoinedTurn[], strategies: readonly string[], maxLoad = cpus().length): QuietView {
  const measured = turns.filter((t) => t.kind === 'turn' && t.ok);
  const cells = strategies.map((name) => {
    const mine = measured.filter((t) => t.strategy === name);
    const loads = mine.map((t) => t.load1).filter((v): v is number => v !== undefined);
    return {
      name,
      wait: dist(mine.filter((t) => t.load1 !== undefined && t.load1 <= maxLoad).map((t) => t.callerWaitMs)),
      meanLoad: loads.length ? Math.round((loads.reduce((a, b) => a + b, 0) / loads.length) * 100) / 100 : null,
    };
  });
  const fw = cells.find((c) => c.name === 'firstword')?.wait;
  const lk = cells.find((c) => c.name === 'livekit-cartesia')?.wait;
  return { maxLoad, cells, ratio: { language: 'all', p50: ratio(fw?.p50Ms, lk?.p50Ms), p90: ratio(fw?.p90Ms, lk?.p90Ms) } };
}

export function toJson(summary: Summary, turns: readonly JoinedTurn[], run: { args: RoomArgs; loadBefore: string; loadAfter: string; wallMs: number; driver: unknown; workerWarnings: unknown; fatal: string | null }) {
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
