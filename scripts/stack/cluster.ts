/**
 * Looking into a cluster stack (`up --nodes N`): which node a room lives on (Redis's
 * `room_node_map`, which the nodes keep), which node a worker registered with (agents-js logs the
 * server's node ID at each registration), and placing a room on a chosen node.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execCapture } from './exec.js';
import { PORTS, REPO_ROOT, TSX_BIN } from './layout.js';
import { jsonLines } from './readiness.js';
import type { StackState } from './state.js';

/** The stack's node index for a livekit node ID (undefined: not one of this stack's nodes). */
export const nodeIndexOf = (state: StackState, nodeId: string | undefined): number | undefined =>
  state.livekit.nodes?.find((n) => n.nodeId === nodeId)?.index;

export interface Registration {
  /** Epoch ms of the worker's `registered worker` line. */
  at: number;
  nodeId?: string;
}

/** Every registration in a worker's log, in order (a worker whose node died registers again). */
export function registrations(workerLog: string): Registration[] {
  return jsonLines<{ time: number; server_info?: { nodeId?: string } }>(workerLog, (l) => l.msg === 'registered worker').map((l) => ({
    at: l.time,
    nodeId: l.server_info?.nodeId,
  }));
}

export const registeredNodeId = (workerLog: string): string | undefined => registrations(workerLog).at(-1)?.nodeId;

/** Room name → node index for every room the cluster hosts now (a room is mapped while it exists). */
export async function roomNodes(state: StackState): Promise<Map<string, number | undefined>> {
  const result = await execCapture(state, 'redis-cli', ['-h', '127.0.0.1', '-p', String(PORTS.redis), '--raw', 'HGETALL', 'room_node_map'], { timeoutMs: 10_000 });
  if (result.code !== 0) throw new Error(`redis-cli HGETALL room_node_map failed (${result.code}): ${result.stderr.trim()}`);
  const fields = result.stdout.split('\n').filter(Boolean);
  const map = new Map<string, number | undefined>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, nodeIndexOf(state, fields[i + 1]));
  return map;
}

/** Creates `room` on node `index`, dispatching `agentName` (scripts/stack/place-room.ts). */
export async function placeRoom(state: StackState, room: string, index: number, agentName: string): Promise<void> {
  const node = state.livekit.nodes?.find((n) => n.index === index);
  if (!node) throw new Error(`node ${index} is not part of this stack`);
  const script = join(REPO_ROOT, 'scripts', 'stack', 'place-room.ts');
  const result = await execCapture(state, TSX_BIN, [script, room, node.nodeId, agentName], { cwd: REPO_ROOT, timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`placing room ${room} on node ${index} failed (${result.code ?? result.signal}): ${result.stderr.slice(-1000)}`);
}

/**
 * Epoch ms of the first line any node logged for `room` that contains every one of `texts`
 * (`assigned job to worker`: the server's side of serving a call; `starting RTC session`: a join).
 */
export function nodeLogAt(state: StackState, room: string, ...texts: string[]): number | undefined {
  const times: number[] = [];
  for (const node of state.livekit.nodes ?? []) {
    const record = state.processes.find((p) => p.name === node.name);
    let log = '';
    try {
      log = record ? readFileSync(record.logFile, 'utf8') : '';
    } catch {
      // No log yet.
    }
    for (const line of log.split('\n')) {
      if (line.includes(`"room": "${room}"`) && texts.every((t) => line.includes(t))) times.push(Date.parse(line.slice(0, line.indexOf('\t'))));
    }
  }
  const valid = times.filter((t) => Number.isFinite(t));
  return valid.length > 0 ? Math.min(...valid) : undefined;
}

export interface RoomProbeFacts {
  /** When the probe's first CreateRoom began, ms relative to the kill (negative: before it). */
  firstAtMs?: number;
  attempts: number;
  /** Failed attempts after the kill: `+start ms (took ms): error`. */
  failures: string[];
  /** From when (ms after the kill) every CreateRoom succeeded: the start of the first attempt after the last failure. */
  recoveredAfterKillMs?: number;
}

/**
 * Starts scripts/stack/room-probe.ts in the namespace for `durationMs`; the returned function,
 * given the kill's epoch ms, waits for the probe to end and sums it up.
 */
export function startRoomProbe(state: StackState, durationMs: number, intervalMs: number): (killedAt: number) => Promise<RoomProbeFacts> {
  const script = join(REPO_ROOT, 'scripts', 'stack', 'room-probe.ts');
  const run = execCapture(state, TSX_BIN, [script, String(durationMs), String(intervalMs)], { cwd: REPO_ROOT, timeoutMs: durationMs + 60_000 });
  return async (killedAt) => {
    const result = await run;
    const lines = jsonLinesOf<{ probe?: { at: number; ms: number; ok: boolean; error?: string } }>(result.stdout).flatMap((l) => (l.probe ? [l.probe] : []));
    if (lines.length === 0) throw new Error(`room probe printed nothing (${result.code ?? result.signal}): ${result.stderr.slice(-1000)}`);
    const after = lines.filter((l) => l.at + l.ms >= killedAt);
    const failed = after.filter((l) => !l.ok);
    const lastFailed = failed.at(-1);
    const recovered = lastFailed ? after.find((l) => l.at > lastFailed.at) : after[0];
    return {
      firstAtMs: lines[0]!.at - killedAt,
      attempts: lines.length,
      failures: failed.map((l) => `+${l.at - killedAt} ms (took ${l.ms} ms): ${l.error ?? '?'}`),
      recoveredAfterKillMs: recovered ? Math.max(0, recovered.at - killedAt) : undefined,
    };
  };
}

function jsonLinesOf<T>(text: string): T[] {
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as T];
    } catch {
      return [];
    }
  });
}
