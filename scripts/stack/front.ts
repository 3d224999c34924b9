/**
 * The one URL in front of a cluster's nodes: HAProxy (Debian's `haproxy`), plain TCP so the
 * WebSockets (callers' signalling, agents' rooms, workers' /agent registration) pass through
 * untouched. What a production deployment puts there too, with TLS added (docs/operations.md).
 *
 * - leastconn: a worker's registration and each room connection go to the node with the fewest
 *   open connections, so workers started one after another land on different nodes;
 * - a health check (GET / = "OK", every second, down after 2 misses) takes a dead node out, and a
 *   refused connection is retried on another node at once (`retries` + `redispatch`), so a worker
 *   whose node died re-registers on a live one at its first retry.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Launcher } from './components.js';
import { type NodeLayout, PORTS } from './layout.js';
import { httpReady, poll } from './readiness.js';

export const FRONT_URL = `ws://127.0.0.1:${PORTS.livekitFront}`;

export function haproxyConfig(nodes: NodeLayout[]): string {
  const servers = nodes.map((n) => `  server node${n.index} 127.0.0.1:${n.httpPort} check`);
  return `# Written by scripts/stack for one run; see docs/livekit-stack.md ("Several nodes").
global
  log stdout format raw local0 info
defaults
  mode tcp
  log global
  option tcplog
  timeout connect 2s
  # Signalling and registration sockets live as long as a call or a worker: no idle cut-off.
  timeout client 1h
  timeout server 1h
  timeout check 1s
  retries 2
  option redispatch 1
frontend livekit
  bind 127.0.0.1:${PORTS.livekitFront}
  default_backend nodes
backend nodes
  balance leastconn
  option httpchk GET /
  http-check expect string OK
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
${servers.join('\n')}
`;
}

/** Starts HAProxy in the namespace; ready once a GET through it reaches a node. Returns its config file. */
export async function startFront(l: Launcher, nodes: NodeLayout[]): Promise<string> {
  const configFile = join(l.runDir, 'haproxy.cfg');
  writeFileSync(configFile, haproxyConfig(nodes));
  // -db: stay in the foreground (the stack records and stops this very process).
  const proc = l.start('livekit-front', 'haproxy', ['-db', '-f', configFile]);
  const url = `http://127.0.0.1:${PORTS.livekitFront}/`;
  await poll(`GET ${url} = OK through HAProxy`, () => (httpReady(l.namespace, url, 'OK') ? true : undefined), { timeoutMs: 30_000, process: proc });
  return configFile;
}
