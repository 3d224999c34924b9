/** Turns turn records into the JSON summary, the printed table and the target checks. */
import type { TurnRecord as LatencyTurn } from './latency.js';
import type { LoadResult } from './load.js';
import { mean, percentile } from './playout.js';
import { SCENARIOS, type Language } from './scenarios.js';
import type { StrategyName } from './strategies.js';

export interface StrategySummary {
  ttfaP50Ms: number;
  ttfaP90Ms: number;
  floorMs: number;
  /** Underruns per turn (mean over repetitions). */
  underruns: number;
  /** Silent ms per turn inside underruns (mean over repetitions). */
  underrunMs: number;
  /** Requests (non-empty texts) sent to the provider per reply (mean). */
  chunks: number;
}

export interface ScenarioSummary {
  name: string;
  language: Language;
  strategies: Partial<Record<StrategyName, StrategySummary>>;
}

export interface BenchJson {
  scenarios: ScenarioSummary[];
  load: Record<string, unknown>;
}

/** Everything the table needs beyond the JSON: distances, totals and the adaptive targets. */
export interface Cell extends StrategySummary {
  certainMs: number;
  p50OverCertainMs: number;
  p90OverFloorMs: number;
  p90OverCertainMs: number;
  underrunTotal: number;
  turns: number;
  targetP50?: number;
}

export interface Row {
  scenario: string;
  language: Language;
  tokensPerSecond: number;
  cells: Partial<Record<StrategyName, Cell>>;
}

export function scenarioKey(name: string, tps: number): string {
  return `${name}@${tps}tps`;
}

export function summarize(turns: readonly LatencyTurn[], strategies: readonly StrategyName[]): Row[] {
  const rows: Row[] = [];
  const rates = [...new Set(turns.map((t) => t.tokensPerSecond))].sort((a, b) => b - a);
  for (const tps of rates) {
    for (const scenario of SCENARIOS) {
      const mine = turns.filter((t) => t.scenario === scenario.name && t.tokensPerSecond === tps);
      if (mine.length === 0) continue;
      const cells: Row['cells'] = {};
      for (const strategy of strategies) {
        const runs = mine.filter((t) => t.strategy === strategy);
        if (runs.length === 0) continue;
        const ttfa = runs.map((t) => t.ttfaMs);
        const floorMs = percentile(runs.map((t) => t.floorMs), 50);
        const certainMs = percentile(runs.map((t) => t.certainMs), 50);
        const p90 = percentile(ttfa, 90);
        cells[strategy] = {
          ttfaP50Ms: percentile(ttfa, 50),
          ttfaP90Ms: p90,
          floorMs,
          underruns: mean(runs.map((t) => t.underruns)),
          underrunMs: mean(runs.map((t) => t.underrunMs)),
          chunks: mean(runs.map((t) => t.chunks)),
          certainMs,
          p50OverCertainMs: percentile(ttfa, 50) - certainMs,
          p90OverFloorMs: p90 - floorMs,
          p90OverCertainMs: p90 - certainMs,
          underrunTotal: runs.reduce((n, t) => n + t.underruns, 0),
          turns: runs.length,
        };
      }
      rows.push({ scenario: scenario.name, language: scenario.language, tokensPerSecond: tps, cells });
    }
  }
  return rows;
}

export function toJson(rows: readonly Row[], load: LoadResult | undefined, loadConfig: Record<string, unknown>): BenchJson {
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    scenarios: rows.map((row) => ({
      name: scenarioKey(row.scenario, row.tokensPerSecond),
      language: row.language,
      strategies: Object.fromEntries(
        Object.entries(row.cells).map(([name, c]) => [
          name,
          {
            ttfaP50Ms: round(c.ttfaP50Ms),
            ttfaP90Ms: round(c.ttfaP90Ms),
            floorMs: round(c.floorMs),
            underruns: round(c.underruns),
            underrunMs: round(c.underrunMs),
            chunks: round(c.chunks),
          },
        ]),
      ),
    })),
    load: load
      ? { ...Object.fromEntries(Object.entries(load).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v])), ...loadConfig }
      : { skipped: true },
  };
}

/** Mean over a language's scenarios of each strategy's p50 (the "typical reply" figure). */
export function languageMeans(rows: readonly Row[], language: Language, tps: number): Partial<Record<StrategyName, number>> {
  const mine = rows.filter((r) => r.language === language && r.tokensPerSecond === tps);
  const out: Partial<Record<StrategyName, number>> = {};
  const names = new Set(mine.flatMap((r) => Object.keys(r.cells) as StrategyName[]));
  for (const name of names) out[name] = mean(mine.map((r) => r.cells[name]?.ttfaP50Ms ?? Number.NaN));
  return out;
}

const pad = (v: string | number, n: number) => String(v).padStart(n);
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '-' : Math.round(v).toString());

export function printTable(rows: readonly Row[], strategies: readonly StrategyName[], log: (line: string) => void): void {
  const rates = [...new Set(rows.map((r) => r.tokensPerSecond))];
  for (const tps of rates) {
    log('');
    log(`LLM ${tps} tokens/s — time to first audio from the LLM request (ms); floor = first clause's text complete + first byte,`);
    log(`cut = first clause certain (next token seen) + first byte; gaps = turns with an underrun / turns; chunks = requests per reply`);
    log(
      `${'scenario'.padEnd(18)} ${'strategy'.padEnd(19)}${pad('p50', 6)}${pad('p90', 6)}${pad('floor', 7)}${pad('cut', 6)}${pad('p90-floor', 10)}` +
        `${pad('p50-cut', 8)}${pad('p90-cut', 8)}${pad('gaps', 7)}${pad('silent/turn', 12)}${pad('chunks', 7)}${pad('target', 7)}`,
    );
    for (const row of rows.filter((r) => r.tokensPerSecond === tps)) {
      for (const name of strategies) {
        const c = row.cells[name];
        if (!c) continue;
        log(
          `${row.scenario.padEnd(18)} ${name.padEnd(19)}${pad(ms(c.ttfaP50Ms), 6)}${pad(ms(c.ttfaP90Ms), 6)}${pad(ms(c.floorMs), 7)}${pad(ms(c.certainMs), 6)}` +
            `${pad(ms(c.p90OverFloorMs), 10)}${pad(ms(c.p50OverCertainMs), 8)}${pad(ms(c.p90OverCertainMs), 8)}${pad(`${c.underrunTotal}/${c.turns}`, 7)}` +
            `${pad(ms(c.underrunMs), 12)}${pad(c.chunks.toFixed(1), 7)}${pad(c.targetP50 === undefined ? '' : String(c.targetP50), 7)}`,
        );
      }
    }
    for (const language of ['ko', 'en'] as const) {
      const means = languageMeans(rows, language, tps);
      const lk = means['livekit-cartesia'];
      const parts = strategies
        .filter((s) => means[s] !== undefined)
        .map((s) => `${s} ${ms(means[s])}${lk ? ` (x${(means[s]! / lk).toFixed(2)})` : ''}`);
      const mine = rows.filter((r) => r.language === language && r.tokensPerSecond === tps);
      const floor = mean(mine.map((r) => Object.values(r.cells)[0]?.floorMs ?? Number.NaN));
      if (mine.length) parts.push(`floor ${ms(floor)}${lk ? ` (x${(floor / lk).toFixed(2)})` : ''}`);
      log(`  ${language} mean p50 over scenarios: ${parts.join(', ')}`);
    }
  }
}

export interface TargetCheck {
  target: string;
  value: string;
  pass: boolean | undefined;
}

export function checkTargets(rows: readonly Row[], load: LoadResult | undefined): TargetCheck[] {
  const checks: TargetCheck[] = [];
  const rates = [...new Set(rows.map((r) => r.tokensPerSecond))].sort((a, b) => b - a);
  const main = rates.includes(40) ? 40 : rates[0];
  if (main !== undefined) {
    for (const [language, limit] of [
      ['ko', 0.6],
      ['en', 0.75],
    ] as const) {
      const m = languageMeans(rows, language, main);
      const fw = m.firstword;
      const lk = m['livekit-cartesia'];
      if (fw !== undefined && lk !== undefined) {
        const ratio = fw / lk;
        checks.push({
          target: `TTFA firstword / livekit-cartesia, ${language}, ${main} tok/s <= ${limit}`,
          value: `${ratio.toFixed(3)} (${Math.round(fw)} / ${Math.round(lk)} ms)`,
          pass: ratio <= limit,
        });
      }
    }
  }
  for (const tps of rates) {
    const cells = rows.filter((r) => r.tokensPerSecond === tps).map((r) => [r.scenario, r.cells.firstword] as const);
    const present = cells.filter((c): c is readonly [string, Cell] => c[1] !== undefined);
    if (present.length === 0) continue;
    const worst = present.reduce((a, b) => (b[1].p90OverFloorMs > a[1].p90OverFloorMs ? b : a));
    const worstCut = present.reduce((a, b) => (b[1].p90OverCertainMs > a[1].p90OverCertainMs ? b : a));
    checks.push({
      target: `firstword p90 within 10 ms of the floor (clause's last character), ${tps} tok/s (worst scenario)`,
      value: `+${Math.round(worst[1].p90OverFloorMs)} ms (${worst[0]})`,
      pass: worst[1].p90OverFloorMs <= 10,
    });
    // The floor counts from a character whose boundary may only be knowable one token later
    // (the space after a word); the cut is when the text so far makes it certain.
    checks.push({
      target: `firstword p90 within 10 ms of the cut (boundary certain), ${tps} tok/s (worst scenario)`,
      value:
        `+${Math.round(worstCut[1].p90OverCertainMs)} ms (${worstCut[0]}); ` +
        `p50 +${Math.round(Math.max(...present.map((c) => c[1].p50OverCertainMs)))} ms`,
      pass: worstCut[1].p90OverCertainMs <= 10,
    });
  }
  for (const tps of rates.filter((r) => r >= 15)) {
    const paced = rows.filter((r) => r.tokensPerSecond === tps).map((r) => r.cells.firstword);
    if (paced.every((c) => c === undefined)) continue;
    const total = paced.reduce((n, c) => n + (c?.underrunTotal ?? 0), 0);
    const turns = paced.reduce((n, c) => n + (c?.turns ?? 0), 0);
    checks.push({ target: `firstword zero underruns at ${tps} tok/s`, value: `${total} in ${turns} turns`, pass: total === 0 });
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
