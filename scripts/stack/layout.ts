/**
 * Where things are: the clone's paths, the namespace's addresses and the fixed ports. Every run
 * gets a fresh network namespace, so fixed ports inside it never collide with another run or
 * with anything on the host.
 */
import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CACHE_DIR = join(REPO_ROOT, '.lk');
export const LIVEKIT_BIN = join(CACHE_DIR, 'bin', 'livekit-server');
export const RUN_DIR = join(CACHE_DIR, 'run');
/** The CLI's "current stack" (the harness's stacks live only in their own run folders). */
export const CLI_STATE_FILE = join(RUN_DIR, 'stack.json');
export const TSX_BIN = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
export const PROBE_SCRIPT = join(REPO_ROOT, 'scripts', 'stack', 'probe.mjs');
export const LIVEKIT_VERSION = '1.13.5';

/**
 * Both veth ends stay inside the namespace: libwebrtc and pion need a non-loopback interface to
 * gather host candidates, and nothing may be addressed to the host's own private address.
 */
export const NETWORK = {
  interfaces: ['lkv0', 'lkv1'] as const,
  addresses: ['10.213.0.1/24', '10.213.0.2/24'] as const,
  /** livekit-server's `rtc.node_ip`: the address every client's ICE pairs with. */
  nodeIp: '10.213.0.1',
};

export const PORTS = {
  redis: 6379,
  livekitHttp: 7880,
  livekitUdp: 7882,
  /** With `--nodes` above 1: the one URL in front of the nodes (HAProxy), what workers and callers use. */
  livekitFront: 7870,
  agentHttp: 18081,
  web: 3000,
  /** livekit-sip's SIP signalling (UDP and TCP), only with `up --sip`. */
  sip: 5060,
};

/** How many livekit-server nodes one stack may run (each gets its own veth pair and ports). */
export const MAX_NODES = 8;

/**
 * Node `index` of a stack: node 0 is the single-node stack's server, unchanged (7880, UDP 7882,
 * 10.213.0.1 on lkv0); node i > 0 listens on 7880 + 10·i, UDP 7882 + 10·i, and owns the veth pair
 * lkv(2i)/lkv(2i+1) with 10.213.i.1 and 10.213.i.2, so every node has an address and an interface
 * of its own and no node's ICE candidates include another's.
 */
export interface NodeLayout {
  index: number;
  /** Process name: `livekit-server` for node 0 (what the fault drills restart), `livekit-server-<i>` after. */
  name: string;
  httpPort: number;
  udpPort: number;
  nodeIp: string;
  /** The veth pair (both ends stay in the namespace) and their addresses with prefix. */
  interfaces: [string, string];
  addresses: [string, string];
}

export function nodeLayout(index: number): NodeLayout {
  if (!Number.isInteger(index) || index < 0 || index >= MAX_NODES) throw new Error(`node index must be 0..${MAX_NODES - 1} (got ${index})`);
  if (index === 0) {
    return { index, name: 'livekit-server', httpPort: PORTS.livekitHttp, udpPort: PORTS.livekitUdp, nodeIp: NETWORK.nodeIp, interfaces: [...NETWORK.interfaces], addresses: [...NETWORK.addresses] };
  }
  return {
    index,
    name: `livekit-server-${index}`,
    httpPort: PORTS.livekitHttp + 10 * index,
    udpPort: PORTS.livekitUdp + 10 * index,
    nodeIp: `10.213.${index}.1`,
    interfaces: [`lkv${2 * index}`, `lkv${2 * index + 1}`],
    addresses: [`10.213.${index}.1/24`, `10.213.${index}.2/24`],
  };
}

/** livekit-server's development pair (`--dev` accepts a secret shorter than 32 characters). */
export const DEV_KEYS = { apiKey: 'devkey', apiSecret: 'secret' };
export const DEFAULT_AGENT_NAME = 'firstword';

/**
 * Namespaces of this clone start with a hash of its path, so cleaning up stale ones never
 * touches a run of another clone on the same machine.
 */
export const NAMESPACE_PREFIX = `fwlk-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 6)}-`;

export function newNamespaceName(): string {
  const stamp = Date.now().toString(36);
  const random = Math.floor(Math.random() * 36 ** 4).toString(36).padStart(4, '0');
  return `${NAMESPACE_PREFIX}${stamp}${random}`;
}

export const runDirOf = (namespace: string): string => join(RUN_DIR, namespace);
export const stateFileOf = (namespace: string): string => join(runDirOf(namespace), 'state.json');
