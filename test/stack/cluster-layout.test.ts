/**
 * A multi-node stack's configuration, without running it: every node binds ports and an address
 * of its own (livekit-server refuses to start on a taken port, and two nodes on one address would
 * hand out each other's candidates), HAProxy forwards to every node, and the node IDs the cluster
 * tools key on are read from the logs that carry them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registrations } from '../../scripts/stack/cluster.js';
import { nodeIdIn } from '../../scripts/stack/components.js';
import { haproxyConfig } from '../../scripts/stack/front.js';
import { MAX_NODES, NETWORK, PORTS, nodeLayout } from '../../scripts/stack/layout.js';
import { livekitYaml } from '../../scripts/stack/livekit-config.js';

const all = Array.from({ length: MAX_NODES }, (_, i) => nodeLayout(i));

describe('cluster layout', () => {
  it('keeps node 0 as the single-node stack had it', () => {
    const node = nodeLayout(0);
    expect([node.name, node.httpPort, node.udpPort, node.nodeIp]).toEqual(['livekit-server', PORTS.livekitHttp, PORTS.livekitUdp, NETWORK.nodeIp]);
    expect(livekitYaml()).toBe(livekitYaml(node));
  });

  it('gives every node its own ports, address, interfaces and name, none the front or Redis use', () => {
    const taken = [PORTS.redis, PORTS.livekitFront, PORTS.agentHttp, PORTS.web, PORTS.sip];
    const ports = all.flatMap((n) => [n.httpPort, n.udpPort]);
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports.filter((p) => taken.includes(p))).toEqual([]);
    for (const key of ['nodeIp', 'name'] as const) expect(new Set(all.map((n) => n[key])).size).toBe(MAX_NODES);
    expect(new Set(all.flatMap((n) => n.interfaces)).size).toBe(2 * MAX_NODES);
    expect(all.map((n) => n.addresses[0].split('/')[0])).toEqual(all.map((n) => n.nodeIp));
  });

  it("writes each node's own port, UDP port, node_ip and interface into its config", () => {
    const yaml = livekitYaml(nodeLayout(3));
    expect(yaml).toMatch(/^port: 7910$/m);
    expect(yaml).toMatch(/^ {2}udp_port: 7912$/m);
    expect(yaml).toMatch(/^ {2}node_ip: 10\.213\.3\.1$/m);
    expect(yaml).toMatch(/^ {4}includes: \[lkv6\]$/m);
  });

  it('refuses a node index outside 0..MAX_NODES-1', () => {
    expect(() => nodeLayout(MAX_NODES)).toThrow(/node index/);
    expect(() => nodeLayout(-1)).toThrow(/node index/);
  });

  it('puts every node behind HAProxy with a health check', () => {
    const config = haproxyConfig(all.slice(0, 3));
    expect(config).toContain(`bind 127.0.0.1:${PORTS.livekitFront}`);
    expect(config.match(/^ {2}server node\d 127\.0\.0\.1:\d+ check$/gm)).toEqual([
      '  server node0 127.0.0.1:7880 check',
      '  server node1 127.0.0.1:7890 check',
      '  server node2 127.0.0.1:7900 check',
    ]);
    expect(config).toContain('option httpchk GET /');
  });
});

describe('reading node IDs', () => {
  it("finds the node ID in livekit-server's start line", () => {
    const line = '2026-12-06T04:29:50.263Z\tINFO\tlivekit\tservice/server.go:292\tstarting LiveKit server\t{"portHttp": 7890, "nodeID": "ND_uFRbedSfdYhy", "nodeIP": "10.213.1.1"}';
    expect(nodeIdIn(`other\n${line}\n`)).toBe('ND_uFRbedSfdYhy');
    expect(nodeIdIn('selected node for room {"selectedNodeID": "ND_x"}')).toBeUndefined();
  });

  it("lists a worker's registrations with the node each went to", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fw-cluster-')), 'worker.log');
    const line = (time: number, nodeId: string) => JSON.stringify({ level: 30, time, msg: 'registered worker', server_info: { nodeId } });
    writeFileSync(file, [line(1, 'ND_a'), '{"msg":"other","time":2}', 'plain text', line(3, 'ND_b'), '{"partial'].join('\n'));
    expect(registrations(file)).toEqual([
      { at: 1, nodeId: 'ND_a' },
      { at: 3, nodeId: 'ND_b' },
    ]);
  });
});
