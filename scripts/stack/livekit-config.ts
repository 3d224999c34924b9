/**
 * livekit-server's configuration for the namespace. Parsing is strict (an unknown key stops the
 * server), and every key below was checked against v1.13.5's config structs and by running it.
 */
import { DEV_KEYS, type NodeLayout, PORTS, nodeLayout } from './layout.js';

/**
 * Node `node` of the stack. Every node shares the stack's Redis, which is what makes them one
 * cluster: rooms, node stats and agent dispatch (psrpc) all go through it. Prometheus and TURN
 * stay off (their defaults), so no two nodes contend for those ports.
 */
/**
 * How long a room outlives its last participant. The stack's own is short, so a test's job ends
 * soon after its caller leaves; LiveKit's default is what production runs, and what a drill of a
 * server restart needs: a caller that rejoins after it finds a room being closed under it.
 */
export const DEPARTURE_TIMEOUT_S = { stack: 5, livekitDefault: 20 } as const;

export function livekitYaml(node: NodeLayout = nodeLayout(0), departureTimeoutS: number = DEPARTURE_TIMEOUT_S.stack): string {
  return `# Written by scripts/stack for one run; see docs/livekit-stack.md.
port: ${node.httpPort}
# Signalling, the Twirp API and the agents' /agent socket stay on the namespace's loopback.
bind_addresses: ["127.0.0.1"]
development: true
keys:
  ${DEV_KEYS.apiKey}: ${DEV_KEYS.apiSecret}
redis:
  address: 127.0.0.1:${PORTS.redis}
rtc:
  # Never ask an internet STUN server for our address.
  use_external_ip: false
  # One UDP port for all media, bound on the veth address only (interfaces.includes).
  udp_port: ${node.udpPort}
  # 0 switches the ICE/TCP listener off; it would bind every interface whatever bind_addresses say.
  tcp_port: 0
  node_ip: ${node.nodeIp}
  interfaces:
    includes: [${node.interfaces[0]}]
  # Handed to every client; nothing listens there, so srflx gathering fails fast and offline.
  stun_servers: ["127.0.0.1:3478"]
room:
  empty_timeout: 30
  departure_timeout: ${departureTimeoutS}
logging:
  level: info
`;
}
