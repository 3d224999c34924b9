/**
 * The capacity bench's report: per worker a table per step with ratios to the 1-call step and what
 * each call costs (steady, start-up, threads); ours / stock when compared; then the dispatch probe.
 */
import { DEFAULT_CPU_BUDGET_PERCENT } from '../../src/config/defaults.js';
import type { CapacityArgs } from './args.js';
import { printComparison, printCosts } from './print-cost.js';
import type { StepSummary } from './summary.js';

export interface Transition {
  time: number;
  full: boolean;
  load?: number;
}

/** One worker's run: firstword's own, or the stock agents-js worker's with `--compare stock`. */
export interface WorkerRun {
  worker: 'firstword' | 'stock';
  agentName: string;
  idle: { processes: number; pssMb: number; rssMb: number };
  /** The idle worker's live processes by role (main, job, inference, other). */
  idleRoles: Record<string, number>;
  steps: StepSummary[];
  transitions: Transition[];
  workerWarnings: number;
}

export interface CapacityReport {
  args: CapacityArgs;
  cores: number;
  loadBefore: string;
  loadAfter: string;
  runs: WorkerRun[];
  stoppedBecause: string;
  full?: Record<string, unknown>;
  wallMs: number;
  date: string;
  logs: string;
  /** `node --version` of the binary the workers ran on. */
  workerNode: string;
}

const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)}` : '–');
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(0)}%` : '–');

export function printCapacity(r: CapacityReport, log: (line: string) => void): void {
  for (const run of r.runs) printRun(r, run, log);
  const [ours, stock] = [r.runs.find((x) => x.worker === 'firstword'), r.runs.find((x) => x.worker === 'stock')];
  if (ours && stock) {
    log('');
    log('== ours / stock, same run, same calls (steady: every call live; start-up: per call process, from /proc) ==');
    printComparison(ours.steps, stock.steps, log);
  }
  log('');
  log(`ladder: ${r.stoppedBecause}`);
  log(`AGENT_MAX_CALLS=${r.args.maxCalls}: reported load = live calls / ${r.args.maxCalls}, full at ${r.args.maxCalls}.`);
  if (r.full) {
    const f = r.full.full as Record<string, unknown> | undefined;
    const e = r.full.extra as Record<string, unknown> | undefined;
    log(`dispatch probe: ${f ? `${String(f.calls)} calls live; worker logged full: ${String(f.fullLogged)} (load ${String(f.load)}, ${String(f.fullAfterFilledMs)} ms after the last one was listening)` : 'did not fill'}`);
    if (e) {
      log(
        `  one more call: ${e.servedWhileFull ? `SERVED while full after ${String(e.servedAfterMs)} ms` : `not served in ${String(e.waitedWhileFullMs)} ms while the worker was full`}; ` +
          `${e.servedWhileFull ? '' : e.servedAfterLeaveMs !== null ? `served ${String(e.servedAfterLeaveMs)} ms after one call ended` : `still not served 45 s after one call ended (${String(e.error)})`}`,
      );
    }
    if (r.full.error) log(`  probe error: ${String(r.full.error)}`);
  }
  log(`worker warnings/errors logged: ${r.runs.map((x) => `${x.worker} ${x.workerWarnings}`).join(', ')}; load average ${r.loadBefore} → ${r.loadAfter}; ${(r.wallMs / 1000).toFixed(0)} s; logs ${r.logs}`);
  log(
    `limits: ${r.cores} cores shared by the worker, livekit-server, the fakes and the rtc-node callers (each caller decodes and encodes Opus in real time), ` +
      'and by whatever else runs on the machine (see the load average): the step where first sound degrades is the machine\'s, the calls per core are the worker\'s own.',
  );
}

function printRun(r: CapacityReport, run: WorkerRun, log: (line: string) => void): void {
  const base = run.steps[0];
  log('');
  log(`== ${run.worker} worker (agent ${run.agentName}) ==`);
  log(`idle worker: ${run.idle.processes} processes (${Object.entries(run.idleRoles).map(([role, n]) => `${role} ${n}`).join(', ')}), PSS ${run.idle.pssMb.toFixed(0)} MB (RSS ${run.idle.rssMb.toFixed(0)} MB)`);
  log('');
  log('calls | served | agent listening after p50/max ms | first sound p50 / p90 ms (p90 × 1 call) | gaps/reply, gap share | worker CPU cores, per call, calls/core | load: AGENT_MAX_CALLS / CPU rule, worker alone / machine | PSS MB (at rest before), per call | callers CPU');
  for (const s of run.steps) {
    const ratio = base && s !== base ? ` (${(s.firstSoundMs.p90 / base.firstSoundMs.p90).toFixed(2)}×)` : ' (1.00×)';
    log(
      `${String(s.calls).padStart(5)} | ${s.joined}/${s.calls} | ${ms(s.agentJoinMs.p50)} / ${ms(s.agentJoinMs.max)} | ` +
        `${ms(s.firstSoundMs.p50)} / ${ms(s.firstSoundMs.p90)}${ratio}, ${s.turnsOk} ok, ${s.turnsFailed} failed | ` +
        `${Number.isFinite(s.gapsPerReply) ? s.gapsPerReply.toFixed(2) : '–'}, ${pct(s.gapShare)} | ` +
        `${s.workerCores.toFixed(2)}, ${s.cpuPerCall.toFixed(2)}, ${s.callsPerCore.toFixed(1)} | ` +
        `${(s.joined / r.args.maxCalls).toFixed(2)} / ${s.workerAloneLoad.toFixed(2)} / ${s.machineLoad.toFixed(2)} | ` +
        `${s.pssMb.toFixed(0)} (${s.idlePssMb.toFixed(0)}), ${s.pssPerCallMb.toFixed(0)} | ${typeof s.callerCpuShare === 'number' ? `${s.callerCpuShare.toFixed(2)} core` : '–'}`,
    );
    for (const f of s.failures.slice(0, 5)) log(`        miss: ${f.slice(0, 200)}`);
    if (s.degraded.length > 0) log(`        DEGRADED: ${s.degraded.join('; ')}`);
  }
  log('');
  printCosts(run.steps, log);
  const good = run.steps.filter((s) => s.degraded.length === 0).at(-1);
  if (good) {
    const cpuBudgetCalls = ((DEFAULT_CPU_BUDGET_PERCENT / 100) * r.cores) / good.cpuPerCall;
    log(
      `last good step: ${good.calls} calls; the worker alone used ${good.cpuPerCall.toFixed(2)} core per call → ${good.callsPerCore.toFixed(1)} calls per core; ` +
        `PSS ${good.pssPerCallMb.toFixed(0)} MB per call over the idle worker. The worker's default CPU budget (full at ${DEFAULT_CPU_BUDGET_PERCENT} % of all cores) would mark a worker alone on this host full at ≈ ${cpuBudgetCalls.toFixed(1)} calls.`,
    );
  }
  for (const t of run.transitions) log(`  worker log ${new Date(t.time).toISOString()}: ${t.full ? 'full, marking as unavailable' : 'below capacity, available'} (load ${t.load ?? '?'})`);
}
