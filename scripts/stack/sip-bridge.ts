/**
 * LiveKit's SIP bridge (livekit-sip) in the stack, when the operator has one: `npm run stack --
 * up --sip`. The project cannot install it (the Go module proxy refuses github.com/livekit/sip),
 * so the binary is whatever LIVEKIT_SIP_BIN names, else `livekit-sip` on PATH (LiveKit ships it
 * as a release binary and a Docker image). It runs inside the namespace next to livekit-server,
 * on the stack's Redis, and never reaches for STUN: its public address is the namespace's.
 */
import { accessSync, constants, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Launcher } from './components.js';
import { DEV_KEYS, NETWORK, PORTS } from './layout.js';
import { inNamespace, runSync } from './netns.js';
import { poll } from './readiness.js';

/** Where SIP calls go inside the namespace (`exec` hands these to commands as SIP_HOST/SIP_PORT). */
export const SIP_ADDRESS = { host: NETWORK.nodeIp, port: PORTS.sip };
/** livekit-sip's RTP range: a few ports are plenty for a test stack (RTP binds every interface). */
export const SIP_RTP_PORTS = { start: 10_000, end: 10_099 };

export const NO_SIP_BINARY =
  'no livekit-sip binary: set LIVEKIT_SIP_BIN to one, or put livekit-sip on PATH (LiveKit ships release binaries and a Docker image)';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The binary to run: LIVEKIT_SIP_BIN when set (it must then be executable: a wrong path is an
 * error, not a fallback), else `livekit-sip` on PATH, else undefined.
 */
export function resolveSipBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const given = env.LIVEKIT_SIP_BIN?.trim();
  if (given) {
    if (!executable(given)) throw new Error(`LIVEKIT_SIP_BIN=${given} is not an executable file`);
    return given;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && executable(join(dir, 'livekit-sip'))) return join(dir, 'livekit-sip');
  }
  return undefined;
}

/**
 * livekit-sip's configuration. Every key exists from v1.0.0 on (`pkg/config/config.go`).
 * `nat_1_to_1_ip` is what it announces in SDP and Contact: without it, it would take the first
 * non-loopback address it finds (or, with `use_external_ip`, ask a STUN server on the internet).
 */
export function sipBridgeYaml(): string {
  return `# Written by scripts/stack for one run (npm run stack -- up --sip); see docs/sip.md.
api_key: ${DEV_KEYS.apiKey}
api_secret: ${DEV_KEYS.apiSecret}
ws_url: ws://127.0.0.1:${PORTS.livekitHttp}
redis:
  address: 127.0.0.1:${PORTS.redis}
sip_port: ${SIP_ADDRESS.port}
listen_ip: ${SIP_ADDRESS.host}
nat_1_to_1_ip: ${SIP_ADDRESS.host}
use_external_ip: false
rtp_port: ${SIP_RTP_PORTS.start}-${SIP_RTP_PORTS.end}
logging:
  level: info
`;
}

/** A TCP listener on the SIP address: livekit-sip opens UDP and TCP together, TCP last. */
function listening(namespace: string): boolean {
  const [cmd, args] = inNamespace(namespace, 'ss', ['-Hltn', `src ${SIP_ADDRESS.host}:${SIP_ADDRESS.port}`]);
  const result = runSync(cmd, args, 5000);
  return result.code === 0 && result.stdout.trim() !== '';
}

export async function startSipBridge(l: Launcher, binary: string): Promise<string> {
  const configFile = join(l.runDir, 'livekit-sip.yaml');
  writeFileSync(configFile, sipBridgeYaml());
  const proc = l.start('livekit-sip', binary, ['--config', configFile]);
  await poll(`livekit-sip to listen on ${SIP_ADDRESS.host}:${SIP_ADDRESS.port}`, () => (listening(l.namespace) ? true : undefined), {
    timeoutMs: 30_000,
    process: proc,
  });
  return configFile;
}
