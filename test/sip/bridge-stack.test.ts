/**
 * The stack's SIP bridge when the operator has one (scripts/stack/sip-bridge.ts): which binary
 * runs, how it is configured in the namespace, what `exec` hands to commands; and both commands'
 * answers when there is no bridge at all (CI's case: the project cannot install livekit-sip).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_KEYS, NETWORK, PORTS, REPO_ROOT, TSX_BIN } from '../../scripts/stack/layout.js';
import { NO_SIP_BINARY, resolveSipBinary, sipBridgeYaml } from '../../scripts/stack/sip-bridge.js';
import { type StackState, stackEnv } from '../../scripts/stack/state.js';

function fakeBinary(dir: string, mode = 0o755): string {
  const file = join(dir, 'livekit-sip');
  writeFileSync(file, '#!/bin/sh\nexit 0\n');
  chmodSync(file, mode);
  return file;
}

/** PATH with node (for tsx) and the system's tools, but no livekit-sip. */
const pathWithoutBridge = `${dirname(process.execPath)}:/usr/sbin:/usr/bin:/sbin:/bin`;

describe('which livekit-sip runs', () => {
  it('takes LIVEKIT_SIP_BIN first, else livekit-sip on PATH, else none', () => {
    const onPath = mkdtempSync(join(tmpdir(), 'fw-sip-path-'));
    const elsewhere = fakeBinary(mkdtempSync(join(tmpdir(), 'fw-sip-bin-')));
    const found = fakeBinary(onPath);
    expect(resolveSipBinary({ LIVEKIT_SIP_BIN: elsewhere, PATH: onPath })).toBe(elsewhere);
    expect(resolveSipBinary({ PATH: `/nonexistent:${onPath}` })).toBe(found);
    expect(resolveSipBinary({ LIVEKIT_SIP_BIN: '  ', PATH: '/nonexistent' })).toBeUndefined();
  });

  it('refuses a LIVEKIT_SIP_BIN that is not an executable file rather than falling back', () => {
    const notExecutable = fakeBinary(mkdtempSync(join(tmpdir(), 'fw-sip-noexec-')), 0o644);
    const onPath = mkdtempSync(join(tmpdir(), 'fw-sip-path-'));
    fakeBinary(onPath);
    expect(() => resolveSipBinary({ LIVEKIT_SIP_BIN: notExecutable, PATH: onPath })).toThrow(/not an executable/);
    expect(() => resolveSipBinary({ LIVEKIT_SIP_BIN: '/nonexistent/livekit-sip' })).toThrow(/LIVEKIT_SIP_BIN/);
  });
});

describe("livekit-sip's configuration in the namespace", () => {
  const yaml = sipBridgeYaml();
  const value = (key: string) => new RegExp(`^\\s*${key}: (.+)$`, 'm').exec(yaml)?.[1];

  it('binds and announces the namespace address, so it never asks a STUN server for one', () => {
    expect(value('listen_ip')).toBe(NETWORK.nodeIp);
    expect(value('nat_1_to_1_ip')).toBe(NETWORK.nodeIp);
    expect(value('use_external_ip')).toBe('false');
    expect(value('sip_port')).toBe(String(PORTS.sip));
  });

  it("shares the stack's Redis, server and keys", () => {
    expect(value('address')).toBe(`127.0.0.1:${PORTS.redis}`);
    expect(value('ws_url')).toBe(`ws://127.0.0.1:${PORTS.livekitHttp}`);
    expect(value('api_key')).toBe(DEV_KEYS.apiKey);
    expect(value('api_secret')).toBe(DEV_KEYS.apiSecret);
  });

  it('gives commands run in a stack with a bridge SIP_HOST and SIP_PORT, and none without', () => {
    const state = { livekit: { url: 'ws://127.0.0.1:7880', apiKey: 'k', apiSecret: 's' }, agentName: 'a', stateFile: 'f', namespace: 'n' } as StackState;
    expect(stackEnv(state).SIP_HOST).toBeUndefined();
    const withSip = stackEnv({ ...state, sip: { host: NETWORK.nodeIp, port: PORTS.sip, binary: '/x', configFile: '/y' } });
    expect([withSip.SIP_HOST, withSip.SIP_PORT]).toEqual([NETWORK.nodeIp, String(PORTS.sip)]);
  });
});

describe('without a bridge', () => {
  const run = (script: string, args: string[]) =>
    spawnSync(TSX_BIN, [script, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { PATH: pathWithoutBridge, HOME: process.env.HOME ?? '/tmp' },
      timeout: 60_000,
    });

  it('npm run test:sip says so in one line and exits 0', () => {
    const result = run('scripts/sip-call/main.ts', []);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`test:sip: not run: ${NO_SIP_BINARY}\n`);
    expect(result.stderr).toBe('');
  }, 60_000);

  it('npm run stack -- up --sip says so in one line and starts nothing', () => {
    const result = run('scripts/stack/main.ts', ['up', '--sip']);
    expect(result.status).toBe(125);
    expect(result.stderr).toBe(`stack: ${NO_SIP_BINARY}\n`);
  }, 60_000);
});
