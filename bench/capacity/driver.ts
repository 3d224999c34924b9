/**
 * The callers of `npm run bench:capacity`, run INSIDE the stack's namespace by bench/capacity/main.ts.
 *
 *   tsx bench/capacity/driver.ts PLAN.json
 *
 * `step`: `calls` rtc-node callers join rooms of their own at once, then each takes `turns`
 * spoken turns (real speech, bench/room/turn.ts: first sound after the caller's last voiced
 * sample, silences inside the reply), all calls at the same time.
 * `full`: fills the worker to its `calls` (each caller silent, joined one after another), waits
 * for the worker's "full" log line, adds one more caller and sees whether an agent comes; then one
 * of the first callers leaves and it sees whether the waiting room gets one now.
 *
 * One JSON line per event on stdout, each with a `bench` key: `joined`, `ready`, `turn`, `done`;
 * `full`, `extra`; `error` when the run cannot go on.
 */
import { readFileSync } from 'node:fs';
import { decodeWav } from '../../src/local-voice/wav.js';
import { emit, runDriverProcess } from '../room/driver-process.js';
import { type JoinedCaller, joinCaller } from '../room/caller.js';
import { stackVariable } from '../../scripts/stack/in-namespace.js';
import { Control } from '../room/control.js';
import type { TurnSpec } from '../room/plan.js';
import { type ClipData, runTurn } from '../room/turn.js';

export interface CapacityPlan {
  mode: 'step' | 'full';
  agentName: string;
  roomPrefix: string;
  calls: number;
  turns: number;
  clip: { file: string; firstVoiced: number; lastVoiced: number };
  transcript: string;
  msPerChar: number;
  threshold: number;
  deadlineMs: number;
  /** full: the worker's log, where the framework says it is full. */
  workerLog?: string;
  /** full: how long the extra caller waits before one of the first callers leaves. */
  extraWaitMs?: number;
  /** full: how long it then waits for an agent still. */
  afterLeaveWaitMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Agents this slow to be listening count as not served. */
const JOIN_DEADLINE_MS = 90_000;

function loadClip(plan: CapacityPlan): ClipData {
  const { sampleRate, samples } = decodeWav(readFileSync(plan.clip.file));
  if (sampleRate !== 48_000) throw new Error(`${plan.clip.file}: ${sampleRate} Hz, expected 48000`);
  return { samples, firstVoiced: plan.clip.firstVoiced, lastVoiced: plan.clip.lastVoiced };
}

async function runStep(plan: CapacityPlan): Promise<void> {
  const control = new Control(stackVariable('STACK_OPENAI_URL'), stackVariable('STACK_CARTESIA_URL'));
  const clips = new Map([['speech', loadClip(plan)]]);
  const settled = await Promise.allSettled(
    Array.from({ length: plan.calls }, (_, i) => joinCaller(`call ${i + 1}`, `${plan.roomPrefix}-${i + 1}`, plan.agentName, Date.now() + JOIN_DEADLINE_MS)),
  );
  const callers: JoinedCaller[] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') {
      callers.push(s.value);
      emit('joined', { call: i + 1, ok: true, agentMs: s.value.listeningAt - s.value.joinStartedAt });
    } else emit('joined', { call: i + 1, ok: false, error: String(s.reason) });
  });
  emit('ready', { joined: callers.length, failed: plan.calls - callers.length });
  const cpu = process.cpuUsage();
  const cpuWall = Date.now();
  await Promise.all(
    callers.map(async (caller, i) => {
      for (let t = 0; t < plan.turns; t++) {
        const spec: TurnSpec = {
          id: i * plan.turns + t,
          strategy: 'firstword',
          kind: 'turn',
          scenario: `call-${i + 1}`,
          language: 'en',
          clip: 'speech',
          transcript: plan.transcript,
          msPerChar: plan.msPerChar,
          // Spread the calls' first turns so they do not all start on one frame; later turns
          // start whenever their call is ready, so they drift apart as real calls do.
          pauseBeforeMs: t === 0 ? i * 450 : 300 + ((i * 173 + t * 91) % 400),
        };
        let result;
        try {
          result = await runTurn(spec, caller, control, clips, plan.threshold);
        } catch (error) {
          result = { id: spec.id, ok: false, error: String(error) };
        }
        emit('turn', { ...result, call: i + 1, turn: t + 1 });
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  emit('done', { callerCpuShare: (used.user + used.system) / 1000 / (Date.now() - cpuWall), micStalls: callers.reduce((n, c) => n + c.mic.stalls, 0) });
  await Promise.all(callers.map((c) => c.leave()));
}

/** The first "full" line of the worker's log at or after `since` (pino's `time`, epoch ms). */
function fullLine(file: string, since: number): { time: number; load?: number } | undefined {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('marking as unavailable')) continue;
    try {
      const value = JSON.parse(line) as { time: number; load?: number };
      if (value.time >= since) return value;
    } catch {
      // A partial line.
    }
  }
  return undefined;
}

async function runFull(plan: CapacityPlan): Promise<void> {
  const callers: JoinedCaller[] = [];
  const fillStartedAt = Date.now();
  for (let i = 0; i < plan.calls; i++) {
    callers.push(await joinCaller(`fill ${i + 1}`, `${plan.roomPrefix}-fill-${i + 1}`, plan.agentName, Date.now() + JOIN_DEADLINE_MS));
  }
  const filledAt = Date.now();
  let full: { time: number; load?: number } | undefined;
  for (const deadline = Date.now() + 20_000; !full && Date.now() < deadline; await sleep(250)) full = fullLine(plan.workerLog!, fillStartedAt);
  emit('full', { calls: callers.length, filledMs: filledAt - fillStartedAt, fullLogged: full !== undefined, fullAfterFilledMs: full ? full.time - filledAt : null, load: full?.load ?? null });
  // The server hears "full" on the worker's next load report; one more tick of margin.
  await sleep(3500);

  const extraAt = Date.now();
  let servedAt: number | undefined;
  const extra = joinCaller('extra', `${plan.roomPrefix}-extra`, plan.agentName, extraAt + plan.extraWaitMs! + plan.afterLeaveWaitMs!).then(
    (caller) => ((servedAt = Date.now()), caller),
    (error: Error) => error,
  );
  await Promise.race([extra, sleep(plan.extraWaitMs!)]);
  const servedWhileFull = servedAt !== undefined;
  const leftAt = Date.now();
  await callers.shift()!.leave();
  const outcome = await extra;
  emit('extra', {
    servedWhileFull,
    waitedWhileFullMs: leftAt - extraAt,
    servedAfterMs: servedAt === undefined ? null : servedAt - extraAt,
    servedAfterLeaveMs: servedAt === undefined || servedWhileFull ? null : servedAt - leftAt,
    error: outcome instanceof Error ? outcome.message : null,
  });
  if (!(outcome instanceof Error)) callers.push(outcome);
  await Promise.all(callers.map((c) => c.leave()));
}

async function main(): Promise<void> {
  const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as CapacityPlan;
  const hardStop = setTimeout(() => {
    emit('error', { error: `driver deadline of ${plan.deadlineMs} ms passed` });
    process.exit(3);
  }, plan.deadlineMs);
  await (plan.mode === 'step' ? runStep(plan) : runFull(plan));
  clearTimeout(hardStop);
}

runDriverProcess(main);
