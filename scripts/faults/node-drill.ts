/**
 * A node of two killed mid-call (`npm run faults -- --only node`, and test/e2e/cluster.test.ts,
 * which asserts on the same facts). On a 2-node stack (HAProxy in front, one Redis):
 *
 *   1. worker A registers (through the front) with node K; call A is placed on the other node S:
 *      a worker registered with one node serves a room hosted on the other (psrpc dispatch);
 *   2. worker B registers; call B is placed on K; both calls take a turn;
 *   3. node K gets SIGKILL; at once a new call D is placed the ordinary way (the caller's token
 *      dispatches the agent; the server picks the node), placed again only if it fails to join;
 *   4. callers A and B take one more turn and leave.
 *
 * Three calls, two live at the kill: each costs a shared 2-core machine about a quarter of a core
 * (Silero VAD), and a starved job process answers nobody in time.
 *
 * Facts: where each room lived and who served it, whether calls on S went on, what K's caller
 * saw, when worker A registered again (and where), and how long after the kill a new call was
 * served.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareClips } from '../../bench/room/speech.js';
import type { DriverEvent } from '../../bench/room/stack-run.js';
import { type RoomProbeFacts, nodeIndexOf, nodeLogAt, placeRoom, registrations, roomNodes, startRoomProbe } from '../stack/cluster.js';
import { type UpOptions, down, killNode, startExtraWorker, up } from '../stack/stack.js';
import type { StackState } from '../stack/state.js';
import type { FaultCallerPlan } from './caller.js';
import { type CallerHandle, startCaller, warningsSince } from './drill.js';
import type { FaultRow } from './main.js';

export const CLUSTER_AGENT = 'firstword-cluster';
const USER = 'What time does the pharmacy open tomorrow?';
const REPLY = 'The pharmacy opens at nine.';
/** How long after the kill the drill keeps placing new calls before it reports none was served. */
const NEW_CALL_WINDOW_MS = 90_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type Plan = (room: string, extra?: Partial<FaultCallerPlan>) => Omit<FaultCallerPlan, 'stopFile'>;

/** The stack options (fakes scripted to answer the caller's question) and the callers' plan. */
export async function clusterSetup(work: string): Promise<{ upOptions: Omit<UpOptions, 'owner'>; plan: Plan }> {
  const clip = (await prepareClips([{ key: 'speech', text: USER, language: 'en' }], join(work, 'speech'))).get('speech')!;
  const scriptFile = join(work, 'openai-script.json');
  writeFileSync(scriptFile, `${JSON.stringify({ script: [{ match: 'pharmacy', reply: REPLY }] })}\n`);
  return {
    upOptions: {
      nodes: 2,
      tts: 'cartesia',
      agentName: CLUSTER_AGENT,
      worker: false,
      web: false,
      fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: 60, firstByteDelayMs: 120 })] },
    },
    plan: (room, extra = {}) => ({
      room,
      agentName: CLUSTER_AGENT,
      joinDeadlineMs: 90_000,
      clip: { file: clip.file, firstVoiced: clip.firstVoiced, lastVoiced: clip.lastVoiced },
      transcript: USER,
      turnFirst: true,
      turnAtEnd: true,
      holdMaxMs: 150_000,
      ...extra,
    }),
  };
}

export interface TurnFact {
  ok: boolean;
  firstSoundMs?: number;
  error?: string;
}

export interface CallFact {
  name: string;
  room: string;
  /** The node hosting the room while the call was up, before the kill. */
  node?: number;
  /** Which worker's job joined as the agent, and the node that worker was registered with then. */
  servedBy?: string;
  workerNode?: number;
  agent?: string;
  listeningAfterMs?: number;
  first?: TurnFact;
  after?: TurnFact;
  /** Connection and participant events the caller saw after the kill, ms after it. */
  eventsAfterKill: string[];
  /** The node hosting the room when the callers were told to finish (the kill may have moved it). */
  nodeAtEnd?: number;
}

export interface NodeKillFacts {
  killed: number;
  survivor: number;
  killedAt: number;
  calls: CallFact[];
  workers: { name: string; registrations: { afterKillMs: number; node?: number }[] }[];
  /**
   * Attempts at a new call after the kill; for the one that was served: when the server assigned
   * its agent job to a worker (the cluster's part) and when the agent was listening (that plus the
   * job process starting, which CPU load stretches), ms after the kill.
   */
  newCall: { attempts: string[]; joinedAfterKillMs?: number; jobAssignedAfterKillMs?: number; servedAfterKillMs?: number; node?: number; turn?: TurnFact };
  /** CreateRoom every 250 ms through the front from before the kill (scripts/stack/room-probe.ts). */
  roomProbe: RoomProbeFacts;
  workerLogs: string[];
}

interface Worker {
  name: string;
  logFile: string;
}

const turnFact = (e: DriverEvent | undefined): TurnFact | undefined =>
  e && { ok: e.ok === true, firstSoundMs: typeof e.firstSoundMs === 'number' ? Math.round(e.firstSoundMs) : undefined, error: e.error ? String(e.error).slice(0, 160) : undefined };
const turnOf = (c: CallerHandle, label: string) => turnFact(c.events.find((e) => e.bench === 'turn' && e.label === label));

/** The worker whose log names the agent's job (the agent's identity is `agent-<job id>`). */
function servedBy(agent: string | undefined, workers: Worker[]): string | undefined {
  if (!agent) return undefined;
  const job = agent.replace(/^agent-/, '');
  return workers.find((w) => readFileSync(w.logFile, 'utf8').includes(`"${job}"`))?.name;
}

async function startWorkerOn(state: StackState, name: string, httpPort: number): Promise<Worker> {
  const started = await startExtraWorker(state, { name, agentName: CLUSTER_AGENT, httpPort, env: { AGENT_PROCESS_START_TIMEOUT_S: '60', AGENT_MAX_CALLS: '4' } });
  return { name, logFile: started.record.logFile };
}

const firstTurn = (c: CallerHandle) => c.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000);

/** Places new calls the ordinary way from `killedAt` on, one after another, until one is served. */
async function newCallAfter(state: StackState, work: string, plan: Plan, killedAt: number, note: (line: string) => void): Promise<{ facts: NodeKillFacts['newCall']; caller?: CallerHandle }> {
  const attempts: string[] = [];
  for (let i = 1; Date.now() - killedAt < NEW_CALL_WINDOW_MS; i++) {
    const room = `node-d${i}-${Date.now().toString(36)}`;
    const startedAt = Date.now();
    const d = startCaller(state, work, `node-d${i}`, plan(room, { turnAtEnd: false }), note);
    const listening = await d.next((e) => e.bench === 'listening' || e.bench === 'error', 120_000);
    if (listening?.bench === 'listening') {
      const node = (await roomNodes(state)).get(room);
      const since = (at: number | undefined) => (at === undefined ? undefined : at - killedAt);
      const joined = since(nodeLogAt(state, room, 'starting RTC session', '"participant": "caller"'));
      const assigned = since(nodeLogAt(state, room, 'assigned job to worker'));
      attempts.push(`attempt ${i} started at +${startedAt - killedAt} ms: joined at +${joined ?? '?'} ms, agent job assigned at +${assigned ?? '?'} ms, agent listening at +${Number(listening.at) - killedAt} ms, room on node ${node ?? '?'}`);
      return { facts: { attempts, joinedAfterKillMs: joined, jobAssignedAfterKillMs: assigned, servedAfterKillMs: Number(listening.at) - killedAt, node }, caller: d };
    }
    attempts.push(`attempt ${i} at +${startedAt - killedAt} ms: ${listening ? String(listening.error).slice(0, 120) : 'no agent within 120 s'}`);
    d.stop();
    await d.exited;
  }
  return { facts: { attempts } };
}

export async function nodeKillScenario(state: StackState, workDir: string, plan: Plan, note: (line: string) => void): Promise<NodeKillFacts> {
  // The callers' plan and stop files: fresh for every run (a stop file left over would end a call at once).
  const work = mkdtempSync(join(workDir, 'calls-'));
  const workers = [await startWorkerOn(state, 'worker-a', 18101)];
  const killed = nodeIndexOf(state, registrations(workers[0]!.logFile).at(-1)?.nodeId);
  if (killed === undefined) throw new Error('worker-a registered with no node of this stack');
  const survivor = state.livekit.nodes!.find((n) => n.index !== killed)!.index;
  const callers: { handle: CallerHandle; room: string; node: number }[] = [];
  const call = async (name: string, node: number) => {
    const room = `node-${name}-${Date.now().toString(36)}`;
    await placeRoom(state, room, node, CLUSTER_AGENT);
    const handle = startCaller(state, work, `node-${name}`, plan(room), note);
    callers.push({ handle, room, node });
    return handle;
  };
  const a = await call('a', survivor);
  await firstTurn(a);
  workers.push(await startWorkerOn(state, 'worker-b', 18102));
  const b = await call('b', killed);
  await firstTurn(b);
  const hosted = await roomNodes(state);
  const workerNodes = new Map(workers.map((w) => [w.name, nodeIndexOf(state, registrations(w.logFile).at(-1)?.nodeId)]));

  // The probe process takes a few seconds to start on a loaded machine: it must be creating rooms
  // before the kill (its report says from when).
  const probe = startRoomProbe(state, 30_000, 250);
  await sleep(8000);
  const killedAt = await killNode(state, killed);
  note(`node ${killed} killed; placing new calls`);
  const newCall = await newCallAfter(state, work, plan, killedAt, note);
  // Give the killed node's caller time to notice and do whatever it does (reconnect, a new agent).
  await sleep(Math.max(0, killedAt + 15_000 - Date.now()));
  const hostedAtEnd = await roomNodes(state);
  for (const { handle } of callers) handle.stop();
  if (newCall.caller) newCall.caller.stop();
  await Promise.all([...callers.map((x) => x.handle.exited), newCall.caller?.exited]);
  const roomProbe = await probe(killedAt);
  if (newCall.caller) newCall.facts.turn = turnOf(newCall.caller, 'first');

  const calls = callers.map(({ handle, room, node }): CallFact => {
    const listening = handle.events.find((e) => e.bench === 'listening');
    const agent = listening?.agent ? String(listening.agent) : undefined;
    const by = servedBy(agent, workers);
    return {
      name: handle.name,
      room,
      node: hosted.get(room) ?? node,
      servedBy: by,
      workerNode: by ? workerNodes.get(by) : undefined,
      agent,
      listeningAfterMs: listening ? Number(listening.afterMs) : undefined,
      first: turnOf(handle, 'first'),
      after: turnOf(handle, 'after'),
      eventsAfterKill: handle.events
        .filter((e) => (e.bench === 'event' || e.bench === 'error') && Number(e.at) >= killedAt)
        .map((e) => `${String(e.what ?? e.error)} at +${Number(e.at) - killedAt} ms`),
      nodeAtEnd: hostedAtEnd.get(room),
    };
  });
  return {
    killed,
    survivor,
    killedAt,
    calls,
    workers: workers.map((w) => ({
      name: w.name,
      registrations: registrations(w.logFile).map((r) => ({ afterKillMs: r.at - killedAt, node: nodeIndexOf(state, r.nodeId) })),
    })),
    newCall: newCall.facts,
    roomProbe,
    workerLogs: workers.flatMap((w) => warningsSince(w.logFile, killedAt - 1000).map((line) => `${w.name}: ${line}`)),
  };
}

/** Human lines for a report (the drill's and the test's). */
export function describeNodeKill(f: NodeKillFacts): string[] {
  const turn = (t: TurnFact | undefined) => (!t ? 'no turn' : t.ok ? `answered (first sound ${t.firstSoundMs} ms)` : `not answered (${t.error ?? '?'})`);
  return [
    ...f.calls.map(
      (c) =>
        `${c.name}: room on node ${c.node ?? '?'}, served by ${c.servedBy ?? '?'} (registered with node ${c.workerNode ?? '?'}), agent listening ${c.listeningAfterMs ?? '?'} ms after joining; ` +
        `turn before the kill ${turn(c.first)}, after ${turn(c.after)}; after the kill: ${c.eventsAfterKill.join('; ') || 'nothing'}; room at the end on node ${c.nodeAtEnd ?? 'none'}`,
    ),
    ...f.workers.map((w) => `${w.name} registrations: ${w.registrations.map((r) => `node ${r.node ?? '?'} at ${r.afterKillMs >= 0 ? '+' : ''}${r.afterKillMs} ms`).join(', ')} (relative to the kill)`),
    `new call after the kill: ${f.newCall.attempts.join('; ')}; its first turn ${turn(f.newCall.turn)}`,
    `room creation through the front (every 250 ms from ${f.roomProbe.firstAtMs} ms): ${f.roomProbe.failures.length} failed after the kill ` +
      `(${f.roomProbe.failures.join('; ') || 'none'}); every room created from +${f.roomProbe.recoveredAfterKillMs ?? '?'} ms on`,
  ];
}

/** The `node` fault drill: its own 2-node stack, the scenario, then that stack torn down. */
export async function nodeDrill(work: string, note: (line: string) => void): Promise<FaultRow> {
  const dir = join(work, 'node');
  mkdirSync(dir, { recursive: true });
  const { upOptions, plan } = await clusterSetup(dir);
  const state = await up({ ...upOptions, owner: 'harness', progress: (line) => note(`cluster stack: ${line}`) });
  let facts: NodeKillFacts;
  try {
    facts = await nodeKillScenario(state, dir, plan, note);
  } finally {
    await down(state, note);
  }
  const onSurvivor = facts.calls.filter((c) => c.node === facts.survivor);
  const reRegistered = facts.workers.flatMap((w) => w.registrations.filter((r) => r.afterKillMs > 0).map((r) => ({ ...r, name: w.name })));
  return {
    fault: 'one of two livekit-server nodes killed mid-call (SIGKILL), HAProxy in front',
    heard: describeNodeKill(facts),
    logs: facts.workerLogs,
    figures: {
      killedNode: facts.killed,
      crossNodeCalls: facts.calls.filter((c) => c.node !== undefined && c.workerNode !== undefined && c.node !== c.workerNode).length,
      survivorCallsAnsweredAfterKill: `${onSurvivor.filter((c) => c.after?.ok).length}/${onSurvivor.length}`,
      roomCreationRecoveredAfterKillMs: facts.roomProbe.recoveredAfterKillMs ?? null,
      roomCreationFailuresAfterKill: facts.roomProbe.failures.length,
      newCallJoinedAfterKillMs: facts.newCall.joinedAfterKillMs ?? null,
      newCallJobAssignedAfterKillMs: facts.newCall.jobAssignedAfterKillMs ?? null,
      newCallServedAfterKillMs: facts.newCall.servedAfterKillMs ?? null,
      newCallAttempts: facts.newCall.attempts.length,
      workerReRegisteredAfterKillMs: reRegistered[0]?.afterKillMs ?? null,
      workerReRegisteredOnNode: reRegistered[0]?.node ?? null,
    },
    leftover: `stack ${state.namespace} stopped`,
    ok: onSurvivor.length > 0 && onSurvivor.every((c) => c.after?.ok) && facts.newCall.servedAfterKillMs !== undefined && reRegistered.some((r) => r.node === facts.survivor),
  };
}
