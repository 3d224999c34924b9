/**
 * `npm run faults [-- --json FILE --only livekit,redis,job,tts,restart,node --calls N]`: the faults a deployment
 * meets, drilled on the real stack of `npm run stack` (its own network namespace; loopback and
 * namespace addresses only). For each: what the caller heard, what the worker logged, how long
 * it took, and that nothing was left running. Callers are rtc-node participants speaking real
 * speech (scripts/faults/caller.ts); the OpenAI and Cartesia-protocol fakes answer them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { prepareClips } from '../../bench/room/speech.js';
import type { DriverEvent } from '../../bench/room/stack-run.js';
import { RESUMING_CALL } from '../../src/recovery/dispatch-metadata.js';
import { isBrokenRoomHandOver } from '../../src/recovery/lost-room.js';
import { DEPARTURE_TIMEOUT_S } from '../stack/livekit-config.js';
import { isAlive, running } from '../stack/processes.js';
import { down, restartComponent, startExtraWorker, up } from '../stack/stack.js';
import type { StackState } from '../stack/state.js';
import type { FaultCallerPlan } from './caller.js';
import { nodeDrill } from './node-drill.js';
import { CONVERSATION, type CallerHandle, liveCount, logLines, settle, startCaller, warningsSince } from './drill.js';

const USER = CONVERSATION.user;
const REPLY_WITH_HISTORY = CONVERSATION.replyWithHistory;
const AGENT = 'firstword-faults';
const FAULTS = ['livekit', 'redis', 'job', 'tts', 'restart', 'node'] as const;
type Fault = (typeof FAULTS)[number];

export interface FaultRow {
  fault: string;
  heard: string[];
  logs: string[];
  figures: Record<string, number | string | boolean | null>;
  leftover: string;
  ok: boolean;
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx {
  state: StackState;
  work: string;
  pid: number;
  logFile: string;
  idle: number;
  /** Calls live at a livekit-server restart (`--calls`): call A plus the others, which each take a turn once reconnected. */
  calls: number;
  plan(room: string, extra?: Partial<FaultCallerPlan>): Omit<FaultCallerPlan, 'stopFile'>;
}

const turnText = (e: DriverEvent | undefined) =>
  !e
    ? 'no turn'
    : e.ok
      ? `reply heard, first sound ${Math.round(Number(e.firstSoundMs))} ms; ${repliesText(e.replies as string[] | undefined)}`
      : `no reply (${String(e.error).slice(0, 80)})`;
const repliesText = (replies: string[] = []) =>
  `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'} from the model${replies.length > 0 && replies.every((r) => r === REPLY_WITH_HISTORY) ? ', with the conversation so far' : replies.some((r) => r === REPLY_WITH_HISTORY) ? ', one with the conversation so far' : ''}`;
const turnOf = (c: CallerHandle, label: string) => c.events.find((e) => e.bench === 'turn' && e.label === label);
const eventsOf = (c: CallerHandle, since: number) =>
  c.events.filter((e) => e.bench === 'event' && Number(e.at) >= since && !String(e.what).startsWith('agent in the room')).map((e) => `${String(e.what)} at +${Number(e.at) - since} ms`);

async function leftover(ctx: Ctx): Promise<string> {
  const ms = await settle(ctx.pid, ctx.idle);
  return ms === undefined ? `STUCK: ${liveCount(ctx.pid)} worker processes 90 s later (idle: ${ctx.idle})` : `worker back to ${ctx.idle} idle processes ${(ms / 1000).toFixed(1)} s after the callers left`;
}

/** A server component restarted while a call is live; then a new call. */
async function restartDrill(ctx: Ctx, which: 'livekit-server' | 'redis'): Promise<FaultRow> {
  // Before its last turn, call A watches which agents the server lists in its room.
  const a = startCaller(ctx.state, ctx.work, `${which}-a`, ctx.plan(`${which}-a-${Date.now().toString(36)}`, { turnFirst: true, turnAtEnd: true, agentsWatchMs: 15_000 }), note);
  // The other live calls ask their next question as soon as they are reconnected.
  const others = which === 'livekit-server' ? Array.from({ length: ctx.calls - 1 }, (_, i) => startCaller(ctx.state, ctx.work, `${which}-o${i}`, ctx.plan(`${which}-o${i}-${Date.now().toString(36)}`, { turnFirst: true, turnOnReconnect: true }), note)) : [];
  const first = await a.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000);
  await Promise.all(others.map((o) => o.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000)));
  const registeredBefore = logLines(ctx.logFile).filter((l) => l.msg === 'registered worker').length;
  const { goneAt, readyAt } = await restartComponent(ctx.state, which);
  let reRegisteredAt: number | undefined;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline && reRegisteredAt === undefined; await sleep(250)) {
    reRegisteredAt = logLines(ctx.logFile).filter((l) => l.msg === 'registered worker')[registeredBefore]?.time;
    if (which === 'redis' && Date.now() - readyAt > 10_000) break; // the worker's connection to LiveKit may well survive
  }
  await Promise.all(others.map((o) => o.next((e) => (e.bench === 'turn' && e.label === 'reconnected') || e.bench === 'error', 60_000)));
  a.stop();
  for (const o of others) o.stop();
  await Promise.all([a.exited, ...others.map((o) => o.exited)]);
  const agents = a.events.find((e) => e.bench === 'agents');
  const reconnectedTurns = others.map((o) => turnOf(o, 'reconnected'));
  // When the reply's first sound reached the caller, from the server being back.
  const answeredAfterBack = reconnectedTurns.flatMap((t) => (t?.ok && typeof t.heardAt === 'number' ? [t.heardAt - readyAt] : []));
  // Where that time goes: the caller's own rejoin (rtc-node's), then its question, then the reply.
  const askedAfterBack = reconnectedTurns.flatMap((t) => (t?.ok && typeof t.startedAt === 'number' ? [t.startedAt - readyAt] : []));
  const replyAfterQuestion = reconnectedTurns.flatMap((t) => (t?.ok && typeof t.firstSoundMs === 'number' ? [t.firstSoundMs] : []));
  const b = startCaller(ctx.state, ctx.work, `${which}-b`, ctx.plan(`${which}-b-${Date.now().toString(36)}`, { turnFirst: true, joinDeadlineMs: 120_000 }), note);
  b.stop();
  const bTurn = await b.next((e) => e.bench === 'turn' || e.bench === 'error', 200_000);
  const bListening = b.events.find((e) => e.bench === 'listening');
  await b.exited;
  const logs = warningsSince(ctx.logFile, goneAt - 1000, Date.now());
  return {
    fault: `${which} restarted during a call (SIGKILL, then started again)`,
    heard: [
      `call A before: ${turnText(first)}`,
      `call A during/after: ${eventsOf(a, goneAt).join('; ') || 'no connection events'}; ${agentsText(agents)}; its next turn: ${turnText(turnOf(a, 'after'))}`,
      ...(others.length > 0
        ? [
            `the other ${others.length} live calls, each asking once reconnected: ${reconnectedTurns.filter((t) => t?.ok).length} answered; reply heard ${answeredAfterBack.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ') || '-'} after the server was back ` +
              `(callers back and asking at ${askedAfterBack.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ') || '-'}; first sound ${replyAfterQuestion.map((ms) => `${Math.round(ms)} ms`).join(', ') || '-'} after each question)`,
          ]
        : []),
      `next call B: ${bListening ? `agent listening ${String(bListening.afterMs)} ms after joining (${((Number(bListening.at) - goneAt) / 1000).toFixed(1)} s after the kill)` : 'no agent'}; ${turnText(bTurn)}`,
    ],
    logs,
    figures: {
      downMs: readyAt - goneAt,
      workerReRegisteredAfterRestartMs: reRegisteredAt === undefined ? null : reRegisteredAt - readyAt,
      nextCallListeningAfterKillMs: bListening ? Number(bListening.at) - goneAt : null,
      agentsInRoomAfter: agents ? (agents.agents as string[]).length : null,
      mostAgentsListed: agents ? Number(agents.mostListed) : null,
      firstAgentStayed: agents ? (agents.agents as string[]).join() === agents.first : null,
      repliesToNextTurn: (turnOf(a, 'after')?.replies as string[] | undefined)?.length ?? null,
      ...(others.length > 0
        ? {
            liveCalls: others.length + 1,
            otherCallsAnswered: reconnectedTurns.filter((t) => t?.ok).length,
            otherCallsAnsweredWithin5sOfBack: answeredAfterBack.filter((ms) => ms <= 5000).length,
            otherCallsReplyAfterBackMs: answeredAfterBack.map((ms) => Math.round(ms)).join(' '),
            otherCallsAskingAfterBackMs: askedAfterBack.map((ms) => Math.round(ms)).join(' '),
            otherCallsFirstSoundAfterQuestionMs: replyAfterQuestion.map((ms) => Math.round(ms)).join(' '),
          }
        : {}),
    },
    leftover: await leftover(ctx),
    // After a server restart: one agent in the room, answering its next turn: the call's own, or
    // the successor it handed the call to when its room came back deaf or mute.
    ok: Boolean(bTurn?.ok) && (which !== 'livekit-server' || (oneAgentAfter(agents, logLines(ctx.logFile).some((l) => l.time >= goneAt && isBrokenRoomHandOver(l.msg))) && Boolean(turnOf(a, 'after')?.ok))),
  };
}

/** Exactly one agent listed in call A's room: its first, or another after a deaf hand-over. */
function oneAgentAfter(e: DriverEvent | undefined, handedOverDeaf: boolean): boolean {
  const listed = (e?.agents as string[] | undefined) ?? [];
  return listed.length === 1 && (listed[0] === e?.first || handedOverDeaf);
}

/** What the server listed in call A's room after the restart (scripts/faults/caller.ts `agents`). */
function agentsText(e: DriverEvent | undefined): string {
  if (!e) return 'agents in the room: not asked';
  const agents = e.agents as string[];
  const stayed = agents.join() === e.first ? "the call's first agent" : `the call's first agent was ${String(e.first)}`;
  return `agents in the room afterwards: ${agents.length} [${agents.join(', ')}] (${stayed}), at most ${String(e.mostListed)} listed and ${String(e.mostSeenAtOnce)} seen at once`;
}

/**
 * One job process SIGKILLed mid-call while another call goes on: the worker takes the dead agent
 * out and dispatches a new one, which apologises and answers the killed call's next turn.
 */
async function jobDrill(ctx: Ctx): Promise<FaultRow> {
  const a = startCaller(ctx.state, ctx.work, 'job-a', ctx.plan(`job-a-${Date.now().toString(36)}`, { turnFirst: true, turnAtEnd: true }), note);
  const b = startCaller(ctx.state, ctx.work, 'job-b', ctx.plan(`job-b-${Date.now().toString(36)}`, { turnFirst: true, turnAtEnd: true }), note);
  await Promise.all([a.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000), b.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000)]);
  const agent = String(a.events.find((e) => e.bench === 'listening')?.agent ?? '');
  const job = agent.replace(/^agent-/, '');
  const jobPid = logLines(ctx.logFile).find((l) => l.msg === 'caller joined' && l.job === job)?.pid;
  const before = liveCount(ctx.pid);
  // Killed once the first turn is in the agent's saved history (the history a new agent gets).
  await a.next((e) => e.bench === 'history' && e.agent === agent && Number(e.turns) >= 2, 60_000);
  const killedAt = Date.now();
  if (jobPid) process.kill(jobPid, 'SIGKILL');
  const heard = await a.next((e) => e.bench === 'heard', 60_000);
  a.stop();
  b.stop();
  await Promise.all([a.exited, b.exited]);
  const jobGone = jobPid !== undefined && !running(jobPid);
  const workerAlive = liveCount(ctx.pid) > 0;
  const left = a.events.find((e) => e.bench === 'event' && e.what === `participant left: ${agent}`);
  const errorLines = logLines(ctx.logFile).filter((l) => l.time >= killedAt && l.level >= 50);
  const resumed = logLines(ctx.logFile).find((l) => l.time >= killedAt && l.msg === RESUMING_CALL);
  return {
    fault: 'one job process killed mid-call (SIGKILL), a second call live',
    heard: [
      `call A: ${eventsOf(a, killedAt).join('; ') || 'nothing changed'}; its next turn: ${turnText(turnOf(a, 'after'))}`,
      `call B (same worker): its next turn: ${turnText(turnOf(b, 'after'))}`,
    ],
    logs: warningsSince(ctx.logFile, killedAt, Date.now()),
    figures: {
      jobPid: jobPid ?? null,
      jobFound: jobPid !== undefined,
      workerProcessesBefore: before,
      workerAlive,
      jobProcessGone: jobGone,
      errorLines: errorLines.length,
      deadAgentGoneAfterKillMs: left ? Number(left.at) - killedAt : null,
      agentHeardAgainAfterKillMs: heard ? Number(heard.at) - killedAt : null,
      historyTurnsResumed: resumed ? Number(resumed.historyTurns) : null,
    },
    leftover: await leftover(ctx),
    ok: jobPid !== undefined && Boolean(turnOf(b, 'after')?.ok) && workerAlive && errorLines.length === 1 && heard !== undefined && Boolean(turnOf(a, 'after')?.ok),
  };
}

/** A worker whose TTS provider refuses connections (nothing listens on its port), with TTS_FALLBACK=local. */
async function ttsDrill(ctx: Ctx): Promise<FaultRow> {
  const agentName = 'firstword-ttsdown';
  const t0 = Date.now();
  await startExtraWorker(ctx.state, {
    name: 'worker-ttsdown',
    agentName,
    httpPort: 18095,
    tts: 'cartesia',
    env: { CARTESIA_BASE_URL: 'http://127.0.0.1:9', TTS_FALLBACK: 'local', AGENT_PROCESS_START_TIMEOUT_S: '60', AGENT_MAX_CALLS: '4' },
  });
  const c = startCaller(ctx.state, ctx.work, 'tts-c', { ...ctx.plan(`tts-c-${Date.now().toString(36)}`, { turnFirst: true }), agentName }, note);
  c.stop();
  const turn = await c.next((e) => e.bench === 'turn' || e.bench === 'error', 200_000);
  await c.exited;
  const workerLog = join(ctx.state.runDir, 'worker-ttsdown.log');
  const fallbackLines = logLines(workerLog).filter((l) => String(l.msg).includes('fallback voice'));
  return {
    fault: 'TTS provider refusing connections when a call starts (TTS_FALLBACK=local)',
    heard: [`caller: ${turnText(turn)}${turn?.ok ? ' (the embedded voice)' : ''}`],
    logs: warningsSince(workerLog, t0, Date.now()),
    figures: { fallbackLogLines: fallbackLines.length },
    leftover: 'worker-ttsdown stopped with the stack',
    ok: Boolean(turn?.ok) && fallbackLines.length === 1,
  };
}

/** What a process manager does on restart: SIGTERM (drain) with a call live, then a new worker. */
async function managerDrill(ctx: Ctx, worker: { pid: number; startTime: string }): Promise<FaultRow> {
  const a = startCaller(ctx.state, ctx.work, 'restart-a', ctx.plan(`restart-a-${Date.now().toString(36)}`, { turnFirst: true, turnAtEnd: true }), note);
  await a.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000);
  const termAt = Date.now();
  process.kill(worker.pid, 'SIGTERM');
  await sleep(4000);
  a.stop();
  await a.exited;
  let exitedAt: number | undefined;
  for (const deadline = Date.now() + 90_000; Date.now() < deadline && exitedAt === undefined; await sleep(250)) if (!isAlive(worker)) exitedAt = Date.now();
  const drainLogs = warningsSince(ctx.logFile, termAt, Date.now());
  const stopLine = logLines(ctx.logFile).find((l) => l.time >= termAt && l.msg === 'worker stopped');
  const started = Date.now();
  await startExtraWorker(ctx.state, { name: 'worker-restarted', agentName: AGENT, httpPort: 18096, env: { AGENT_PROCESS_START_TIMEOUT_S: '60', AGENT_MAX_CALLS: '4' } });
  const readyMs = Date.now() - started;
  const b = startCaller(ctx.state, ctx.work, 'restart-b', ctx.plan(`restart-b-${Date.now().toString(36)}`, { turnFirst: true, joinDeadlineMs: 120_000 }), note);
  b.stop();
  const bTurn = await b.next((e) => e.bench === 'turn' || e.bench === 'error', 200_000);
  await b.exited;
  return {
    fault: 'process manager restarting the worker during a call (SIGTERM, then a new worker)',
    heard: [`call A: its next turn after the SIGTERM: ${turnText(turnOf(a, 'after'))}; ${eventsOf(a, termAt).join('; ') || 'no connection events'}`, `next call B on the new worker: ${turnText(bTurn)}`],
    logs: [...drainLogs, stopLine ? `worker stopped (exit code ${String(stopLine.code)})` : 'no "worker stopped" line'],
    figures: { oldWorkerExitedAfterCallerLeftMs: exitedAt === undefined ? null : exitedAt - termAt - 4000, newWorkerReadyMs: readyMs },
    leftover: exitedAt === undefined ? 'STUCK: the old worker still runs 90 s after its caller left' : 'old worker exited',
    ok: Boolean(turnOf(a, 'after')?.ok) && Boolean(bTurn?.ok) && exitedAt !== undefined,
  };
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const jsonAt = argv.indexOf('--json');
  const json = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  const callsAt = argv.indexOf('--calls');
  const calls = callsAt >= 0 ? Number(argv[callsAt + 1]) : 1;
  if (!Number.isInteger(calls) || calls < 1 || calls > 8) {
    process.stderr.write('faults: --calls takes 1..8 (calls live at the livekit-server restart)\n');
    return 2;
  }
  const onlyAt = argv.indexOf('--only');
  const only = (onlyAt >= 0 ? argv[onlyAt + 1]!.split(',') : [...FAULTS]) as Fault[];
  if (only.some((f) => !FAULTS.includes(f))) {
    process.stderr.write(`faults: --only takes ${FAULTS.join(',')}\n`);
    return 2;
  }
  const started = Date.now();
  log(`firstword fault drills (${only.join(', ')}); load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  const work = resolve('out', 'faults');
  mkdirSync(work, { recursive: true });
  const clip = (await prepareClips([{ key: 'speech', text: USER, language: 'en' }], join(work, 'speech'))).get('speech')!;
  const scriptFile = join(work, 'openai-script.json');
  writeFileSync(scriptFile, CONVERSATION.script());
  const state = await up({
    owner: 'harness',
    tts: 'cartesia',
    agentName: AGENT,
    web: false,
    // A caller rejoining a restarted server finds its room as production would keep it.
    departureTimeoutS: DEPARTURE_TIMEOUT_S.livekitDefault,
    // Room for every call a drill places (the livekit drill's --calls, then its next call).
    workerEnv: { AGENT_PROCESS_START_TIMEOUT_S: '60', AGENT_MAX_CALLS: String(Math.max(4, calls + 1)) },
    fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: 60, firstByteDelayMs: 120 })] },
    progress: (line) => note(`stack: ${line}`),
  });
  const worker = state.processes.find((p) => p.name === 'worker')!;
  const rows: FaultRow[] = [];
  try {
    // The idle pool (main process, prewarmed job processes, inference process) fills up after
    // registration: its size is the largest seen over a few seconds, not one early look.
    let idle = 0;
    for (let i = 0; i < 20; i++, await sleep(500)) idle = Math.max(idle, liveCount(worker.pid));
    const ctx: Ctx = {
      state,
      work,
      pid: worker.pid,
      logFile: worker.logFile,
      idle,
      calls,
      plan: (room, extra = {}) => ({ room, agentName: AGENT, joinDeadlineMs: 90_000, clip: { file: clip.file, firstVoiced: clip.firstVoiced, lastVoiced: clip.lastVoiced }, transcript: USER, turnFirst: false, turnAtEnd: false, holdMaxMs: 120_000, ...extra }),
    };
    const drills: Record<Fault, () => Promise<FaultRow>> = {
      livekit: () => restartDrill(ctx, 'livekit-server'),
      redis: () => restartDrill(ctx, 'redis'),
      job: () => jobDrill(ctx),
      tts: () => ttsDrill(ctx),
      restart: () => managerDrill(ctx, worker),
      // Its own 2-node stack (scripts/faults/node-drill.ts).
      node: () => nodeDrill(work, note),
    };
    for (const fault of only) {
      note(`--- ${fault}`);
      try {
        rows.push(await drills[fault]());
      } catch (error) {
        rows.push({ fault, heard: [], logs: [], figures: {}, leftover: '?', ok: false, ...{ error: (error as Error).message } });
      }
      const row = rows.at(-1)!;
      log(`\n${row.ok ? 'OK  ' : 'MISS'} ${row.fault}`);
      for (const h of row.heard) log(`  heard: ${h}`);
      for (const l of row.logs) log(`  log: ${l}`);
      log(`  figures: ${JSON.stringify(row.figures)}`);
      log(`  left over: ${row.leftover}`);
      if ('error' in row) log(`  error: ${String((row as { error?: string }).error)}`);
    }
  } finally {
    await down(state, note);
  }
  log(`\n${rows.filter((r) => r.ok).length} of ${rows.length} drills as expected; ${((Date.now() - started) / 1000).toFixed(0)} s; logs ${state.runDir}`);
  if (json) {
    mkdirSync(dirname(resolve(json)), { recursive: true });
    writeFileSync(json, `${JSON.stringify({ date: new Date().toISOString(), rows, logs: state.runDir }, null, 2)}\n`);
    log(`json: ${json}`);
  }
  return rows.every((r) => r.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`faults failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
