/**
 * `npm run stack -- up | exec <command…> | down`: a real LiveKit stack in a network namespace
 * of its own (docs/livekit-stack.md). Progress goes to stderr, results to stdout; the stack's
 * own failures exit 125 so they never pass for an exit status of an `exec`uted command.
 */
import { relative } from 'node:path';
import { execInherit } from './exec.js';
import { CLI_STATE_FILE, DEFAULT_AGENT_NAME, MAX_NODES } from './layout.js';
import { listNamespaces } from './netns.js';
import { NO_SIP_BINARY, resolveSipBinary } from './sip-bridge.js';
import { cleanupStale, down, up } from './stack.js';
import { type StackState, type TtsChoice, readState } from './state.js';

const USAGE = `usage:
  npm run stack -- up [--tts local|cartesia] [--agent-name NAME] [--no-worker] [--no-web] [--sip]
                      [--nodes N] [--workers M]
                                       --sip: also livekit-sip (LIVEKIT_SIP_BIN, else livekit-sip on PATH)
                                       --nodes: N livekit-server nodes on one Redis, HAProxy in front
                                         (LIVEKIT_URL is then HAProxy's); --workers: default one per node
  npm run stack -- exec <command…>     runs inside the namespace with LIVEKIT_URL, LIVEKIT_API_KEY,
                                       LIVEKIT_API_SECRET and AGENT_NAME of the running stack
  npm run stack -- down
  npm run stack -- status              prints the state file (exit 1 when no stack is up)`;

const progress = (line: string) => process.stderr.write(`stack: ${line}\n`);
const show = (path: string) => relative(process.cwd(), path) || path;

class UsageError extends Error {}

/** Set by Ctrl-C during `up`: its handler tears down and exits 130; nothing else may exit first. */
let interrupted = false;

interface UpArgs {
  tts: TtsChoice;
  agentName: string;
  worker: boolean;
  web: boolean;
  sip: boolean;
  nodes: number;
  workers?: number;
}

function count(flag: string, value: string | undefined, min: number, max: number): number {
  const n = Number(value);
  if (!value || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max} (got ${value})`);
  return n;
}

function parseUp(args: string[]): UpArgs {
  const parsed: UpArgs = { tts: 'local', agentName: DEFAULT_AGENT_NAME, worker: true, web: true, sip: false, nodes: 1 };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--tts') {
      const value = args[++i];
      if (value !== 'local' && value !== 'cartesia') throw new UsageError(`--tts must be local or cartesia (got ${value})`);
      parsed.tts = value;
    } else if (arg === '--agent-name') {
      const value = args[++i];
      if (!value || !/^[A-Za-z0-9_.-]{1,64}$/.test(value)) throw new UsageError('--agent-name needs letters, digits, _ . - (max 64)');
      parsed.agentName = value;
    } else if (arg === '--no-worker') parsed.worker = false;
    else if (arg === '--no-web') parsed.web = false;
    else if (arg === '--sip') parsed.sip = true;
    else if (arg === '--nodes') parsed.nodes = count('--nodes', args[++i], 1, MAX_NODES);
    else if (arg === '--workers') parsed.workers = count('--workers', args[++i], 0, 16);
    else throw new UsageError(`unknown option ${arg}`);
  }
  return parsed;
}

/** The CLI's stack, if its namespace still exists. */
function current(): StackState | undefined {
  const state = readState(CLI_STATE_FILE);
  return state && listNamespaces().includes(state.namespace) ? state : undefined;
}

function summary(state: StackState): string {
  const lines = [
    `LiveKit stack up in ${((state.upMs ?? 0) / 1000).toFixed(1)} s, namespace ${state.namespace}`,
    `  LIVEKIT_URL=${state.livekit.url}`,
    `  LIVEKIT_API_KEY=${state.livekit.apiKey}`,
    `  LIVEKIT_API_SECRET=${state.livekit.apiSecret}`,
    `  AGENT_NAME=${state.agentName}  (TTS ${state.tts})`,
    ...clusterLines(state),
    state.webUrl ? `  web page: ${state.webUrl}` : '  web page: not started',
    state.sip ? `  SIP_HOST=${state.sip.host} SIP_PORT=${state.sip.port}  (livekit-sip: ${state.sip.binary})` : '  SIP: not started (--sip)',
    '  (these addresses exist inside the namespace only: npm run stack -- exec <command…>)',
    `  state: ${show(CLI_STATE_FILE)}   logs: ${show(state.runDir)}/*.log`,
    ...state.notes.map((note) => `  note: ${note}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** A cluster's nodes (their own URLs and addresses) and which node each worker registered with. */
function clusterLines(state: StackState): string[] {
  const nodes = state.livekit.nodes ?? [];
  if (nodes.length < 2) return [];
  return [
    `  LIVEKIT_URL is HAProxy in front of ${nodes.length} livekit-server nodes (config ${show(state.livekit.front?.configFile ?? '')}):`,
    ...nodes.map((n) => `    node ${n.index}: ${n.url}  node_ip ${n.nodeIp} udp ${n.udpPort}  ${n.nodeId}  pid ${n.pid}`),
    ...(state.workers ?? []).map((w) => `    ${w.name} (pid ${w.pid}) registered with node ${w.node ?? '?'}`),
  ];
}

async function commandUp(args: string[]): Promise<number> {
  const { sip, ...options } = parseUp(args);
  // Before anything is stopped or started: without a bridge, --sip cannot be honoured.
  const sipBinary = sip ? resolveSipBinary() : undefined;
  if (sip && !sipBinary) throw new Error(NO_SIP_BINARY);
  const running = current();
  if (running) {
    progress(`replacing the running stack ${running.namespace}`);
    await down(running, progress);
  }
  const abort = new AbortController();
  // Ctrl-C during `up` must not leave half a stack behind (the next up/down would clean it, but
  // a person expects it gone now).
  const interrupt = () => {
    if (interrupted) return;
    interrupted = true;
    abort.abort();
    progress('interrupted; stopping what was started');
    const state = readState(CLI_STATE_FILE);
    void (state ? down(state, progress) : Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const state = await up({ owner: 'cli', ...options, sipBinary, progress, signal: abort.signal });
  process.off('SIGINT', interrupt);
  process.off('SIGTERM', interrupt);
  process.stdout.write(summary(state));
  return 0;
}

async function commandDown(): Promise<number> {
  const state = readState(CLI_STATE_FILE);
  if (state) {
    await down(state, progress);
    progress(`stack ${state.namespace} stopped`);
  } else {
    progress('no stack was up');
  }
  for (const cleaned of cleanupStale()) progress(`cleaned up stale namespace ${cleaned}`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'up':
      return commandUp(rest);
    case 'down':
      return commandDown();
    case 'exec': {
      const state = current();
      if (!state) throw new Error('no stack is up: npm run stack -- up');
      const cmd = rest[0] === '--' ? rest.slice(1) : rest;
      if (cmd.length === 0) throw new UsageError('exec needs a command');
      return execInherit(state, cmd);
    }
    case 'status': {
      const state = current();
      process.stdout.write(state ? `${JSON.stringify(state, null, 2)}\n` : '');
      if (!state) progress('no stack is up');
      return state ? 0 : 1;
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'missing command');
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    if (interrupted) return;
    process.stderr.write(error instanceof UsageError ? `stack: ${error.message}\n${USAGE}\n` : `stack: ${error.message}\n`);
    process.exit(error instanceof UsageError ? 2 : 125);
  },
);
