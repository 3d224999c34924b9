/**
 * `npm run bench:room`: the caller's wait through a real LiveKit SFU, firstword against LiveKit's
 * own Cartesia plugin in the same production worker. See bench/room/args.ts (or --help).
 *
 * Outside the namespace: speech clips, the plan, the stack, the join with the workers' logs and
 * the report. Inside it: driver.ts, the caller.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ArgsError, type RoomArgs, ROOM_HELP, parseRoomArgs } from './args.js';
import { renderRoomChart } from './chart.js';
import type { DriverPlan } from './driver.js';
import { joinProblems, joinTurns } from './join.js';
import { STRATEGIES, clipLines, openaiScript, schedule } from './plan.js';
import { printReport } from './print.js';
import { prepareClips } from './speech.js';
import { type DriverEvent, type WorkerWarnings, runDriver, startBenchStack, stopBenchStack, turnLogLines, workerLogFile, workerWarnings } from './stack-run.js';
import { summarize, toJson } from './summary.js';
import type { TurnResult } from './turn.js';

const log = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`  ${line}\n`);
const load = () => loadavg().map((v) => v.toFixed(2)).join(' ');

/** Generous: speech + wait + reply per turn at the slowest plausible pace, plus joining. */
function driverDeadlineMs(turns: number): number {
  return 120_000 + turns * 60_000;
}

function describe(args: RoomArgs): string {
  return (
    `LLM first token ${args.firstTokenMs} ms then ${args.tokensPerSecond} tok/s (seed ${args.seed}); Cartesia fake first byte ${args.firstByteMs} ms, ` +
    `RTF ${args.realTimeFactor}, ${args.msPerCharKo}/${args.msPerCharEn} ms per ko/en char, audible; Silero VAD defaults; ` +
    `${args.turns} turns + ${args.bargeIns} barge-ins per strategy`
  );
}

async function main(): Promise<number> {
  let args: RoomArgs;
  try {
    const parsed = parseRoomArgs(process.argv.slice(2));
    if (parsed === 'help') {
      log(ROOM_HELP);
      return 0;
    }
    args = parsed;
  } catch (error) {
    if (error instanceof ArgsError) {
      process.stderr.write(`bench:room: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const started = Date.now();
  const loadBefore = load();
  log(`firstword room bench — ${describe(args)}`);
  log(`machine: ${cpus().length} cores, load average ${loadBefore} at start`);

  const work = resolve(args.outDir, 'room');
  const clips = await prepareClips(clipLines(args), join(work, 'speech'));
  const scriptFile = join(work, 'openai-script.json');
  mkdirSync(work, { recursive: true });
  writeFileSync(scriptFile, `${JSON.stringify({ script: openaiScript(args) })}\n`);
  const specs = schedule(args);
  const plan: DriverPlan = {
    strategies: [...STRATEGIES],
    turns: specs,
    clips: Object.fromEntries([...clips].map(([key, c]) => [key, { file: c.file, firstVoiced: c.firstVoiced, lastVoiced: c.lastVoiced }])),
    threshold: args.threshold,
    deadlineMs: driverDeadlineMs(specs.length),
  };
  const planFile = join(work, 'plan.json');
  writeFileSync(planFile, `${JSON.stringify(plan)}\n`);

  const upStarted = Date.now();
  const state = await startBenchStack(args, scriptFile, (line) => note(`stack: ${line}`));
  const upMs = Date.now() - upStarted;
  const stop = () => {
    note('interrupted: stopping the stack');
    void stopBenchStack(state, note).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const results: TurnResult[] = [];
  let workerLogs: Record<string, Array<Record<string, unknown>>> = {};
  let warnings: Record<string, WorkerWarnings> = {};
  let done: DriverEvent | undefined;
  // Worker warnings count from here: start-up (compiling, loading models) is not the turns' doing.
  let turnsFrom = Date.now();
  let fatal: string | undefined;
  try {
    note(`stack and both workers up in ${(upMs / 1000).toFixed(1)} s (${state.namespace}); ${specs.length} turns to run`);
    const code = await runDriver(
      state,
      planFile,
      plan.deadlineMs + 30_000,
      (event) => {
        if (event.bench === 'turn') {
          const { bench: _kind, ...fields } = event;
          const r = fields as unknown as TurnResult;
          results.push(r);
          const what = r.ok ? `first sound ${Math.round(r.callerWaitMs ?? 0)} ms${r.barge?.ms !== undefined ? `, barge-in ${Math.round(r.barge.ms)} ms` : ''}` : `MISS: ${r.error}`;
          note(`turn ${results.length}/${specs.length} ${r.strategy} ${r.kind} ${r.scenario}: ${what} (load ${load()})`);
        } else if (event.bench === 'ready') {
          turnsFrom = Date.now();
          note(`caller joined both rooms in ${String(event.joinMs)} ms`);
        } else if (event.bench === 'done') {
          done = event;
        } else if (event.bench === 'error') {
          fatal = String(event.error);
        }
      },
      note,
    );
    if (code !== 0 && !fatal) fatal = `driver exited ${code}`;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    // Give each job its last log line (the turn report is written when a reply finishes).
    await new Promise((r) => setTimeout(r, 1500));
    workerLogs = Object.fromEntries(STRATEGIES.map((s) => [s.name, turnLogLines(state, s.worker)]));
    warnings = Object.fromEntries(STRATEGIES.map((s) => [s.name, workerWarnings(state, s.worker, turnsFrom)]));
    await stopBenchStack(state, note);
  }
  if (fatal) note(`driver failed: ${fatal}`);
  const joined = joinTurns(specs, results, workerLogs);
  const problems = joinProblems(joined, workerLogs);
  const summary = summarize(joined);
  const wallMs = Date.now() - started;
  const logFiles = STRATEGIES.map((s) => workerLogFile(state, s.worker));
  printReport(summary, joined, { log, describe: describe(args), loadBefore, loadAfter: load(), wallMs, done, fatal, logFiles, warnings, joinProblems: problems });
  mkdirSync(args.outDir, { recursive: true });
  const png = join(args.outDir, 'room.png');
  writeFileSync(png, renderRoomChart(summary, describe(args)));
  log(`chart: ${png}`);
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, `${JSON.stringify(toJson(summary, joined, { args, loadBefore, loadAfter: load(), wallMs, driver: done ?? null, workerWarnings: warnings, fatal: fatal ?? null, joinProblems: problems }), null, 2)}\n`);
    log(`json: ${args.json}`);
  }
  log(`done in ${(wallMs / 1000).toFixed(0)} s`);
  if (problems.length > 0) {
    process.stderr.write(`bench:room FAILED: the turns did not join with the workers' "turn latency" lines, so no stage figure stands:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    return 1;
  }
  return fatal ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`bench:room failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
