/**
 * The combined turn decision over a grid of policies (floor, bound, sure and unsure levels), on the
 * pauses the lab gathers (decision-cases.ts: eSpeak corpus and recorded human speech, Silero and
 * Smart Turn run once), beside the framework's defaults and firstword's transcript rule on the
 * same pauses. Per set, language and policy: replies and acknowledgements started inside a pause,
 * take p50/p90 and ack p50 after the caller's last sound. Then the knee (knee.ts) of the Pareto
 * front of (replies in a pause, take p50) with both sets and both languages weighed alike — one
 * default for the worker — and, per set and language, what keeping replies in a pause ≤ 3 % costs.
 *
 *   npx tsx bench/turn/decision-sweep.ts -- [the lab's flags] [--json FILE] [--svg PREFIX]
 *
 * `--svg PREFIX` writes PREFIX-<set>-<language>.svg (decision-plot.ts). Pass `--cache FILE` so
 * Smart Turn's answers come from the lab's earlier runs.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { AckLanguage } from '../../src/ack/phrases.js';
import { type TurnPolicy, DEFAULT_TURN_POLICY } from '../../src/turn/turn-decision.js';
import { ArgsError } from '../flags.js';
import { type DecisionSet, type SetName, collectSets, parseLabArgs } from './decision-cases.js';
import { sweepChart } from './decision-plot.js';
import { type TallyFigures, LANGUAGES, combinedTally, figures } from './decision-tally.js';
import { knee, kneeDepth, paretoFront } from './knee.js';

const GRID = {
  minSilenceMs: [200, 250, 300, 400, 500, 600, 700, 800, 1000],
  maxSilenceMs: [1000, 1500, 2000, 3000],
  sureLevel: [0.7, 0.8, 0.9],
  unsureLevel: [0.25, 0.4],
};
/** How the charts name the reference rules (`firstword today` on human speech: its words read finished). */
const REFERENCE_LEGEND: Record<string, string> = {
  framework: 'framework defaults: VAD 550 ms, endpointing 500 ms',
  firstword: 'firstword today: VAD 250 ms, transcript rule, 300/1500 ms',
};
/** The replies-in-a-pause rate the turn-taking targets aim under (docs/latency.md). */
const REPLY_TARGET_PCT = 3;

/**
 * Every policy of the grid, today's default's values first along each axis: among policies with
 * the same figures the knee takes the one given first, so nothing changes that the figures do not ask for.
 */
function grid(): TurnPolicy[] {
  const first = <K extends keyof typeof GRID>(key: K) => [...GRID[key]].sort((a, b) => Number(b === DEFAULT_TURN_POLICY[key]) - Number(a === DEFAULT_TURN_POLICY[key]));
  const out: TurnPolicy[] = [];
  for (const minSilenceMs of first('minSilenceMs'))
    for (const maxSilenceMs of first('maxSilenceMs'))
      for (const sureLevel of first('sureLevel'))
        for (const unsureLevel of first('unsureLevel')) {
          if (minSilenceMs <= maxSilenceMs && unsureLevel < sureLevel) out.push({ ...DEFAULT_TURN_POLICY, minSilenceMs, maxSilenceMs, sureLevel, unsureLevel });
        }
  const changes = (p: TurnPolicy) => (Object.keys(GRID) as Array<keyof typeof GRID>).filter((k) => p[k] !== DEFAULT_TURN_POLICY[k]).length;
  return out.sort((a, b) => changes(a) - changes(b));
}

const policyLabel = (p: TurnPolicy) => `${p.minSilenceMs}/${p.maxSilenceMs} ms, ${p.sureLevel}/${p.unsureLevel}`;
const samePolicy = (a: TurnPolicy, b: TurnPolicy) => policyLabel(a) === policyLabel(b);

interface Group {
  set: SetName;
  language: AckLanguage;
  /** Figures per policy, in grid order. */
  points: Array<{ policy: TurnPolicy; figures: TallyFigures }>;
  references: Array<{ key: string; label: string; figures: TallyFigures }>;
}

function groups(sets: readonly DecisionSet[], policies: readonly TurnPolicy[], audioMs: number): Group[] {
  return sets.flatMap((set) => {
    const perPolicy = policies.map((policy) => ({ policy, tally: combinedTally(set.turns, audioMs, policy).byLanguage }));
    return LANGUAGES.map((language) => ({
      set: set.name,
      language,
      points: perPolicy.map(({ policy, tally }) => ({ policy, figures: figures(tally[language]) })),
      references: set.references.filter((r) => r.key !== 'mini').map((r) => ({ key: r.key, label: r.label, figures: figures(r.tally[language]) })),
    }));
  });
}

/** Each policy's figures averaged over the groups, each group weighed alike; policies with a real end never taken are left out. */
function pooled(all: readonly Group[], policies: readonly TurnPolicy[]) {
  return policies.flatMap((policy, i) => {
    const fs = all.map((g) => g.points[i]!.figures);
    if (fs.some((f) => !Number.isFinite(f.takeP50Ms))) return [];
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return [{ policy, x: mean(fs.map((f) => f.repliesInPausePct)), y: mean(fs.map((f) => f.takeP50Ms)) }];
  });
}

/**
 * Points with the same figures once, as the first given, with how many it stands for: in grid
 * order (paretoFront's sort is stable), the one nearest today's default.
 */
function distinct<T extends { x: number; y: number }>(points: readonly T[]): Array<T & { same: number }> {
  const byFigures = new Map<string, T & { same: number }>();
  for (const p of points) {
    const key = `${p.x}/${p.y}`;
    const kept = byFigures.get(key);
    if (kept) kept.same++;
    else byFigures.set(key, { ...p, same: 0 });
  }
  return [...byFigures.values()];
}

const fmt = (f: TallyFigures) => ({
  pauses: f.pauses,
  repliesInPausePct: round(f.repliesInPausePct, 1),
  acksInPausePct: round(f.acksInPausePct, 1),
  takeP50Ms: round(f.takeP50Ms),
  takeP90Ms: round(f.takeP90Ms),
  ackP50Ms: f.ackP50Ms === undefined ? null : round(f.ackP50Ms),
  never: f.never,
});
const round = (x: number, digits = 0) => (Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : null);

function line(name: string, f: TallyFigures): string {
  const r = fmt(f);
  return `  ${name.padEnd(40)} ${String(r.repliesInPausePct).padStart(6)} % ${String(r.acksInPausePct).padStart(6)} %  ${String(r.takeP50Ms).padStart(5)} ${String(r.takeP90Ms).padStart(5)}  ${String(r.ackP50Ms ?? '—').padStart(5)}`;
}

async function main(): Promise<void> {
  let json: string | undefined;
  let svg: string | undefined;
  const argv = process.argv.slice(2).filter((a) => a !== '--');
  const args = parseLabArgs(argv, (read) => {
    if (read.flag === '--json') json = read.value();
    else if (read.flag === '--svg') svg = read.value();
    else return false;
    return true;
  });
  const load = [loadavg()[0]!];
  const started = performance.now();
  const { sets, inferenceMs } = await collectSets(args);
  if (inferenceMs.length) console.log(`Smart Turn ran ${inferenceMs.length} times (answers not in the cache)`);
  const collectedS = (performance.now() - started) / 1000;
  const gridStarted = performance.now();
  const policies = grid();
  const all = groups(sets, policies, args.audioMs);
  const points = pooled(all, policies);
  const chosen = knee(points);
  const gridS = (performance.now() - gridStarted) / 1000;
  load.push(loadavg()[0]!);

  const report = all.map((g) => {
    const at = (p: TurnPolicy) => g.points.find((q) => samePolicy(q.policy, p))!.figures;
    const own = g.points.filter((q) => Number.isFinite(q.figures.takeP50Ms)).map((q) => ({ ...q, x: q.figures.repliesInPausePct, y: q.figures.takeP50Ms }));
    const front = distinct(paretoFront(own));
    const underTarget = own.filter((q) => q.x <= REPLY_TARGET_PCT).sort((a, b) => a.y - b.y)[0];
    return { g, at, front, ownKnee: knee(own), underTarget };
  });

  console.log(`\nCombined turn decision over ${policies.length} policies (backchannelLevel ${DEFAULT_TURN_POLICY.backchannelLevel}); words ${args.wordLagMs} ms after their audio, Smart Turn ${args.audioMs} ms after the VAD end`);
  console.log(`Knee over both sets and languages (mean replies in a pause, mean take p50): ${policyLabel(chosen.policy)} at ${chosen.x.toFixed(1)} %, ${Math.round(chosen.y)} ms (depth ${kneeDepth(points).toFixed(2)}); today's default ${policyLabel(DEFAULT_TURN_POLICY)}`);
  console.log('pooled front:');
  for (const q of distinct(paretoFront(points))) console.log(`  ${policyLabel(q.policy).padEnd(24)}${q.same ? ` +${q.same}` : ''}  ${q.x.toFixed(1).padStart(5)} %  ${Math.round(q.y)} ms`);
  for (const { g, at, front, ownKnee, underTarget } of report) {
    console.log(`\n${g.set} ${g.language}: ${g.points[0]!.figures.pauses} pauses                 replies-in  acks-in  take p50  p90  ack p50`);
    for (const r of g.references) console.log(line(r.label, r.figures));
    console.log(line(`default ${policyLabel(DEFAULT_TURN_POLICY)}`, at(DEFAULT_TURN_POLICY)));
    console.log(line(`knee ${policyLabel(chosen.policy)}`, at(chosen.policy)));
    console.log(line(`own knee ${policyLabel(ownKnee.policy)}`, ownKnee.figures));
    console.log(underTarget ? line(`fastest ≤ ${REPLY_TARGET_PCT} %: ${policyLabel(underTarget.policy)}`, underTarget.figures) : `  no policy keeps replies in a pause ≤ ${REPLY_TARGET_PCT} %`);
    console.log(`  front (${front.length} points; +N: other policies with the same figures):`);
    for (const q of front) console.log(line(`  ${policyLabel(q.policy)}${q.same ? ` +${q.same}` : ''}`, q.figures));
  }

  if (svg) {
    for (const { g, at, front } of report) {
      const marked = [
        { label: `knee: ${policyLabel(chosen.policy)}`, figures: at(chosen.policy) },
        { label: `default: ${policyLabel(DEFAULT_TURN_POLICY)}`, figures: at(DEFAULT_TURN_POLICY) },
        ...g.references.map((r) => ({ label: REFERENCE_LEGEND[r.key], figures: r.figures })),
      ];
      const plot = (kind: 'grid' | 'front' | 'marked', f: TallyFigures, label?: string) => ({ kind, label, repliesPct: f.repliesInPausePct, takeP50Ms: f.takeP50Ms, acksPct: f.ackP50Ms === undefined ? undefined : f.acksInPausePct, ackP50Ms: f.ackP50Ms });
      const title = `${g.set === 'espeak' ? 'eSpeak corpus' : 'Recorded human speech (words read finished)'}, ${g.language}: ${g.points[0]!.figures.pauses} pauses, ${policies.length} policies`;
      const file = `${svg}-${g.set}-${g.language}.svg`;
      writeFileSync(file, await sweepChart(title, [...g.points.map((q) => plot('grid', q.figures)), ...front.map((q) => plot('front', q.figures)), ...marked.map((m) => plot('marked', m.figures, m.label))]));
      console.log(`wrote ${file}`);
    }
  }
  if (json) {
    const out = {
      command: `npx tsx bench/turn/decision-sweep.ts ${argv.join(' ')}`,
      machine: { cores: cpus().length, node: process.version, loadAverage1m: { start: round(load[0]!, 2), end: round(load[1]!, 2) } },
      seconds: { collect: round(collectedS, 1), grid: round(gridS, 2) },
      smartTurnRuns: inferenceMs.length,
      options: { wordLagMs: args.wordLagMs, audioMs: args.audioMs, files: args.files, silenceMs: 250 },
      grid: { ...GRID, backchannelLevel: DEFAULT_TURN_POLICY.backchannelLevel, policies: policies.length },
      kneeRule: 'Pareto front of (mean replies-in-a-pause %, mean take p50) over both sets and both languages alike; knee = the front point farthest below the chord between its ends, each axis scaled to the front range; ties: faster, fewer replies, nearer the default',
      knee: { policy: chosen.policy, meanRepliesInPausePct: round(chosen.x, 2), meanTakeP50Ms: round(chosen.y), depth: round(kneeDepth(points), 3) },
      default: DEFAULT_TURN_POLICY,
      pooledFront: distinct(paretoFront(points)).map((q) => ({ policy: policyLabel(q.policy), samePolicies: q.same, meanRepliesInPausePct: round(q.x, 2), meanTakeP50Ms: round(q.y) })),
      groups: report.map(({ g, at, front, ownKnee, underTarget }) => ({
        set: g.set,
        language: g.language,
        references: Object.fromEntries(g.references.map((r) => [r.label, fmt(r.figures)])),
        default: fmt(at(DEFAULT_TURN_POLICY)),
        knee: fmt(at(chosen.policy)),
        ownKnee: { policy: policyLabel(ownKnee.policy), ...fmt(ownKnee.figures) },
        fastestUnderTarget: underTarget ? { targetPct: REPLY_TARGET_PCT, policy: policyLabel(underTarget.policy), ...fmt(underTarget.figures) } : null,
        front: front.map((q) => ({ policy: policyLabel(q.policy), samePolicies: q.same, ...fmt(q.figures) })),
        all: g.points.map((q) => ({ policy: policyLabel(q.policy), ...fmt(q.figures) })),
      })),
    };
    writeFileSync(json, `${JSON.stringify(out, null, 1)}\n`);
    console.log(`wrote ${json}`);
  }
  console.log(`\ngathered in ${collectedS.toFixed(1)} s, ${policies.length} policies counted in ${gridS.toFixed(2)} s; load average ${load.map((l) => l.toFixed(1)).join(' → ')} on ${cpus().length} cores`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof ArgsError ? error.message : error);
    process.exit(error instanceof ArgsError ? 2 : 1);
  },
);
