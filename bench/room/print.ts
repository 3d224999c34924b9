/** The printed report of `npm run bench:room`: every figure, every miss. */
import type { JoinedTurn } from './join.js';
import { STAGE_KEYS, STAGE_LABELS } from './join.js';
import type { WorkerWarnings } from './stack-run.js';
import type { Dist, Group, Summary } from './summary.js';
import { LEAD_MS } from './mic.js';

export interface PrintContext {
  log: (line: string) => void;
  describe: string;
  loadBefore: string;
  loadAfter: string;
  wallMs: number;
  done?: Record<string, unknown>;
  fatal?: string;
  logFiles: string[];
  warnings: Record<string, WorkerWarnings>;
  /** Why the join with the workers' lines failed (bench/room/join.ts joinProblems); the stage table is left out then. */
  joinProblems: string[];
}

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '-' : String(Math.round(v)));
const pad = (v: string, n: number) => v.padStart(n);
const pp = (d: Dist | undefined) => (d && d.n > 0 ? `${ms(d.p50Ms)}/${ms(d.p90Ms)}` : '-');
const x = (v: number | null) => (v === null ? '-' : `x${v.toFixed(2)}`);

const FIGURES = [
  { key: 'firstSound', label: 'First sound: last voiced sample published -> first agent frame with speech energy received (ack or reply), caller ms' },
  { key: 'firstContent', label: "First content: last voiced sample published -> the reply's first frame received (its tone, not the ack's), caller ms" },
  { key: 'workerFirstSound', label: "First sound as the worker logged it (its line's firstSoundMs, on its estimate of the caller's clock), ms" },
  { key: 'workerFirstContent', label: "First content as the worker logged it (firstContentMs), ms" },
] as const;

function waitTable(s: Summary, log: (line: string) => void): void {
  for (const { key, label } of FIGURES) {
    log('');
    log(label);
    log(`${'strategy'.padEnd(18)}${'lang'.padEnd(6)}${pad('turns', 8)}${pad('misses', 8)}${pad('p50', 7)}${pad('p90', 7)}${pad('ratio p50', 11)}${pad('ratio p90', 11)}`);
    for (const g of s.groups) {
      const r = s.ratios.find((q) => q.language === g.language)?.[key];
      const isFw = g.name === 'firstword';
      const d = g[key];
      log(
        `${g.name.padEnd(18)}${g.language.padEnd(6)}${pad(`${d.n}/${g.planned}`, 8)}${pad(String(g.planned - d.n), 8)}${pad(ms(d.p50Ms), 7)}${pad(ms(d.p90Ms), 7)}` +
          `${pad(isFw ? x(r?.p50 ?? null) : '', 11)}${pad(isFw ? x(r?.p90 ?? null) : '', 11)}`,
      );
    }
  }
  log('  ratio = firstword / livekit-cartesia from this run');
  for (const g of s.groups.filter((q) => q.language === 'all')) {
    log(
      `  ${g.name}: replies with a silence of >= 100 ms inside them ${g.gapTurns}/${g.turns}; acknowledgement per the worker ` +
        `${Object.entries(g.acks).map(([k, n]) => `${k} ${n}`).join(', ') || '-'}; reply not told apart on the ear in ${g.contentMisses} turns; ` +
        `|caller - worker| p50/p90 first sound ${pp(g.soundOff)} ms (${g.soundOff.n}), first content ${pp(g.contentOff)} ms (${g.contentOff.n})`,
    );
  }
  const q = s.quiet;
  log(
    `  turns that ended with the 1-min load average <= ${q.maxLoad} (the core count): ` +
      q.cells.map((c) => `${c.name} sound ${pp(c.sound)} content ${pp(c.content)} (${c.sound.n} turns; mean load over all its turns ${c.meanLoad ?? '-'})`).join(', ') +
      `; ratio sound p50 ${x(q.ratio.firstSound.p50)}, content p50 ${x(q.ratio.firstContent.p50)} (a subset not balanced by scenario: compare with care)`,
  );
  log('');
  log(`Per scenario, first sound | first content p50/p90 (turns): ${s.strategies.join(' | ')}`);
  for (const row of s.scenarios) {
    log(`  ${row.scenario.padEnd(18)}${s.strategies.map((name) => pad(`${pp(row.cells[name]?.sound)} | ${pp(row.cells[name]?.content)} (${row.cells[name]?.sound.n ?? 0})`, 26)).join(' ')}`);
  }
}

function stageTable(s: Summary, log: (line: string) => void): void {
  const columns = ['ko', 'en', 'all'].flatMap((language) => s.strategies.map((name) => s.groups.find((g) => g.name === name && g.language === language)).filter((g): g is Group => g !== undefined));
  const short = (g: Group) => `${g.name === 'firstword' ? 'fw' : 'lk'} ${g.language}`;
  log('');
  log('Stages: ms after the last voiced sample, p50/p90 (fw = firstword, lk = livekit-cartesia); "-" = not observed');
  log(`${'stage'.padEnd(34)}${columns.map((g) => pad(short(g), 12)).join('')}`);
  for (const key of STAGE_KEYS) log(`${STAGE_LABELS[key].padEnd(34)}${columns.map((g) => pad(pp(g.stages[key]), 12)).join('')}`);
  log(`${'  reply published -> received (SFU)'.padEnd(34)}${columns.map((g) => pad(pp(g.stages.transport), 12)).join('')}`);
  log(`${'  turns with a worker line'.padEnd(34)}${columns.map((g) => pad(`${g.turns - g.logMisses}/${g.turns}`, 12)).join('')}`);
  log("LiveKit's own metrics for the same turns, p50/p90 (ms):");
  for (const key of ['endOfUtteranceDelayMs', 'transcriptionDelayMs', 'llmTtftMs', 'ttsTtfbMs'] as const) {
    log(`  ${key.padEnd(32)}${columns.map((g) => pad(pp(g.livekit[key]), 12)).join('')}`);
  }
  log('  (the official plugin has no TTS timeline: first chunk / first byte / first frame are firstword-only stamps)');
}

function bargeTable(s: Summary, log: (line: string) => void): void {
  if (s.barge.length === 0) return;
  log('');
  log('Barge-in: caller starts talking (first voiced sample) -> agent track silent (first of >= 100 ms below the threshold), ms');
  log(`${'strategy'.padEnd(18)}${'lang'.padEnd(6)}${pad('measured', 10)}${pad('misses', 8)}${pad('p50', 7)}${pad('p90', 7)}${pad('their wait p50/p90', 21)}`);
  for (const b of s.barge) {
    log(`${b.name.padEnd(18)}${b.language.padEnd(6)}${pad(`${b.measured}/${b.planned}`, 10)}${pad(String(b.misses.length), 8)}${pad(ms(b.p50Ms), 7)}${pad(ms(b.p90Ms), 7)}${pad(pp(b.callerWait), 21)}`);
  }
  const fw = s.barge.find((b) => b.name === 'firstword' && b.language === 'all');
  const lk = s.barge.find((b) => b.name === 'livekit-cartesia' && b.language === 'all');
  if (fw?.p50Ms && lk?.p50Ms && fw.p90Ms && lk.p90Ms) log(`  firstword / livekit-cartesia: p50 x${(fw.p50Ms / lk.p50Ms).toFixed(2)}, p90 x${(fw.p90Ms / lk.p90Ms).toFixed(2)}`);
}

function anomalies(s: Summary, turns: readonly JoinedTurn[], log: (line: string) => void): void {
  log('');
  const misses = [...s.groups.filter((g) => g.language === 'all').flatMap((g) => g.misses.map((m) => `${g.name} turn ${m}`)), ...s.barge.filter((b) => b.language === 'all').flatMap((b) => b.misses.map((m) => `${b.name} barge-in ${m}`))];
  log(`Misses: ${misses.length === 0 ? 'none' : misses.length}`);
  for (const m of misses) log(`  ${m}`);
  for (const w of s.warmups) log(`  warm-up (not measured) ${w.strategy}: ${w.ok ? `wait ${ms(w.callerWaitMs)} ms` : `MISS ${w.error}`}`);
  const odd = turns.filter((t) => (t.commits !== undefined && t.commits !== (t.kind === 'barge' ? 2 : 1)) || (t.transcriptsLeft ?? 0) > 0);
  for (const t of odd) log(`  note: #${t.id} ${t.strategy} ${t.scenario}: ${t.commits} STT commits, ${t.transcriptsLeft} transcripts left queued`);
  const unjoined = turns.filter((t) => t.ok && t.kind !== 'warmup' && t.logMiss);
  for (const t of unjoined) log(`  note: #${t.id} ${t.strategy} ${t.scenario}: ${t.logMiss}`);
  const untold = turns.filter((t) => t.ok && t.kind !== 'warmup' && !t.logMiss && t.contentMiss);
  for (const t of untold) log(`  note: #${t.id} ${t.strategy} ${t.scenario}: first content not told on the ear: ${t.contentMiss}`);
}

export function printReport(s: Summary, turns: readonly JoinedTurn[], c: PrintContext): void {
  const { log } = c;
  waitTable(s, log);
  if (c.joinProblems.length === 0) stageTable(s, log);
  else {
    log('');
    log("Stages: NOT REPORTED — the turns did not join with the workers' \"turn latency\" lines:");
    for (const p of c.joinProblems) log(`  ${p}`);
  }
  bargeTable(s, log);
  anomalies(s, turns, log);
  log('');
  const loop = c.done?.eventLoop as { p50Ms: number; p99Ms: number; maxMs: number } | undefined;
  const stalls = turns.reduce((n, t) => n + (t.micStalls ?? 0), 0);
  const readGap = Math.max(0, ...turns.map((t) => t.maxReadGapMs ?? 0));
  log(`Conditions: ${c.describe}`);
  log(
    `  load average ${c.loadBefore} before, ${c.loadAfter} after; caller event-loop delay ` +
      (loop ? `p50 ${loop.p50Ms.toFixed(1)} / p99 ${loop.p99Ms.toFixed(1)} / max ${loop.maxMs.toFixed(0)} ms` : 'n/a') +
      `; microphone gaps (stalls past its ${LEAD_MS} ms lead) ${stalls}; longest gap between received frames ${readGap} ms` +
      (typeof c.done?.cpuShare === 'number' ? `; caller process ${Math.round(100 * c.done.cpuShare)}% of one core` : ''),
  );
  const lags = turns.map((t) => t.firstAudioReadLagMs ?? 0);
  log(
    `  first agent frames read late by the caller's event loop (timestamps corrected from the frames after them): ` +
      `${lags.filter((v) => v > 20).length} of ${lags.length} turns by > 20 ms, at most ${Math.round(Math.max(0, ...lags))} ms`,
  );
  for (const [name, w] of Object.entries(c.warnings)) {
    const top = Object.entries(w.byMessage).sort((a, b) => b[1] - a[1]).slice(0, 4).map(([m, n]) => `${n}x "${m}"`);
    log(`  ${name} worker during the turns: ${w.stalls} stall reports of >= 100 ms (${Math.round(w.stallMs)} ms in all; loops report the same stall separately); warnings: ${top.join(', ') || 'none'}`);
  }
  const drift = c.done?.clockSkewDriftMs;
  if (typeof drift === 'number') log(`  wall clock vs monotonic clock drift over the run (caller process): ${drift.toFixed(2)} ms`);
  log(`  worker logs: ${c.logFiles.join(', ')}`);
  if (c.fatal) log(`  THE RUN STOPPED EARLY: ${c.fatal}`);
  log(`  wall time ${(c.wallMs / 1000).toFixed(0)} s`);
}
