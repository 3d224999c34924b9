/**
 * What `up` starts, one function per component, each returning only once the component is
 * ready. Timeouts are generous for a cold 2-core CI machine (tsx compiles on first start).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ts from 'typescript';
import { DEV_KEYS, LIVEKIT_BIN, type NodeLayout, PORTS, REPO_ROOT, TSX_BIN, nodeLayout } from './layout.js';
import { livekitYaml } from './livekit-config.js';
import { type Started } from './processes.js';
import { httpReady, jsonLine, poll, redisReady } from './readiness.js';
import type { TtsChoice } from './state.js';

export const OPENAI_FAKE = join(REPO_ROOT, 'test', 'servers', 'openai-main.ts');
export const CARTESIA_FAKE = join(REPO_ROOT, 'test', 'servers', 'cartesia-main.ts');
/** The single-node stack's URL (node 0); a cluster's clients use its front (scripts/stack/front.ts). */
export const LIVEKIT_URL = `ws://127.0.0.1:${PORTS.livekitHttp}`;

export interface Launcher {
  namespace: string;
  runDir: string;
  /** Starts `cmd` in the namespace with `env` over the base environment and records it. */
  start(name: string, cmd: string, args: string[], env?: Record<string, string>): Started;
}

export async function startRedis(l: Launcher): Promise<void> {
  const proc = l.start('redis', 'redis-server', [
    '--bind', '127.0.0.1', '--port', String(PORTS.redis), '--save', '', '--appendonly', 'no', '--dir', l.runDir,
  ]);
  await poll('redis-cli ping', () => (redisReady(l.namespace, PORTS.redis) ? true : undefined), { timeoutMs: 15_000, process: proc });
}

export interface StartedNode {
  configFile: string;
  proc: Started;
  /** The ID the node registered in Redis under (`ND_…`, from its start line), which `room_node_map` names. */
  nodeId: string;
}

/** The node's start line carries its ID: `starting LiveKit server {"portHttp": …, "nodeID": "ND_…", …}`. */
export function nodeIdIn(log: string): string | undefined {
  return /starting LiveKit server.*"nodeID": ?"(ND_[A-Za-z0-9]+)"/.exec(log)?.[1];
}

export async function startLivekit(l: Launcher, node: NodeLayout = nodeLayout(0), departureTimeoutS?: number): Promise<StartedNode> {
  const configFile = join(l.runDir, node.index === 0 ? 'livekit.yaml' : `livekit-${node.index}.yaml`);
  writeFileSync(configFile, livekitYaml(node, departureTimeoutS));
  const proc = l.start(node.name, LIVEKIT_BIN, ['--config', configFile]);
  const url = `http://127.0.0.1:${node.httpPort}/`;
  await poll(`GET ${url} = OK`, () => (httpReady(l.namespace, url, 'OK') ? true : undefined), { timeoutMs: 30_000, process: proc });
  const nodeId = await poll(`${node.name}'s node ID in its log`, () => nodeIdIn(readText(proc.record.logFile)), { timeoutMs: 5000, process: proc });
  return { configFile, proc, nodeId };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

interface Announced {
  url: string;
  port: number;
}

/** The local protocol servers announce readiness with one `{"url":…,"port":…}` line on stdout. */
export async function startFake(l: Launcher, name: string, script: string, args: string[] = []): Promise<Announced> {
  const proc = l.start(name, TSX_BIN, [script, ...args]);
  return poll(
    `${name}'s {"url","port"} line`,
    () => jsonLine<Announced>(proc.record.logFile, (v) => typeof v.url === 'string' && typeof v.port === 'number'),
    { timeoutMs: 45_000, process: proc },
  );
}

export interface WorkerSettings {
  /** Where the worker registers: the stack's one URL (a cluster's front); node 0 when absent. */
  livekitUrl?: string;
  agentName: string;
  tts: TtsChoice;
  openaiUrl?: string;
  cartesiaUrl?: string;
  httpPort: number;
  extraEnv?: Record<string, string>;
  /** The Node binary the worker runs on (default: the one running the stack), e.g. another release line's from scripts/ensure-node.sh. */
  nodeBinary?: string;
}

export function workerEnv(s: WorkerSettings): Record<string, string> {
  const env: Record<string, string> = {
    LIVEKIT_URL: s.livekitUrl ?? LIVEKIT_URL,
    LIVEKIT_API_KEY: DEV_KEYS.apiKey,
    LIVEKIT_API_SECRET: DEV_KEYS.apiSecret,
    AGENT_NAME: s.agentName,
    OPENAI_API_KEY: 'test-key',
    AGENT_HTTP_PORT: String(s.httpPort),
    // Full at a call count, not at a CPU share: a busy 2-core CI machine must not turn jobs away.
    AGENT_MAX_CALLS: '4',
    AGENT_CPU_BUDGET: 'off',
    TTS_PROVIDER: s.tts,
  };
  if (s.openaiUrl) env.OPENAI_BASE_URL = s.openaiUrl;
  if (s.tts === 'cartesia') {
    if (!s.cartesiaUrl) throw new Error('TTS cartesia needs the Cartesia fake');
    Object.assign(env, { CARTESIA_API_KEY: 'test-key', CARTESIA_VOICE: 'test-voice', CARTESIA_BASE_URL: s.cartesiaUrl });
  }
  return { ...env, ...s.extraEnv };
}

/**
 * `npm start`'s own command, read from package.json: the production worker compiled, built first
 * (scripts/build.mjs, incremental: it checks in well under a second that nothing changed), so the
 * stack runs the tree as it is and the way production runs it.
 */
function productionWorkerArgs(): string[] {
  const start = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
  if (start[0] !== 'node') throw new Error(`package.json's start script is not a node command: ${start.join(' ')}`);
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs')], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return start.slice(1);
}

/**
 * A benchmark's comparison agent (one TypeScript file that imports packages only) as JavaScript in
 * the run's folder, so it runs as compiled as firstword's own worker: a start-up figure must not
 * be tsx's.
 */
function compiledAgentFile(dir: string, script: string): string {
  const source = readFileSync(join(REPO_ROOT, script), 'utf8');
  const { outputText } = ts.transpileModule(source, { fileName: script, compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const file = join(dir, `${basename(script, '.ts')}.mjs`);
  writeFileSync(file, outputText);
  return file;
}

/** Which worker runs: firstword's own by default; a benchmark's comparison worker otherwise. */
export interface WorkerLaunch {
  /** A comparison agent's TypeScript file, relative to the repository; firstword's own runs compiled. */
  script?: string;
  /** Where the compiled comparison agent is written (its imports resolve from there); default: the run's folder. */
  agentDir?: string;
  /** Hears the worker's pid at once, before it registers (its job processes start meanwhile). */
  onSpawn?: (pid: number) => void;
}

/**
 * The production worker as `npm start` runs it (`productionWorkerArgs`), or a benchmark's
 * comparison agent compiled (`compiledAgentFile`), without npm in between so the recorded PID is
 * the worker's own. Not the tsx CLI: it relays a signal and SIGKILLs the worker
 * when the worker takes more than ~60 ms to acknowledge it, which a loaded machine does (a
 * draining worker with live calls died with exit 143 that way). Ready when the framework logs `registered worker`: the server drops a job
 * that finds no registered worker, so nothing may be dispatched before that line.
 */
export async function startWorker(l: Launcher, s: WorkerSettings, name = 'worker', launch: WorkerLaunch = {}): Promise<Started> {
  const args = launch.script ? [compiledAgentFile(launch.agentDir ?? l.runDir, launch.script), 'start'] : productionWorkerArgs();
  const proc = l.start(name, s.nodeBinary ?? process.execPath, args, workerEnv(s));
  launch.onSpawn?.(proc.record.pid);
  await poll('the worker to log "registered worker"', () => jsonLine(proc.record.logFile, (v) => v.msg === 'registered worker'), {
    timeoutMs: 90_000,
    process: proc,
  });
  return proc;
}

export async function startWeb(l: Launcher, agentName: string, livekitUrl: string): Promise<string> {
  const proc = l.start('web', TSX_BIN, ['src/web/main.ts'], {
    WEB_HOST: '127.0.0.1',
    WEB_PORT: String(PORTS.web),
    LIVEKIT_URL: livekitUrl,
    LIVEKIT_API_KEY: DEV_KEYS.apiKey,
    LIVEKIT_API_SECRET: DEV_KEYS.apiSecret,
    AGENT_NAME: agentName,
  });
  const url = `http://127.0.0.1:${PORTS.web}/`;
  await poll(`GET ${url}`, () => (httpReady(l.namespace, url) ? true : undefined), { timeoutMs: 45_000, process: proc });
  return url;
}

export const openaiFakeAvailable = (): boolean => existsSync(OPENAI_FAKE);
