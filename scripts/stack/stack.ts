/**
 * `up` and `down`: the one implementation behind `npm run stack` and test/e2e/stack.ts.
 * The state file is written before the namespace exists and after every process start, so a
 * run killed at any point leaves enough behind for the next `up`/`down` to clean it up.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  CARTESIA_FAKE,
  LIVEKIT_URL,
  OPENAI_FAKE,
  type Launcher,
  openaiFakeAvailable,
  startFake,
  type StartedNode,
  startLivekit,
  startRedis,
  startWeb,
  startWorker,
  type WorkerLaunch,
} from './components.js';
import {
  CLI_STATE_FILE,
  DEFAULT_AGENT_NAME,
  DEV_KEYS,
  LIVEKIT_BIN,
  MAX_NODES,
  NAMESPACE_PREFIX,
  NETWORK,
  PORTS,
  nodeLayout,
  REPO_ROOT,
  RUN_DIR,
  newNamespaceName,
  runDirOf,
  stateFileOf,
} from './layout.js';
import { FRONT_URL, startFront } from './front.js';
import { createNamespace, deleteNamespace, listNamespaces, namespacePids } from './netns.js';
import { SIP_ADDRESS, startSipBridge } from './sip-bridge.js';
import { nodeIndexOf, registeredNodeId } from './cluster.js';
import { type Started, groupAlive, isAlive, running, startProcess, startTimeOf, stopProcess } from './processes.js';
import { type NodeRecord, type StackState, type TtsChoice, readState, writeState } from './state.js';

export interface UpOptions {
  owner: 'cli' | 'harness';
  tts?: TtsChoice;
  agentName?: string;
  /** livekit-server nodes sharing the stack's Redis (default 1); above 1, HAProxy is their one URL. */
  nodes?: number;
  /** Rooms' departure timeout in seconds (default: the stack's short one; see scripts/stack/livekit-config.ts). */
  departureTimeoutS?: number;
  /** Production workers `up` starts (default: one per node), all registering through the stack's URL. */
  workers?: number;
  /** Defaults: every component; the OpenAI fake only when its file exists; Cartesia only for `tts: cartesia`. */
  worker?: boolean;
  web?: boolean;
  openai?: boolean;
  cartesia?: boolean;
  /** A livekit-sip binary to run next to livekit-server (scripts/stack/sip-bridge.ts). */
  sipBinary?: string;
  /** Extra variables for the worker (over the stack's own). */
  workerEnv?: Record<string, string>;
  /** The Node binary the workers run on (default: the one running the stack). */
  workerNode?: string;
  /** Command-line arguments for the fakes (e.g. cartesia `--options JSON`, openai `--script FILE`). */
  fakeArgs?: { openai?: string[]; cartesia?: string[] };
  progress?: (line: string) => void;
  /** Once aborted, no further process is started (an interrupted `up` is being torn down). */
  signal?: AbortSignal;
}

/** Our tooling's variables must not leak into the production worker (NODE_ENV=test, VITEST…). */
function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key === 'TEST') delete env[key];
  if (env.NODE_ENV === 'test') delete env.NODE_ENV;
  return env;
}

function save(state: StackState): void {
  writeState(state.stateFile, state);
  if (state.owner?.kind === 'cli' || (state.owner === null && readState(CLI_STATE_FILE)?.namespace === state.namespace)) {
    writeState(CLI_STATE_FILE, state);
  }
}

export async function up(options: UpOptions): Promise<StackState> {
  const say = options.progress ?? (() => {});
  if (!existsSync(LIVEKIT_BIN)) throw new Error(`${LIVEKIT_BIN} is missing: run bash scripts/livekit/install.sh`);
  for (const cleaned of cleanupStale()) say(`cleaned up stale namespace ${cleaned}`);

  const namespace = newNamespaceName();
  const runDir = runDirOf(namespace);
  mkdirSync(runDir, { recursive: true });
  const tts = options.tts ?? 'local';
  const agentName = options.agentName ?? DEFAULT_AGENT_NAME;
  const nodeCount = options.nodes ?? 1;
  if (!Number.isInteger(nodeCount) || nodeCount < 1 || nodeCount > MAX_NODES) throw new Error(`nodes must be 1..${MAX_NODES} (got ${options.nodes})`);
  const workerCount = options.worker === false ? 0 : (options.workers ?? nodeCount);
  if (!Number.isInteger(workerCount) || workerCount < 0 || workerCount > 16) throw new Error(`workers must be 0..16 (got ${options.workers})`);
  const layouts = Array.from({ length: nodeCount }, (_, i) => nodeLayout(i));
  const state: StackState = {
    version: 1,
    namespace,
    owner: { pid: process.pid, startTime: startTimeOf(process.pid) ?? '', kind: options.owner },
    startedAt: new Date().toISOString(),
    runDir,
    stateFile: stateFileOf(namespace),
    livekit: { url: nodeCount > 1 ? FRONT_URL : LIVEKIT_URL, apiKey: DEV_KEYS.apiKey, apiSecret: DEV_KEYS.apiSecret, nodeIp: NETWORK.nodeIp, configFile: '', nodes: [], departureTimeoutS: options.departureTimeoutS },
    agentName,
    tts,
    network: { interfaces: layouts.flatMap((n) => n.interfaces), addresses: layouts.flatMap((n) => n.addresses) },
    ports: { ...PORTS },
    processes: [],
    notes: [],
    fakeArgs: options.fakeArgs,
  };
  save(state);
  const started = Date.now();
  const env = baseEnv();
  const launcher = launcherFor(state, env, options.signal);
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    const t0 = Date.now();
    const value = await run();
    say(`${what} ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return value;
  };

  try {
    createNamespace(namespace, layouts);
    say(`namespace ${namespace}: ${state.network.interfaces.join('/')} ${state.network.addresses.join(' ')}`);
    await step('redis', () => startRedis(launcher));
    for (const layout of layouts) {
      const node = await step(layout.name, () => startLivekit(launcher, layout, options.departureTimeoutS));
      state.livekit.nodes!.push(nodeRecord(layout.index, node));
      if (layout.index === 0) state.livekit.configFile = node.configFile;
      save(state);
    }
    if (nodeCount > 1) state.livekit.front = { url: FRONT_URL, configFile: await step('HAProxy in front of the nodes', () => startFront(launcher, layouts)) };
    const sipBinary = options.sipBinary;
    if (sipBinary) {
      const configFile = await step('livekit-sip', () => startSipBridge(launcher, sipBinary));
      state.sip = { ...SIP_ADDRESS, binary: sipBinary, configFile };
    }
    if (options.openai ?? openaiFakeAvailable()) {
      state.openaiUrl = (await step('openai fake', () => startFake(launcher, 'openai', OPENAI_FAKE, options.fakeArgs?.openai))).url;
    } else {
      state.notes.push(`no OpenAI fake: ${OPENAI_FAKE} does not exist; the worker's STT/LLM have nothing to reach`);
    }
    if (options.cartesia ?? tts === 'cartesia') {
      state.cartesiaUrl = (await step('cartesia fake', () => startFake(launcher, 'cartesia', CARTESIA_FAKE, options.fakeArgs?.cartesia))).url;
    }
    // One after another: each registration is then open when the next worker connects, so the
    // front's leastconn hands every worker a different node (which one is read back from its log).
    state.workers = [];
    for (let i = 0; i < workerCount; i++) {
      const name = i === 0 ? 'worker' : `worker-${i}`;
      const settings = { livekitUrl: state.livekit.url, agentName, tts, openaiUrl: state.openaiUrl, cartesiaUrl: state.cartesiaUrl, httpPort: PORTS.agentHttp + i, extraEnv: options.workerEnv, nodeBinary: options.workerNode };
      const proc = await step(name, () => startWorker(launcher, settings, name));
      const nodeId = registeredNodeId(proc.record.logFile);
      const node = nodeIndexOf(state, nodeId);
      state.workers.push({ name, pid: proc.record.pid, nodeId, node });
      if (nodeCount > 1) say(`${name} registered with node ${node ?? `? (${nodeId})`}`);
    }
    if (options.web ?? true) state.webUrl = await step('web page', () => startWeb(launcher, agentName, state.livekit.url));
  } catch (error) {
    // An interrupted up is torn down by whoever interrupted it.
    if (!options.signal?.aborted) {
      say(`up failed; stopping what was started (logs stay in ${runDir})`);
      await down(state);
    }
    throw error;
  }
  state.upMs = Date.now() - started;
  state.readyAt = new Date().toISOString();
  // A CLI stack outlives the CLI; a harness stack lives as long as the test process.
  if (options.owner === 'cli') state.owner = null;
  save(state);
  return state;
}

function nodeRecord(index: number, node: StartedNode): NodeRecord {
  const layout = nodeLayout(index);
  return {
    index,
    name: layout.name,
    url: `ws://127.0.0.1:${layout.httpPort}`,
    nodeIp: layout.nodeIp,
    udpPort: layout.udpPort,
    pid: node.proc.record.pid,
    nodeId: node.nodeId,
    configFile: node.configFile,
  };
}

/** Starts processes in `state`'s namespace and records each one in its state file (so `down` stops it). */
function launcherFor(state: StackState, env: NodeJS.ProcessEnv, signal?: AbortSignal): Launcher {
  return {
    namespace: state.namespace,
    runDir: state.runDir,
    start(name, cmd, args, extra = {}) {
      if (signal?.aborted) throw new Error('up was interrupted');
      const logFile = join(state.runDir, `${name}.log`);
      const proc = startProcess({ name, namespace: state.namespace, cmd, args, cwd: REPO_ROOT, env: { ...env, ...extra }, logFile });
      state.processes.push(proc.record);
      save(state);
      return proc;
    },
  };
}

export interface ExtraWorkerOptions {
  /** Process name, also the log file's (`<runDir>/<name>.log`); must differ from the stack's own `worker`. */
  name: string;
  agentName: string;
  /** AGENT_HTTP_PORT: every worker in the namespace needs its own. */
  httpPort: number;
  /** Defaults to the stack's TTS (the Cartesia fake's URL comes from the state). */
  tts?: TtsChoice;
  env?: Record<string, string>;
  /** The Node binary it runs on (default: the one running the stack). */
  nodeBinary?: string;
}

/**
 * Another production worker (`npm start`'s command, scripts/stack/components.ts `startWorker`, or
 * `launch.script` for a benchmark's comparison worker) in a running stack, ready once it logged `registered worker`. It
 * is recorded in the state file, so `down` stops it if the caller did not; the returned handle
 * lets a test signal it and wait for its exit status.
 */
export async function startExtraWorker(state: StackState, options: ExtraWorkerOptions, launch: WorkerLaunch = {}): Promise<Started> {
  if (options.name === 'worker' || state.processes.some((p) => p.name === options.name)) {
    throw new Error(`a process named ${options.name} already belongs to this stack`);
  }
  const settings = {
    livekitUrl: state.livekit.url,
    agentName: options.agentName,
    tts: options.tts ?? state.tts,
    openaiUrl: state.openaiUrl,
    cartesiaUrl: state.cartesiaUrl,
    httpPort: options.httpPort,
    extraEnv: options.env,
    nodeBinary: options.nodeBinary,
  };
  return startWorker(launcherFor(state, baseEnv()), settings, options.name, launch);
}

/** What `restartComponent` can stop and start again: the servers, and the TTS provider's fake (an outage). */
export type RestartableComponent = 'livekit-server' | 'redis' | 'cartesia';

/**
 * A fault drill (`npm run faults`, `npm run soak`): stops `name` of a running stack with `signal`,
 * keeps it down for `downMs` more, then starts it again with the same settings (the Cartesia fake on
 * the same port, so the worker's CARTESIA_BASE_URL still points at it) and waits until it is ready.
 * Returns when it was gone and when it was back (epoch ms).
 */
export async function restartComponent(state: StackState, name: RestartableComponent, signal: NodeJS.Signals = 'SIGKILL', downMs = 0): Promise<{ goneAt: number; readyAt: number }> {
  const index = state.processes.findIndex((p) => p.name === name);
  if (index < 0) throw new Error(`${name} is not part of this stack`);
  const record = state.processes[index]!;
  // The whole group: a fake runs under tsx, whose child holds the port.
  process.kill(-record.pid, signal);
  for (const deadline = Date.now() + 15_000; groupAlive(record.pid) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
  if (groupAlive(record.pid)) process.kill(-record.pid, 'SIGKILL');
  const goneAt = Date.now();
  state.processes.splice(index, 1);
  save(state);
  if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
  const launcher = launcherFor(state, baseEnv());
  if (name === 'redis') await startRedis(launcher);
  else if (name === 'cartesia') {
    const port = state.cartesiaUrl ? new URL(state.cartesiaUrl).port : '';
    if (!port) throw new Error('the stack has no Cartesia fake URL to start it again on');
    // Its readiness is the URL line in its log: the one from before must not answer for it.
    renameSync(record.logFile, record.logFile.replace(/\.log$/, `.until-${goneAt}.log`));
    await startFake(launcher, 'cartesia', CARTESIA_FAKE, [...(state.fakeArgs?.cartesia ?? []), '--port', port]);
  } else {
    const node = await startLivekit(launcher, undefined, state.livekit.departureTimeoutS);
    const nodes = state.livekit.nodes ?? [];
    const at = nodes.findIndex((n) => n.index === 0);
    if (at >= 0) nodes[at] = nodeRecord(0, node);
    save(state);
  }
  return { goneAt, readyAt: Date.now() };
}

/**
 * A node crash (`npm run faults -- --only node`, test/e2e/cluster.test.ts): SIGKILL to livekit-server
 * node `index`, which is not started again. Returns once the process is gone (epoch ms).
 */
export async function killNode(state: StackState, index: number): Promise<number> {
  const node = state.livekit.nodes?.find((n) => n.index === index);
  const record = node && state.processes.find((p) => p.name === node.name && p.pid === node.pid);
  if (!node || !record) throw new Error(`node ${index} is not part of this stack`);
  if (!isAlive(record)) throw new Error(`node ${index} (pid ${record.pid}) is not running`);
  process.kill(record.pid, 'SIGKILL');
  for (const deadline = Date.now() + 10_000; isAlive(record) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
  node.killedAt = Date.now();
  save(state);
  return node.killedAt;
}

const GRACE_MS: Record<string, number> = { worker: 20_000 };

export async function down(given: StackState, progress: (line: string) => void = () => {}): Promise<void> {
  let state = given;
  const owner = state.owner;
  if (owner && owner.pid !== process.pid && isAlive(owner)) {
    // An `up` still running elsewhere would go on starting things: interrupt it (it tears down
    // what it started), then stop whatever is left from the state file it last wrote.
    progress(`interrupting the unfinished up (pid ${owner.pid})`);
    await stopOwner(owner);
    state = readState(state.stateFile) ?? state;
  }
  for (const record of [...state.processes].reverse()) {
    const t0 = Date.now();
    // Extra workers (`worker-…`) drain like the stack's own worker.
    const grace = GRACE_MS[record.name] ?? (record.name.startsWith('worker-') ? GRACE_MS.worker! : 5000);
    const how = await stopProcess(record, grace);
    if (how !== 'gone') progress(`${record.name} (pid ${record.pid}) ${how} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  await sweep(state.namespace);
  deleteNamespace(state.namespace);
  if (readState(CLI_STATE_FILE)?.namespace === state.namespace) rmSync(CLI_STATE_FILE, { force: true });
  if (existsSync(state.runDir)) writeState(state.stateFile, { ...state, owner: null, notes: [...state.notes, `stopped ${new Date().toISOString()}`] });
}

/** The owner is not ours to treat as a group (it shares one with npm and the shell): PID only. */
async function stopOwner(owner: NonNullable<StackState['owner']>): Promise<void> {
  const gone = async (ms: number) => {
    for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
      if (!isAlive(owner)) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return !isAlive(owner);
  };
  process.kill(owner.pid, 'SIGTERM');
  if (!(await gone(30_000))) {
    process.kill(owner.pid, 'SIGKILL');
    await gone(2000);
  }
}

/** Whatever still runs in the namespace (clients, grandchildren) is ours: SIGKILL, bounded. */
async function sweep(namespace: string): Promise<void> {
  const deadline = Date.now() + 5000;
  const live = () => namespacePids(namespace).filter(running);
  for (let pids = live(); pids.length > 0 && Date.now() < deadline; pids = live()) {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A namespace of this clone is stale when its owner died (a killed `up` or test run), or, for a
 * finished CLI stack, when nothing runs in it any more. No state file at all also means stale.
 */
export function isStale(namespace: string): boolean {
  const state = readState(stateFileOf(namespace));
  if (!state) return true;
  if (state.owner) return !isAlive(state.owner);
  return !namespacePids(namespace).some(running);
}

export function cleanupStale(): string[] {
  const cleaned: string[] = [];
  for (const namespace of listNamespaces()) {
    if (!namespace.startsWith(NAMESPACE_PREFIX) || !isStale(namespace)) continue;
    // Synchronous on purpose: it runs before anything else; the KILL sweep needs no grace.
    for (const pid of namespacePids(namespace)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    deleteNamespace(namespace);
    if (readState(CLI_STATE_FILE)?.namespace === namespace) rmSync(CLI_STATE_FILE, { force: true });
    cleaned.push(namespace);
  }
  pruneRunDirs(10);
  return cleaned;
}

/** Logs of the last few runs are kept for post-mortems; older folders of dead runs go. */
function pruneRunDirs(keep: number): void {
  if (!existsSync(RUN_DIR)) return;
  const live = new Set(listNamespaces());
  const dirs = readdirSync(RUN_DIR).filter((name) => name.startsWith(NAMESPACE_PREFIX)).sort();
  for (const name of dirs.slice(0, Math.max(0, dirs.length - keep))) {
    if (!live.has(name)) rmSync(join(RUN_DIR, name), { recursive: true, force: true });
  }
}
