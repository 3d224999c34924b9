/**
 * The real-LiveKit stack for tests: the same implementation as `npm run stack`
 * (scripts/stack/stack.ts), owned by the test process. Clients run inside the namespace as
 * scripts that print one JSON line with an `e2e` key (test/e2e/clients/).
 *
 *   const stack = await startStack({ worker: false });
 *   const result = await stack.client('audio-receiver', ['--room', 'r1']);
 *   await stack.stop();
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { requireForSuite } from '../helpers/requires.js';
import { type ExecOptions, type ExecResult, execCapture } from '../../scripts/stack/exec.js';
import { LIVEKIT_BIN, LIVEKIT_VERSION, REPO_ROOT, TSX_BIN } from '../../scripts/stack/layout.js';
import { runSync } from '../../scripts/stack/netns.js';
import { placeRoom, roomNodes } from '../../scripts/stack/cluster.js';
import { type ExtraWorkerOptions, type UpOptions, down, killNode, startExtraWorker, up } from '../../scripts/stack/stack.js';
import { type NodeRecord, type StackState, stackEnv } from '../../scripts/stack/state.js';

export type { ExecResult } from '../../scripts/stack/exec.js';
export type { NodeRecord, StackState } from '../../scripts/stack/state.js';

export interface ClientResult extends Record<string, unknown> {
  e2e: string;
  ok: boolean;
  ms: number;
  error?: string;
}

/** A worker started by the test (`stack.startWorker`): signal it, read its log, await its exit. */
export interface WorkerHandle {
  name: string;
  pid: number;
  logFile: string;
  /** `exit code N` or `signal SIG` once the process has ended. */
  exited: Promise<string>;
  hasExited(): boolean;
  kill(signal: NodeJS.Signals): void;
}

export interface E2EStack {
  state: StackState;
  /** LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET, AGENT_NAME (and STACK_*), as `exec` sets them. */
  env: Record<string, string>;
  exec(cmd: string, args?: string[], options?: ExecOptions): Promise<ExecResult>;
  /** Runs test/e2e/clients/<name>.ts inside the namespace and returns its result line. */
  client(name: string, args?: string[], options?: ExecOptions): Promise<ClientResult>;
  /**
   * Another production worker (`npm start`'s command) in the namespace, with its own AGENT_NAME
   * and AGENT_HTTP_PORT, returned once it registered; `stop()` stops it too if it still runs.
   */
  startWorker(options: ExtraWorkerOptions): Promise<WorkerHandle>;
  /** The livekit-server nodes: one, or `nodes` of them behind HAProxy (`env.LIVEKIT_URL` is then HAProxy's). */
  nodes: NodeRecord[];
  /** SIGKILLs node `index` (not started again); resolves with the epoch ms it was gone. */
  killNode(index: number): Promise<number>;
  /** Room name → index of the node hosting it, for every room that exists now. */
  roomNodes(): Promise<Map<string, number | undefined>>;
  /** Creates `room` on node `index`, dispatching `agentName` to it; the first caller then joins it. */
  placeRoom(room: string, index: number, agentName: string): Promise<void>;
  stop(): Promise<void>;
}

/** The last stdout line that is a JSON object with an `e2e` key (rtc-node also logs JSON there). */
export function parseClientResult(stdout: string): ClientResult | undefined {
  const lines = stdout.split('\n').reverse();
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      const value = JSON.parse(line) as ClientResult;
      if (typeof value.e2e === 'string') return value;
    } catch {
      // Not ours.
    }
  }
  return undefined;
}

export async function startStack(options: Omit<UpOptions, 'owner'> = {}): Promise<E2EStack> {
  const state = await up({ ...options, owner: 'harness' });
  let stopped = false;
  const exec = (cmd: string, args: string[] = [], execOptions: ExecOptions = {}) =>
    execCapture(state, cmd, args, { cwd: REPO_ROOT, ...execOptions });
  return {
    state,
    env: stackEnv(state),
    exec,
    async client(name, args = [], execOptions = {}) {
      const script = join(REPO_ROOT, 'test', 'e2e', 'clients', `${name}.ts`);
      const result = await exec(TSX_BIN, [script, ...args], { timeoutMs: 60_000, ...execOptions });
      const parsed = parseClientResult(result.stdout);
      if (!parsed) {
        const how = result.timedOut ? 'timed out' : `exited ${result.code ?? result.signal}`;
        throw new Error(`client ${name} ${how} without a result line:\n${result.stderr.slice(-2000)}\n${result.stdout.slice(-2000)}`);
      }
      return parsed;
    },
    async startWorker(options) {
      const started = await startExtraWorker(state, options);
      return {
        name: options.name,
        pid: started.record.pid,
        logFile: started.record.logFile,
        exited: started.exited,
        hasExited: started.hasExited,
        kill: (signal) => {
          if (!started.hasExited()) process.kill(started.record.pid, signal);
        },
      };
    },
    nodes: state.livekit.nodes ?? [],
    killNode: (index) => killNode(state, index),
    roomNodes: () => roomNodes(state),
    placeRoom: (room, index, agentName) => placeRoom(state, room, index, agentName),
    async stop() {
      if (stopped) return;
      stopped = true;
      await down(state);
    },
  };
}

/** What is missing for the real stack on this machine (empty when everything is there). */
export function missingForStack(extra: { chromium?: boolean; haproxy?: boolean } = {}): string[] {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (ip netns needs it)');
  if (runSync('ip', ['-V']).code !== 0) missing.push('ip (Debian package iproute2)');
  if (runSync('go', ['version']).code !== 0) missing.push('Go 1.26 (builds livekit-server)');
  if (runSync('redis-server', ['--version']).code !== 0) missing.push('redis-server (Debian package redis-server)');
  const version = existsSync(LIVEKIT_BIN) ? runSync(LIVEKIT_BIN, ['--version']).stdout.trim() : '';
  if (version !== `livekit-server version ${LIVEKIT_VERSION}`) {
    missing.push(`livekit-server ${LIVEKIT_VERSION} at ${LIVEKIT_BIN}${version ? ` (found: ${version})` : ''}`);
  }
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (extra.chromium && !existsSync(chromium)) missing.push(`Chromium at ${chromium}`);
  if (extra.haproxy && runSync('haproxy', ['-v']).code !== 0) missing.push('haproxy (Debian package haproxy; the front of a multi-node stack)');
  return missing;
}

/**
 * The gate for e2e suites, called while the file is collected: true when the stack can run. A
 * missing piece registers a failing test that names it and the install command (a failed test,
 * not only a failed file, so the run's pass/fail counts show it).
 */
export function requireStack(extra: { chromium?: boolean; haproxy?: boolean } = {}): boolean {
  const missing = missingForStack(extra);
  const install = `bash scripts/livekit/install.sh${extra.chromium ? ' && bash scripts/ensure-chromium.sh' : ''}`;
  return requireForSuite(
    'test/e2e',
    missing.length === 0 ? undefined : `real LiveKit stack unavailable, missing: ${missing.join('; ')}. Install as root with: ${install}`,
  );
}
