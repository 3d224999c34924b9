/**
 * `npm run bench`: time to first audio, silences and boundaries of naive / sentence / firstword /
 * firstword-eager and the peers (livekit-cartesia, and the Python ones of bench/peers) on
 * identical simulated LLM traces (steady and jittered) against local Cartesia- and
 * Resemble-protocol servers (real WebSockets on loopback), stale audio after barge-ins, then CPU
 * and memory of concurrent firstword streams.
 * See bench/args.ts (or --help) for the knobs.
 */
import { initializeLogger } from '@livekit/agents';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { dirname, join } from 'node:path';
import { ArgsError, type BenchArgs, HELP, parseArgs } from './args.js';
import { renderChart } from './chart.js';
import { runLatency, type TurnRecord } from './latency.js';
import { charsPerToken, makeTrace } from './llm.js';
import { type LoadResult, runLoadInChild } from './load.js';
import { type BargeInRecord, attachBargeIns, runBargeIns } from './peers/barge-in.js';
import { usableStrategies } from './peers/availability.js';
import { providerServers } from './peers/providers.js';
import { stopPythonDrivers } from './peers/python-strategy.js';
import { pacingNotes } from './pacing-notes.js';
import { checkTargets, printLoad, printTable, summarize, toJson } from './report.js';
import { SCENARIOS, conditionLabel } from './scenarios.js';
import { RemoteServers } from './servers.js';
import { STRATEGY_NOTES } from './strategies.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

function serverOptions(args: BenchArgs, realTimeFactor: number) {
  const common = {
    firstByteDelayMs: args.firstByteMs,
    realTimeFactor,
    // Every lane and load stream is its own "customer": no provider limits in the way.
    concurrencyLimit: 100_000,
    maxConnections: 100_000,
  };
  return { ko: { ...common, msPerChar: args.msPerCharKo }, en: { ...common, msPerChar: args.msPerCharEn } };
}

function describeRun(args: BenchArgs): string {
  const scenarios = SCENARIOS.filter((s) => args.scenarios.includes(s.name));
  const cpt = (language: 'ko' | 'en') => {
    const traces = scenarios
      .filter((s) => s.language === language)
      .map((s) => makeTrace(s.reply, language, { firstTokenMs: 0, tokensPerSecond: 1, jitter: 0, seed: args.seed }));
    return traces.length ? (traces.reduce((n, t) => n + charsPerToken(t), 0) / traces.length).toFixed(1) : '-';
  };
  return (
    `LLM first token ${args.firstTokenMs} ms, then ${args.conditions.map(conditionLabel).join(' / ')} (ko ${cpt('ko')}, en ${cpt('en')} chars/token); ` +
    `provider first byte ${args.firstByteMs} ms, RTF ${args.realTimeFactor}, speech ${args.msPerCharKo}/${args.msPerCharEn} ms per ko/en char; ` +
    `${args.reps} reps, ${args.lanes} concurrent calls; providers ${args.providers.join(', ')}`
  );
}

async function main(): Promise<number> {
  let args: BenchArgs;
  try {
    const parsed = parseArgs(process.argv.slice(2));
    if (parsed === 'help') {
      log(HELP);
      return 0;
    }
    args = parsed;
  } catch (error) {
    if (error instanceof ArgsError) {
      process.stderr.write(`bench: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  initializeLogger({ pretty: false, level: 'error' });
  const startedAt = performance.now();
  const subtitle = describeRun(args);
  log(`firstword bench — ${subtitle}`);
  log(`machine: ${cpus().length} cores, load average ${loadavg().map((v) => v.toFixed(1)).join(' ')} (other processes share these cores)`);
  for (const name of args.strategies) log(`  ${name.padEnd(23)} ${STRATEGY_NOTES[name]}`);

  let turns: TurnRecord[] = [];
  let bargeIns: BargeInRecord[] = [];
  let strategies = args.strategies;
  let peersNotRun: string[] = [];
  let load: LoadResult | undefined;
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  let benchCpuShare = 0;
  if (!args.skipLatency) {
    const servers = await RemoteServers.start(providerServers(serverOptions(args, args.realTimeFactor)));
    try {
      ({ strategies, notRun: peersNotRun } = await usableStrategies(args.strategies, args, servers, log));
      loopDelay.enable();
      const cpu = process.cpuUsage();
      const wall = performance.now();
      let lastShown = 0;
      turns = await runLatency(
        {
          scenarios: SCENARIOS.filter((s) => args.scenarios.includes(s.name)),
          providers: args.providers,
          strategies,
          conditions: args.conditions,
          reps: args.reps,
          lanes: args.lanes,
          realTimeFactor: args.realTimeFactor,
          msPerChar: { ko: args.msPerCharKo, en: args.msPerCharEn },
          firstTokenMs: args.firstTokenMs,
          firstByteMs: args.firstByteMs,
          gapToleranceMs: args.gapToleranceMs,
          turnTimeoutMs: 60_000,
          seed: args.seed,
        },
        servers,
        (done, total) => {
          const pct = Math.floor((100 * done) / total);
          if (pct >= lastShown + 10 || done === total) {
            lastShown = pct;
            process.stderr.write(`  latency: ${done}/${total} turns (${((performance.now() - startedAt) / 1000).toFixed(0)} s)\n`);
          }
        },
      );
      loopDelay.disable();
      const used = process.cpuUsage(cpu);
      benchCpuShare = (used.user + used.system) / 1000 / (performance.now() - wall);
      if (args.bargeInReps > 0) {
        bargeIns = await runBargeIns(
          {
            scenarios: SCENARIOS.filter((s) => args.scenarios.includes(s.name)),
            providers: args.providers,
            strategies,
            tokensPerSecond: args.tokensPerSecond,
            reps: args.bargeInReps,
            firstTokenMs: args.firstTokenMs,
            turnTimeoutMs: 60_000,
            seed: args.seed,
          },
          servers,
          (done, total) => {
            if (done === total || done % 50 === 0) process.stderr.write(`  barge-ins: ${done}/${total}\n`);
          },
        );
      }
    } finally {
      loopDelay.disable();
      await stopPythonDrivers();
      await servers.stop();
    }
  }
  if (!args.skipLoad) {
    process.stderr.write(`  load: ${args.loadStreams} streams...\n`);
    const servers = await RemoteServers.start(serverOptions(args, args.loadRealTimeFactor));
    try {
      load = await runLoadInChild(
        {
          streams: args.loadStreams,
          urls: { ko: servers.urls.ko!, en: servers.urls.en! },
          sampleRate: 24_000,
          firstTokenMs: args.firstTokenMs,
          tokensPerSecond: args.tokensPerSecond[0]!,
          staggerMs: 1000,
          gapToleranceMs: args.gapToleranceMs,
          turnTimeoutMs: 90_000,
        },
        180_000,
      );
    } finally {
      await servers.stop();
    }
  }

  const rows = summarize(turns, strategies);
  peersNotRun.push(...attachBargeIns(rows, bargeIns));
  if (rows.length) {
    printTable(rows, strategies, log);
    const q = (p: number) => (loopDelay.percentile(p) / 1e6).toFixed(1);
    log(
      `  bench process during the latency runs: ${(100 * benchCpuShare).toFixed(0)}% of one core, event-loop delay ` +
        `p50 ${q(50)} / p99 ${q(99)} / max ${(loopDelay.max / 1e6).toFixed(0)} ms; load average now ${loadavg().map((v) => v.toFixed(1)).join(' ')}`,
    );
  }
  if (load) printLoad(load, log);
  const notes = pacingNotes(rows);
  if (notes.length) {
    log('');
    log('Pacing: where a reply could not have both an early start and no silence, what firstword gave up and why');
    for (const line of notes) log(`  ${line}`);
  }
  log('');
  log('Targets (first audio against the peers, and no silence after the first word):');
  for (const check of checkTargets(rows, load)) {
    log(`  ${check.pass === undefined ? '    ' : check.pass ? 'PASS' : 'MISS'}  ${check.target}: ${check.value}`);
  }
  for (const line of peersNotRun) log(line);
  if (rows.length) {
    mkdirSync(args.outDir, { recursive: true });
    const png = join(args.outDir, 'bench.png');
    writeFileSync(png, renderChart(rows, strategies, subtitle));
    log(`chart: ${png}`);
  }
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    const loadConfig = {
      realTimeFactor: args.loadRealTimeFactor,
      tokensPerSecond: args.tokensPerSecond[0],
      firstTokenMs: args.firstTokenMs,
      firstByteMs: args.firstByteMs,
    };
    writeFileSync(args.json, `${JSON.stringify(toJson(rows, load, loadConfig), null, 2)}\n`);
    log(`json: ${args.json}`);
  }
  if (args.turns) {
    mkdirSync(dirname(args.turns), { recursive: true });
    writeFileSync(args.turns, turns.map((t) => JSON.stringify(t)).join('\n') + '\n');
    log(`turns: ${args.turns}`);
  }
  log(`done in ${((performance.now() - startedAt) / 1000).toFixed(0)} s`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
