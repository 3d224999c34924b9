/**
 * The state file: everything a person or a tool needs to use a running stack, and everything
 * `down` needs to stop it (PIDs with start times, the namespace). Written atomically.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ProcessRecord } from './processes.js';

export type TtsChoice = 'local' | 'cartesia';

export interface StackState {
  version: 1;
  namespace: string;
  /** Who keeps the stack alive: the test process for the harness; null once a CLI `up` finished. */
  owner: { pid: number; startTime: string; kind: 'cli' | 'harness' } | null;
  startedAt: string;
  readyAt?: string;
  /** Milliseconds from namespace creation to the last component ready. */
  upMs?: number;
  runDir: string;
  stateFile: string;
  /** `url` is the one every client and worker uses: node 0 alone, or the front of a cluster. */
  livekit: {
    url: string;
    apiKey: string;
    apiSecret: string;
    nodeIp: string;
    configFile: string;
    nodes?: NodeRecord[];
    front?: { url: string; configFile: string };
    /** The rooms' departure timeout when not the stack's own (scripts/stack/livekit-config.ts). */
    departureTimeoutS?: number;
  };
  /** Which node each worker registered with when it started (`up`'s own workers). */
  workers?: { name: string; pid: number; nodeId?: string; node?: number }[];
  agentName: string;
  tts: TtsChoice;
  /** Page served by `npm run web`, reachable inside the namespace. */
  webUrl?: string;
  /** OpenAI-protocol fake, `http://127.0.0.1:PORT/v1`; absent when test/servers/openai-main.ts is not there. */
  openaiUrl?: string;
  /** Cartesia-protocol fake, `http://127.0.0.1:PORT` (stats at `/_control/stats`). */
  cartesiaUrl?: string;
  /** livekit-sip (`up --sip`): where calls go inside the namespace, and which binary answers them. */
  sip?: { host: string; port: number; binary: string; configFile: string };
  network: { interfaces: string[]; addresses: string[] };
  ports: Record<string, number>;
  /** In start order; `down` stops them in reverse. */
  processes: ProcessRecord[];
  /** Components left out, and why (e.g. the OpenAI fake not written yet). */
  notes: string[];
  /** The fakes' command-line arguments, so a drill can start one again exactly as `up` did. */
  fakeArgs?: { openai?: string[]; cartesia?: string[] };
}

/** One livekit-server node of the stack (`up --nodes N` runs N; a single-node stack records node 0). */
export interface NodeRecord {
  index: number;
  name: string;
  /** Its own signalling/API URL inside the namespace (clients normally use `livekit.url`). */
  url: string;
  nodeIp: string;
  udpPort: number;
  pid: number;
  nodeId: string;
  configFile: string;
  /** Epoch ms when a drill SIGKILLed it. */
  killedAt?: number;
}

export function writeState(file: string, state: StackState): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(temporary, file);
}

export function readState(file: string): StackState | undefined {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as StackState;
    return state.version === 1 && typeof state.namespace === 'string' ? state : undefined;
  } catch {
    return undefined;
  }
}

/** The variables `exec` sets for commands run inside the stack. */
export function stackEnv(state: StackState): Record<string, string> {
  const env: Record<string, string> = {
    LIVEKIT_URL: state.livekit.url,
    LIVEKIT_API_KEY: state.livekit.apiKey,
    LIVEKIT_API_SECRET: state.livekit.apiSecret,
    AGENT_NAME: state.agentName,
    STACK_STATE: state.stateFile,
    STACK_NAMESPACE: state.namespace,
  };
  if (state.webUrl) env.STACK_WEB_URL = state.webUrl;
  if (state.openaiUrl) env.STACK_OPENAI_URL = state.openaiUrl;
  if (state.cartesiaUrl) env.STACK_CARTESIA_URL = state.cartesiaUrl;
  if (state.sip) Object.assign(env, { SIP_HOST: state.sip.host, SIP_PORT: String(state.sip.port) });
  return env;
}
