/** The capacity report's cost sections: steady and start-up per call, the call processes' threads, ours / stock. */
import { costRatios } from './cost.js';
import { type StepSummary, callCostOf } from './summary.js';

const fixed = (v: number | undefined, digits: number) => (v !== undefined && Number.isFinite(v) ? v.toFixed(digits) : '–');
const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(0)}%` : '–');

/** Per step: the steady window's cores by role, the start-up CPU-seconds, and the call processes' top threads. */
export function printCosts(steps: StepSummary[], log: (line: string) => void, topThreads = 8): void {
  log('calls | steady window s | steady cores per call: worker group / call processes | cores: main, call processes, idle job processes, inference | start-up spilled into the window CPU-s | start-up CPU-s per call: boot+prewarm, session start, sum (processes)');
  for (const s of steps) {
    const st = s.steady;
    const up = s.startup;
    if (!st || !up) {
      log(`${String(s.calls).padStart(5)} | (no steady window: the step did not get every call live)`);
      continue;
    }
    log(
      `${String(s.calls).padStart(5)} | ${fixed(st.windowMs / 1000, 1)} | ${fixed(st.groupPerCall, 3)} / ${fixed(st.callProcessPerCall, 3)} | ` +
        `${fixed(st.cores.main, 3)}, ${fixed(st.cores.calls, 3)}, ${fixed(st.cores.spares, 3)}, ${fixed(st.cores.inference, 3)} | ${fixed(st.bootingCpuS, 2)}${st.exited ? ` (${st.exited} exited)` : ''} | ` +
        `${fixed(up.bootCpuS, 2)}, ${fixed(up.sessionCpuS, 2)}, ${fixed(up.perCallCpuS, 2)} (${up.processes})`,
    );
  }
  for (const s of steps) {
    const threads = s.steady?.threads ?? [];
    if (threads.length === 0) continue;
    const shown = threads.slice(0, topThreads).map((t) => `${t.name}${t.threads > 1 ? ` ×${t.threads}` : ''} ${pct(t.share)}`);
    log(`  threads of the ${s.calls}-call step's call processes (share of their CPU in the window): ${shown.join(', ')}`);
  }
}

/** ours / stock, step by step, from the same run. */
export function printComparison(ours: StepSummary[], stock: StepSummary[], log: (line: string) => void): void {
  log('calls | steady cores per call, group: ours / stock = ratio | steady, call processes | start-up CPU-s per call (boot+prewarm + session start) | boot+prewarm | session start | PSS MB per call | first sound p50 ms');
  for (const o of ours) {
    const s = stock.find((x) => x.calls === o.calls);
    if (!s) continue;
    const a = callCostOf(o);
    const b = callCostOf(s);
    const r = costRatios(a, b);
    const cell = (x: number, y: number, ratio: number, digits: number) => `${fixed(x, digits)} / ${fixed(y, digits)} = ${fixed(ratio, 2)}×`;
    log(
      `${String(o.calls).padStart(5)} | ${cell(a.cpuPerCall, b.cpuPerCall, r.cpuPerCall, 3)} | ${cell(a.callProcessCpuPerCall, b.callProcessCpuPerCall, r.callProcessCpuPerCall, 3)} | ` +
        `${cell(a.startupCpuS, b.startupCpuS, r.startupCpuS, 2)} | ${cell(a.bootCpuS, b.bootCpuS, r.bootCpuS, 2)} | ${cell(a.sessionCpuS, b.sessionCpuS, r.sessionCpuS, 2)} | ` +
        `${cell(a.pssPerCallMb, b.pssPerCallMb, r.pssPerCallMb, 0)} | ${cell(a.firstSoundP50Ms, b.firstSoundP50Ms, r.firstSoundP50Ms, 0)}`,
    );
    const unlike = [['ours', o] as const, ['stock', s] as const].filter(([, x]) => x.turnsFailed > 0 || x.joined < x.calls);
    if (unlike.length > 0) {
      // A turn that got no reply spent no LLM or TTS work: that worker's steady figure is low, not cheap.
      log(`        not like for like: ${unlike.map(([who, x]) => `${who} ${x.turnsFailed} of ${x.turnsOk + x.turnsFailed} turns failed, ${x.joined}/${x.calls} served`).join('; ')}`);
    }
  }
}
