/** Turns turn records into the JSON summary, the printed tables and the target checks. */
import type { FirstRelease } from '@firstword/agents-plugin-tts';
import type { TurnRecord as LatencyTurn } from './latency.js';
import type { LoadResult } from './load.js';
import { PROVIDERS, type Provider } from './peers/catalog.js';
import { mean, percentile } from './playout.js';
import { type Condition, type Language, SCENARIOS, conditionLabel } from './scenarios.js';
import type { StrategyName } from './strategies.js';

/** How the pacer sent the first chunks of a cell's turns. */
export interface PacingSummary {
  /** Turns per reason (eager: the first clause at once; held: later, to cover what follows; ...). */
  reasons: Partial<Record<FirstRelease, number>>;
  /** Time the first chunk was held past the first-clause rule, p50 over held turns, ms. */
  heldP50Ms: number;
  /** Silence predicted at the first release, p50 over turns that predicted one, ms. */
  predictedGapP50Ms: number;
  /** Figures planned with at the first release, p50: token gap, speech per character, first byte, sentence. */
  plannedTokenGapMs: number;
  plannedSpeechMsPerChar: number;
  plannedFirstByteMs: number;
  plannedSentenceChars: number;
}

export interface StrategySummary {
  ttfaP50Ms: number;
  ttfaP90Ms: number;
  floorMs: number;
  /** Underruns per turn (mean over repetitions). */
  underruns: number;
  /** Silent ms per turn inside underruns (mean over repetitions). */
  underrunMs: number;
  /** Sockets the server saw the client open per turn after warm-up (mean). */
  socketsPerTurn: number;
  /** Texts sent to the provider per reply (mean). */
  chunks: number;
  /** Cuts inside a reply (chunks − 1, mean): each a cold start on Resemble, nearly free on Cartesia. */
  boundariesPerReply: number;
  pacing?: PacingSummary;
  /** Frames of an interrupted reply heard after the barge-in (mean per barge-in; bench/peers/barge-in.ts). */
  staleFrames?: number;
  staleMs?: number;
  /** Sockets opened per barge-in pair (the interrupted reply and the next). */
  socketsPerBargeIn?: number;
  /** Time to first audio of the reply right after a barge-in (p50). */
  ttfaAfterBargeInP50Ms?: number;
}

export interface ScenarioSummary {
  /** `scenario@RATEtps`, `±J%` for a jittered condition. */
  name: string;
  scenario: string;
  provider: Provider;
  language: Language;
  tokensPerSecond: number;
  jitter: number;
  strategies: Partial<Record<StrategyName, StrategySummary>>;
}

export interface BenchJson {
  scenarios: ScenarioSummary[];
  load: Record<string, unknown>;
}

/** Everything the tables need beyond the JSON: distances, totals, the first clause. */
export interface Cell extends StrategySummary {
  certainMs: number;
  p50OverCertainMs: number;
  p90OverFloorMs: number;
  p90OverCertainMs: number;
  underrunTotal: number;
  turns: number;
  /** The first-clause rule's first chunk (the same for every strategy of a row). */
  firstClause: string;
  /** The most boundaries any turn of the cell had. */
  boundariesMax: number;
}

export interface Row extends Condition {
  scenario: string;
  language: Language;
  provider: Provider;
  cells: Partial<Record<StrategyName, Cell>>;
}

export function scenarioKey(name: string, c: Condition): string {
  return `${name}@${c.tokensPerSecond}tps${c.jitter > 0 ? `±${Math.round(c.jitter * 100)}%` : ''}`;
}

const sameCondition = (a: Condition, b: Condition) => a.tokensPerSecond === b.tokensPerSecond && a.jitter === b.jitter;

/** The conditions present, fastest and steadiest first. */
export function conditionsOf(rows: readonly Condition[]): Condition[] {
  const out: Condition[] = [];
  for (const r of rows) if (!out.some((c) => sameCondition(c, r))) out.push({ tokensPerSecond: r.tokensPerSecond, jitter: r.jitter });
  return out.sort((a, b) => b.tokensPerSecond - a.tokensPerSecond || a.jitter - b.jitter);
}

function pacingOf(runs: readonly LatencyTurn[]): PacingSummary | undefined {
  const reports = runs.map((t) => t.pacing).filter((p) => p !== undefined);
  if (reports.length === 0) return undefined;
  const reasons: PacingSummary['reasons'] = {};
  for (const p of reports) reasons[p.reason] = (reasons[p.reason] ?? 0) + 1;
  const held = reports.filter((p) => p.reason !== 'eager' && p.reason !== 'chunker').map((p) => p.releasedAt - p.eagerAt);
  const predicted = reports.filter((p) => p.predictedGapMs > 0).map((p) => p.predictedGapMs);
  return {
    reasons,
    heldP50Ms: held.length ? percentile(held, 50) : 0,
    predictedGapP50Ms: predicted.length ? percentile(predicted, 50) : 0,
    plannedTokenGapMs: percentile(reports.map((p) => p.figures.tokenGapMs), 50),
    plannedSpeechMsPerChar: percentile(reports.map((p) => p.figures.speechMsPerChar), 50),
    plannedFirstByteMs: percentile(reports.map((p) => p.figures.firstByteMs), 50),
    plannedSentenceChars: percentile(reports.map((p) => p.figures.sentenceChars), 50),
  };
}

export function summarize(turns: readonly LatencyTurn[], strategies: readonly StrategyName[]): Row[] {
  const rows: Row[] = [];
  for (const provider of PROVIDERS.filter((p) => turns.some((t) => t.provider === p))) {
    for (const condition of conditionsOf(turns.filter((t) => t.provider === provider))) {
      for (const scenario of SCENARIOS) {
        const mine = turns.filter((t) => t.provider === provider && t.scenario === scenario.name && sameCondition(t, condition));
        if (mine.length === 0) continue;
        const cells: Row['cells'] = {};
        for (const strategy of strategies) {
          const runs = mine.filter((t) => t.strategy === strategy);
          if (runs.length === 0) continue;
          const ttfa = runs.map((t) => t.ttfaMs);
          const floorMs = percentile(runs.map((t) => t.floorMs), 50);
          const certainMs = percentile(runs.map((t) => t.certainMs), 50);
          const p90 = percentile(ttfa, 90);
          const pacing = pacingOf(runs);
          cells[strategy] = {
            ttfaP50Ms: percentile(ttfa, 50),
            ttfaP90Ms: p90,
            floorMs,
            underruns: mean(runs.map((t) => t.underruns)),
            underrunMs: mean(runs.map((t) => t.underrunMs)),
            socketsPerTurn: mean(runs.map((t) => t.socketsOpened)),
            chunks: mean(runs.map((t) => t.chunks)),
            boundariesPerReply: mean(runs.map((t) => t.boundaries)),
            ...(pacing ? { pacing } : {}),
            certainMs,
            p50OverCertainMs: percentile(ttfa, 50) - certainMs,
            p90OverFloorMs: p90 - floorMs,
            p90OverCertainMs: p90 - certainMs,
            underrunTotal: runs.reduce((n, t) => n + t.underruns, 0),
            turns: runs.length,
            firstClause: runs[0]!.firstClause,
            boundariesMax: Math.max(...runs.map((t) => t.boundaries)),
          };
        }
        rows.push({ scenario: scenario.name, language: scenario.language, provider, ...condition, cells });
      }
    }
  }
  return rows;
}

export function toJson(rows: readonly Row[], load: LoadResult | undefined, loadConfig: Record<string, unknown>): BenchJson {
  const round = (v: number) => Math.round(v * 100) / 100;
  const summary = (c: Cell): StrategySummary => ({
    ttfaP50Ms: round(c.ttfaP50Ms),
    ttfaP90Ms: round(c.ttfaP90Ms),
    floorMs: round(c.floorMs),
    underruns: round(c.underruns),
    underrunMs: round(c.underrunMs),
    socketsPerTurn: round(c.socketsPerTurn),
    chunks: round(c.chunks),
    boundariesPerReply: round(c.boundariesPerReply),
    ...(c.staleFrames === undefined
      ? {}
      : {
          staleFrames: round(c.staleFrames),
          staleMs: round(c.staleMs ?? 0),
          socketsPerBargeIn: round(c.socketsPerBargeIn ?? 0),
          ttfaAfterBargeInP50Ms: round(c.ttfaAfterBargeInP50Ms ?? Number.NaN),
        }),
    ...(c.pacing
      ? {
          pacing: {
            reasons: c.pacing.reasons,
            heldP50Ms: round(c.pacing.heldP50Ms),
            predictedGapP50Ms: round(c.pacing.predictedGapP50Ms),
            plannedTokenGapMs: round(c.pacing.plannedTokenGapMs),
            plannedSpeechMsPerChar: round(c.pacing.plannedSpeechMsPerChar),
            plannedFirstByteMs: round(c.pacing.plannedFirstByteMs),
            plannedSentenceChars: round(c.pacing.plannedSentenceChars),
          },
        }
      : {}),
  });
  return {
    scenarios: rows.map((row) => ({
      name: scenarioKey(row.scenario, row),
      scenario: row.scenario,
      provider: row.provider,
      language: row.language,
      tokensPerSecond: row.tokensPerSecond,
      jitter: row.jitter,
      strategies: Object.fromEntries(Object.entries(row.cells).map(([name, c]) => [name, summary(c)])),
    })),
    load: load
      ? { ...Object.fromEntries(Object.entries(load).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v])), ...loadConfig }
      : { skipped: true },
  };
}

/** Rows of one provider under one condition. */
export function rowsOf(rows: readonly Row[], provider: Provider, c: Condition, language?: Language): Row[] {
  return rows.filter((r) => r.provider === provider && sameCondition(r, c) && (language === undefined || r.language === language));
}

/** Mean over a language's scenarios of each strategy's p50 (the "typical reply" figure). */
export function languageMeans(rows: readonly Row[], provider: Provider, language: Language, c: Condition): Partial<Record<StrategyName, number>> {
  const mine = rowsOf(rows, provider, c, language);
  const out: Partial<Record<StrategyName, number>> = {};
  const names = new Set(mine.flatMap((r) => Object.keys(r.cells) as StrategyName[]));
  for (const name of names) out[name] = mean(mine.map((r) => r.cells[name]?.ttfaP50Ms ?? Number.NaN));
  return out;
}

const pad = (v: string | number, n: number) => String(v).padStart(n);
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '-' : Math.round(v).toString());

/** The pacer's first chunks in a cell, shortest form: "eager", "held 8 +240", "bound 2 eager 8". */
function firstColumn(c: Cell): string {
  if (!c.pacing) return '';
  const parts = Object.entries(c.pacing.reasons).map(([reason, n]) => (n === c.turns ? reason : `${reason} ${n}`));
  return `${parts.join(' ')}${c.pacing.heldP50Ms > 0 ? ` +${Math.round(c.pacing.heldP50Ms)}` : ''}`;
}

/** The peer each provider's ratios are taken against. */
const REFERENCE: Record<Provider, StrategyName> = { cartesia: 'livekit-cartesia', resemble: 'livekit-python-resemble' };

export function printTable(rows: readonly Row[], strategies: readonly StrategyName[], log: (line: string) => void): void {
  for (const provider of [...new Set(rows.map((r) => r.provider))]) {
    for (const c of conditionsOf(rows.filter((r) => r.provider === provider))) {
      log('');
      log(`${provider}, LLM ${conditionLabel(c)} — time to first audio from the LLM request (ms); floor = first clause's text complete + first byte,`);
      log(`cut = first clause certain + first byte; gaps = turns with an underrun / turns; bnd = boundaries per reply (max);`);
      log(
        `sock = sockets opened per turn (at the server); stale = frames of an interrupted reply heard after a barge-in; ` +
          `first = how the pacer sent the first chunk (+ms held, p50)`,
      );
      log(
        `${'scenario'.padEnd(18)} ${'strategy'.padEnd(23)}${pad('p50', 6)}${pad('p90', 6)}${pad('floor', 7)}${pad('cut', 6)}${pad('p90-cut', 8)}` +
          `${pad('gaps', 7)}${pad('silent/turn', 12)}${pad('bnd', 9)}${pad('stale', 6)}${pad('sock', 5)}  first`,
      );
      for (const row of rowsOf(rows, provider, c)) {
        for (const name of strategies) {
          const cell = row.cells[name];
          if (!cell) continue;
          log(
            `${row.scenario.padEnd(18)} ${name.padEnd(23)}${pad(ms(cell.ttfaP50Ms), 6)}${pad(ms(cell.ttfaP90Ms), 6)}${pad(ms(cell.floorMs), 7)}` +
              `${pad(ms(cell.certainMs), 6)}${pad(ms(cell.p90OverCertainMs), 8)}${pad(`${cell.underrunTotal}/${cell.turns}`, 7)}${pad(ms(cell.underrunMs), 12)}` +
              `${pad(`${cell.boundariesPerReply.toFixed(1)} (${cell.boundariesMax})`, 9)}${pad(cell.staleFrames === undefined ? '-' : cell.staleFrames.toFixed(1), 6)}${pad(cell.socketsPerTurn.toFixed(1), 5)}  ${firstColumn(cell)}`,
          );
        }
      }
      for (const language of ['ko', 'en'] as const) {
        const means = languageMeans(rows, provider, language, c);
        const ref = means[REFERENCE[provider]];
        const eager = means['firstword-eager'];
        const parts = strategies
          .filter((s) => means[s] !== undefined)
          .map((s) => `${s} ${ms(means[s])}${ref ? ` (x${(means[s]! / ref).toFixed(2)})` : ''}`);
        const mine = rowsOf(rows, provider, c, language);
        const floor = mean(mine.map((r) => Object.values(r.cells)[0]?.floorMs ?? Number.NaN));
        if (mine.length) parts.push(`floor ${ms(floor)}${ref ? ` (x${(floor / ref).toFixed(2)})` : ''}`);
        if (eager && means.firstword) parts.push(`firstword / firstword-eager x${(means.firstword / eager).toFixed(3)}`);
        if (mine.length) log(`  ${language} mean p50 over scenarios: ${parts.join(', ')}`);
      }
    }
  }
}

export interface TargetCheck {
  target: string;
  value: string;
  pass: boolean | undefined;
}

const FAST: Condition = { tokensPerSecond: 40, jitter: 0 };

export function checkTargets(rows: readonly Row[], load: LoadResult | undefined): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const providers = [...new Set(rows.map((r) => r.provider))];
  if (providers.includes('cartesia')) {
    for (const [language, limit] of [
      ['ko', 0.6],
      ['en', 0.75],
    ] as const) {
      const m = languageMeans(rows, 'cartesia', language, FAST);
      const fw = m.firstword;
      const lk = m['livekit-cartesia'];
      if (fw !== undefined && lk !== undefined) {
        const ratio = fw / lk;
        checks.push({
          target: `TTFA firstword / livekit-cartesia, ${language}, 40 tok/s <= ${limit}`,
          value: `${ratio.toFixed(3)} (${Math.round(fw)} / ${Math.round(lk)} ms)`,
          pass: ratio <= limit,
        });
      }
    }
    const present = rowsOf(rows, 'cartesia', FAST)
      .map((r) => [r.scenario, r.cells.firstword] as const)
      .filter((c): c is readonly [string, Cell] => c[1] !== undefined);
    if (present.length) {
      const worst = present.reduce((a, b) => (b[1].p90OverFloorMs > a[1].p90OverFloorMs ? b : a));
      checks.push({
        target: "firstword p90 within 10 ms of the floor (clause's last character), cartesia, 40 tok/s (worst scenario)",
        value: `+${Math.round(worst[1].p90OverFloorMs)} ms (${worst[0]})`,
        pass: worst[1].p90OverFloorMs <= 10,
      });
      // The floor counts from a character whose boundary may only be knowable one token later
      // (the space after a word); the cut is when the text so far makes it certain.
      const worstCut = present.reduce((a, b) => (b[1].p90OverCertainMs > a[1].p90OverCertainMs ? b : a));
      checks.push({
        target: 'firstword p90 within 10 ms of the cut (boundary certain), cartesia, 40 tok/s (worst scenario)',
        value: `+${Math.round(worstCut[1].p90OverCertainMs)} ms (${worstCut[0]})`,
        pass: worstCut[1].p90OverCertainMs <= 10,
      });
    }
  }
  for (const provider of providers) {
    for (const language of ['ko', 'en'] as const) {
      const m = languageMeans(rows, provider, language, FAST);
      if (m.firstword === undefined || m['firstword-eager'] === undefined) continue;
      const ratio = m.firstword / m['firstword-eager'];
      checks.push({
        target: `TTFA firstword / firstword-eager (the first clause always alone), ${provider}, ${language}, 40 tok/s <= 1.05`,
        value: `${ratio.toFixed(3)} (${Math.round(m.firstword)} / ${Math.round(m['firstword-eager'])} ms)`,
        pass: ratio <= 1.05,
      });
    }
    for (const c of conditionsOf(rows.filter((r) => r.provider === provider)).filter((c) => c.tokensPerSecond <= 15)) {
      const cells = rowsOf(rows, provider, c).map((r) => r.cells.firstword);
      if (cells.every((x) => x === undefined)) continue;
      const total = cells.reduce((n, x) => n + (x?.underrunTotal ?? 0), 0);
      const turns = cells.reduce((n, x) => n + (x?.turns ?? 0), 0);
      const eager = rowsOf(rows, provider, c).reduce((n, r) => n + (r.cells['firstword-eager']?.underrunTotal ?? 0), 0);
      checks.push({
        target: `firstword zero underruns, ${provider}, ${conditionLabel(c)}`,
        value: `${total} in ${turns} turns (firstword-eager: ${eager})`,
        pass: total === 0,
      });
    }
  }
  if (providers.includes('resemble')) {
    const over = rows
      .filter((r) => r.provider === 'resemble' && r.cells.firstword && r.cells.sentence)
      .map((r) => ({ row: r, extra: r.cells.firstword!.boundariesMax - r.cells.sentence!.boundariesMax }));
    if (over.length) {
      const worst = over.reduce((a, b) => (b.extra > a.extra ? b : a));
      checks.push({
        target: 'resemble: firstword boundaries per reply <= sentence chunking + 1 (every turn)',
        value: `at most +${worst.extra} (${scenarioKey(worst.row.scenario, worst.row)})`,
        pass: worst.extra <= 1,
      });
    }
  }
  if (load) {
    checks.push({
      target: `>= 50 concurrent ${load.sampleRate / 1000} kHz streams per core`,
      value: `${Math.round(load.streamsPerCore)} (${load.cpuMsPerAudioSecond.toFixed(2)} CPU ms per audio second, ${load.streams} streams)`,
      pass: load.streamsPerCore >= 50,
    });
  }
  return checks;
}

export function printLoad(load: LoadResult, log: (line: string) => void): void {
  log('');
  log(`Load: ${load.streams} concurrent ${load.sampleRate / 1000} kHz firstword streams in one process (max ${load.maxConcurrent} at once)`);
  log(
    `  CPU ${Math.round(load.cpuMs)} ms for ${load.audioSeconds.toFixed(1)} s of audio = ${load.cpuMsPerAudioSecond.toFixed(2)} ms per audio second ` +
      `(${load.netCpuMsPerAudioSecond.toFixed(2)} without the LLM simulator's ${Math.round(load.harnessCpuMs)} ms) -> ${Math.round(load.streamsPerCore)} real-time streams per core`,
  );
  log(
    `  RSS ${load.baselineRssMb.toFixed(0)} MB idle with sockets open, peak ${load.peakRssMb.toFixed(0)} MB (${load.rssPerStreamKb.toFixed(0)} KB per stream); ` +
      `wall ${(load.wallMs / 1000).toFixed(1)} s`,
  );
  log(
    `  under load: TTFA p50 ${ms(load.ttfaP50Ms)} / p90 ${ms(load.ttfaP90Ms)} ms, ${load.underruns} underruns, ` +
      `event-loop delay p99 ${load.eventLoopDelayP99Ms.toFixed(1)} ms, ${load.failed} failed`,
  );
}
