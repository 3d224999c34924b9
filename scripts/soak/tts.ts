/**
 * Soak: many turns in one process against the local Resemble and Cartesia protocol servers,
 * alternating, with occasional barge-ins and faults (the chaos suite's runner, mostly clean turns).
 * Prints RSS and heap every 1,000 turns with their least-squares slopes, sockets opened, and lost
 * or stale chunks; exits non-zero if anything was lost, stale, or otherwise broke an invariant.
 *
 *   npm run soak:tts -- --turns 10000 --seed 7
 */
import { initializeLogger } from '@livekit/agents';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createRng } from '../../test/chaos/prng.js';
import { ChaosRun, type TurnReport } from '../../test/chaos/runner.js';
import type { ScenarioWeights } from '../../test/chaos/scenarios.js';
import { type ProviderName, startChaosServer } from '../../test/chaos/servers.js';

const SOAK_WEIGHTS: ScenarioWeights = {
  clean: 80,
  interrupt: 8,
  'interrupt-then-fault': 1,
  'concurrent-pair': 3,
  'drop-mid-request': 2,
  'drop-all-sockets': 1,
  'error-5xx-once': 2,
  'error-4xx': 1,
  'missing-end': 0.5,
  'stall-forever': 0.5,
  'stall-short': 0.5,
  'server-restart': 0.2,
};
const SAMPLE_EVERY = 1000;
const MAX_PROBLEMS_SHOWN = 20;

function args(): { turns: number; seed: number } {
  const argv = process.argv.slice(2);
  const value = (name: string, fallback: number): number => {
    const i = argv.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const n = Number(argv[i + 1]);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} needs a positive integer (got ${argv[i + 1]})`);
    return n;
  };
  return { turns: value('turns', 10_000), seed: value('seed', 1) };
}

/** A full collection before each sample, so the figures show retained memory, not garbage. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

/** Least-squares slope of y over x. */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<number> {
  const { turns, seed } = args();
  initializeLogger({ pretty: false, level: 'silent' as 'error' });
  const gc = collector();
  const runs: Record<ProviderName, ChaosRun> = {
    resemble: new ChaosRun(await startChaosServer('resemble', { msPerChar: 1 }), createRng(seed), SOAK_WEIGHTS),
    cartesia: new ChaosRun(await startChaosServer('cartesia', { msPerChar: 1 }), createRng(seed + 1), SOAK_WEIGHTS),
  };
  for (const run of Object.values(runs)) run.knobOverrides = { realTimeFactor: 0, firstByteDelayMs: 0 };
  await runs.resemble.engine.prewarm();

  const totals = { chunks: 0, lost: 0, stale: 0, interrupted: 0, failed: 0, problems: 0 };
  const shown: string[] = [];
  const rss: Array<[number, number]> = [];
  const heap: Array<[number, number]> = [];
  const started = performance.now();
  const sample = (done: number) => {
    gc();
    const m = process.memoryUsage();
    rss.push([done / 1000, m.rss / 1024]);
    heap.push([done / 1000, m.heapUsed / 1024]);
    const opened = runs.resemble.server.connectionsOpened + runs.cartesia.server.connectionsOpened;
    console.log(
      `turns ${String(done).padStart(6)}  ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s  ` +
        `rss ${mb(m.rss).padStart(6)} MB  heap ${mb(m.heapUsed).padStart(6)} MB  sockets opened ${opened}  ` +
        `lost ${totals.lost}  stale ${totals.stale}  problems ${totals.problems}`,
    );
  };

  sample(0);
  for (let i = 0; i < turns; i++) {
    const provider: ProviderName = i % 2 === 0 ? 'resemble' : 'cartesia';
    const run = runs[provider];
    const report: TurnReport = await run.turn(i);
    totals.chunks += report.chunks;
    totals.lost += report.lostChunks;
    totals.stale += report.staleSamples;
    if (report.outcome === 'interrupted') totals.interrupted++;
    if (report.outcome === 'failed') totals.failed++;
    if (report.problems.length) {
      totals.problems += report.problems.length;
      for (const p of report.problems) if (shown.length < MAX_PROBLEMS_SHOWN) shown.push(`turn ${i} ${provider} ${report.scenario}: ${p}`);
    }
    if ((i + 1) % 100 === 0) for (const r of Object.values(runs)) r.server.clearRecords();
    if ((i + 1) % SAMPLE_EVERY === 0) sample(i + 1);
  }

  const leaks = [...(await runs.resemble.close()), ...(await runs.cartesia.close())];
  const pools = Object.entries(runs).map(([name, r]) => `${name} ${r.engine.poolStats.opened} (server saw ${r.server.connectionsOpened})`);
  const staleDropped = runs.resemble.engine.poolStats.staleEventsDropped + runs.cartesia.engine.poolStats.staleEventsDropped;
  for (const r of Object.values(runs)) await r.server.close();

  console.log('');
  console.log(`seed ${seed}, ${turns} turns in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // The first thousand turns warm up JIT, pools and buffers: the slope is taken from there on.
  const warm = (points: Array<[number, number]>) => (points.length > 2 ? points.slice(1) : points);
  console.log(
    `RSS slope: ${slope(warm(rss)).toFixed(1)} KB per 1k turns after warm-up ` +
      `(${mb(rss[0]![1] * 1024)} MB at start, ${mb(rss[Math.min(1, rss.length - 1)]![1] * 1024)} MB after 1k, ${mb(rss[rss.length - 1]![1] * 1024)} MB at end)`,
  );
  console.log(`heap slope: ${slope(warm(heap)).toFixed(1)} KB per 1k turns after warm-up`);
  console.log(`sockets opened: ${pools.join(', ')}`);
  console.log(`chunks ${totals.chunks}, interrupted turns ${totals.interrupted}, failed turns (injected 4xx) ${totals.failed}`);
  console.log(`stale provider events dropped by the driver: ${staleDropped}`);
  console.log(`lost chunks: ${totals.lost}, stale samples heard: ${totals.stale}, other problems: ${totals.problems}`);
  for (const p of [...shown, ...leaks]) console.log(`  ! ${p}`);
  return totals.lost > 0 || totals.stale > 0 || totals.problems > 0 || leaks.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
