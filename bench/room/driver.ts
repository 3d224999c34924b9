/**
 * The caller side of `npm run bench:room`, run INSIDE the stack's network namespace (libwebrtc
 * gathers no loopback candidates): one rtc-node participant per strategy's room, each with a
 * microphone that never stops sending and an ear on the agent's track. Turns run one at a time,
 * in the plan's order, so the two strategies never compete for the 2 cores while measured.
 *
 *   tsx bench/room/driver.ts PLAN.json      (started by bench/room/main.ts through the stack)
 *
 * Reports on stdout, one JSON line each with a `bench` key (rtc-node logs JSON there too):
 * `ready`, one `turn` per turn, then `done`; `error` if the run cannot go on.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { decodeWav } from '../../src/local-voice/wav.js';
import { emit, runDriverProcess } from './driver-process.js';
import { type JoinedCaller, joinCaller } from './caller.js';
import { stackVariable } from '../../scripts/stack/in-namespace.js';
import { Control } from './control.js';
import type { Strategy, TurnSpec } from './plan.js';
import { type ClipData, runTurn } from './turn.js';

export interface DriverPlan {
  strategies: Strategy[];
  turns: TurnSpec[];
  clips: Record<string, { file: string; firstVoiced: number; lastVoiced: number }>;
  threshold: number;
  deadlineMs: number;
}


interface Joined extends JoinedCaller {
  strategy: string;
}

async function join(strategy: Strategy, deadline: number): Promise<Joined> {
  return { ...(await joinCaller(strategy.name, strategy.room, strategy.agentName, deadline)), strategy: strategy.name };
}

function loadClips(plan: DriverPlan): Map<string, ClipData> {
  const clips = new Map<string, ClipData>();
  for (const [key, clip] of Object.entries(plan.clips)) {
    const { sampleRate, samples } = decodeWav(readFileSync(clip.file));
    if (sampleRate !== 48_000) throw new Error(`${clip.file}: ${sampleRate} Hz, expected 48000`);
    clips.set(key, { samples, firstVoiced: clip.firstVoiced, lastVoiced: clip.lastVoiced });
  }
  return clips;
}

/** Wall clock minus the monotonic clock's idea of it (the worker follows the wall clock once they part by 20 ms: src/latency/clock.ts). */
const clockSkew = () => Date.now() - (performance.timeOrigin + performance.now());

async function main(): Promise<void> {
  const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as DriverPlan;
  const hardStop = setTimeout(() => {
    emit('error', { error: `driver deadline of ${plan.deadlineMs} ms passed` });
    process.exit(3);
  }, plan.deadlineMs);
  const control = new Control(stackVariable('STACK_OPENAI_URL'), stackVariable('STACK_CARTESIA_URL'));
  const clips = loadClips(plan);
  const skewAtStart = clockSkew();
  const joinedAt = Date.now();
  const callers = await Promise.all(plan.strategies.map((s) => join(s, Date.now() + 90_000)));
  const byName = new Map(callers.map((c) => [c.strategy, c]));
  emit('ready', { joinMs: Date.now() - joinedAt });

  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const cpu = process.cpuUsage();
  const cpuWall = Date.now();
  for (const spec of plan.turns) {
    let result;
    try {
      result = await runTurn(spec, byName.get(spec.strategy)!, control, clips, plan.threshold);
    } catch (error) {
      result = { id: spec.id, strategy: spec.strategy, kind: spec.kind, scenario: spec.scenario, language: spec.language, ok: false, error: String(error) };
    }
    // The machine's 1-minute load average as the turn ended: other work on the same 2 cores.
    emit('turn', { ...result, load1: Math.round(loadavg()[0]! * 100) / 100 });
  }
  loop.disable();
  const eventLoop = { p50Ms: loop.percentile(50) / 1e6, p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 };
  const used = process.cpuUsage(cpu);
  // Share of one core the caller itself used (two rooms: Opus in and out, 200 frames/s each way).
  const cpuShare = (used.user + used.system) / 1000 / (Date.now() - cpuWall);
  const micStalls = callers.reduce((n, c) => n + c.mic.stalls, 0);
  for (const caller of callers) await caller.leave();
  clearTimeout(hardStop);
  emit('done', { eventLoop, micStalls, cpuShare, clockSkewDriftMs: clockSkew() - skewAtStart });
}

runDriverProcess(main);
