import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SipClient, TokenVerifier } from 'livekit-server-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AmbiguousSipResourceError, apiHost, ensureSipInbound, type SipInboundPlan } from '../../src/sip/setup.js';
import { type ExitResult, collectExit, spawnTsx } from '../lifecycle/spawn-tsx.js';
import { TwirpSipStub } from './twirp-sip-stub.js';

const API_KEY = 'APItestkey';
const API_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';

const plan: SipInboundPlan = {
  trunkName: 'firstword-inbound',
  numbers: ['+14155550100', '+821012345678'],
  dispatchRuleName: 'firstword-dispatch',
  roomPrefix: 'call-',
  agentName: 'firstword',
};

let stub: TwirpSipStub;
let url: string;

beforeEach(async () => {
  stub = new TwirpSipStub();
  url = await stub.listen();
});
afterEach(async () => {
  await stub.close();
});

const client = () => new SipClient(url, API_KEY, API_SECRET, { requestTimeout: 5 });

describe('ensureSipInbound against a recording SIP API stub', () => {
  it('creates the trunk for our numbers and an individual-room rule that dispatches our agent', async () => {
    const result = await ensureSipInbound(client(), plan);

    expect(result.trunk.action).toBe('created');
    expect(result.dispatchRule.action).toBe('created');
    expect(stub.calls.map((c) => c.method)).toEqual([
      'ListSIPInboundTrunk',
      'CreateSIPInboundTrunk',
      'ListSIPDispatchRule',
      'CreateSIPDispatchRule',
    ]);

    const trunkRequest = stub.calls[1]!.body as { trunk: { name: string; numbers: string[] } };
    expect(trunkRequest.trunk.name).toBe('firstword-inbound');
    expect(trunkRequest.trunk.numbers).toEqual(['+14155550100', '+821012345678']);

    const ruleRequest = stub.calls[3]!.body as {
      name: string;
      trunkIds: string[];
      rule: { dispatchRuleIndividual: { roomPrefix: string } };
      roomConfig: { agents: { agentName: string }[] };
    };
    expect(ruleRequest.name).toBe('firstword-dispatch');
    expect(ruleRequest.trunkIds).toEqual([result.trunk.id]);
    expect(ruleRequest.rule.dispatchRuleIndividual.roomPrefix).toBe('call-');
    expect(ruleRequest.roomConfig.agents).toEqual([{ agentName: 'firstword' }]);
  });

  it('signs every request with a token carrying the SIP admin grant', async () => {
    await ensureSipInbound(client(), plan);
    for (const call of stub.calls) {
      expect(call.authorization).toMatch(/^Bearer /);
      const claims = await new TokenVerifier(API_KEY, API_SECRET).verify(call.authorization!.slice(7));
      expect(claims.sip?.admin).toBe(true);
    }
  });

  it('is idempotent: a second run only lists and reports both resources unchanged', async () => {
    const first = await ensureSipInbound(client(), plan);
    const writesAfterFirst = stub.writes.length;

    const second = await ensureSipInbound(client(), plan);

    expect(stub.writes.length).toBe(writesAfterFirst);
    expect(second.trunk).toEqual({ id: first.trunk.id, action: 'unchanged' });
    expect(second.dispatchRule).toEqual({ id: first.dispatchRule.id, action: 'unchanged' });
    expect(stub.trunks.size).toBe(1);
    expect(stub.rules.size).toBe(1);
  });

  it('updates an existing trunk in place when the numbers change, keeping fields it does not own', async () => {
    const trunkId = stub.seedTrunk({
      name: 'firstword-inbound',
      numbers: ['+14155550100'],
      headers: { 'X-Keep': 'me' },
    });

    const result = await ensureSipInbound(client(), plan);

    expect(result.trunk).toEqual({ id: trunkId, action: 'updated' });
    const update = stub.calls.find((c) => c.method === 'UpdateSIPInboundTrunk')!.body as {
      sipTrunkId: string;
      replace: { numbers: string[]; headers: Record<string, string> };
    };
    expect(update.sipTrunkId).toBe(trunkId);
    expect(update.replace.numbers).toEqual(plan.numbers);
    expect(update.replace.headers).toEqual({ 'X-Keep': 'me' });
    expect(stub.calls.some((c) => c.method === 'CreateSIPInboundTrunk')).toBe(false);
  });

  it('repoints a rule that dispatches a different agent', async () => {
    const trunkId = stub.seedTrunk({ name: 'firstword-inbound', numbers: [...plan.numbers] });
    const ruleId = stub.seedRule({
      name: 'firstword-dispatch',
      trunkIds: [trunkId],
      rule: { dispatchRuleIndividual: { roomPrefix: 'call-' } },
      roomConfig: { agents: [{ agentName: 'someone-else' }] },
    });

    const result = await ensureSipInbound(client(), plan);

    expect(result.trunk.action).toBe('unchanged');
    expect(result.dispatchRule).toEqual({ id: ruleId, action: 'updated' });
    expect(stub.rules.get(ruleId)!.roomConfig).toEqual({ agents: [{ agentName: 'firstword' }] });
  });

  it('refuses to guess when two trunks share our name', async () => {
    stub.seedTrunk({ name: 'firstword-inbound', numbers: [] });
    stub.seedTrunk({ name: 'firstword-inbound', numbers: [] });

    await expect(ensureSipInbound(client(), plan)).rejects.toBeInstanceOf(AmbiguousSipResourceError);
    expect(stub.writes).toEqual([]);
  });

  it('maps the signalling URL to the API host', () => {
    expect(apiHost('wss://proj.livekit.cloud')).toBe('https://proj.livekit.cloud');
    expect(apiHost('ws://127.0.0.1:7880')).toBe('http://127.0.0.1:7880');
    expect(apiHost('https://x.example')).toBe('https://x.example');
  });
});

async function runSetupScript(env: Record<string, string>): Promise<ExitResult> {
  // An empty cwd keeps a developer's .env out of the run.
  const cwd = mkdtempSync(join(tmpdir(), 'sip-setup-'));
  try {
    return await collectExit(spawnTsx('scripts/sip-setup.ts', [], { cwd, env }));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe('npm run sip:setup (scripts/sip-setup.ts)', () => {
  const baseEnv = () => ({
    LIVEKIT_URL: url.replace('http', 'ws'),
    LIVEKIT_API_KEY: API_KEY,
    LIVEKIT_API_SECRET: API_SECRET,
    AGENT_NAME: 'firstword',
    SIP_NUMBERS: '+14155550100, +821012345678',
  });

  it('creates on the first run and creates nothing on the second', async () => {
    const first = await runSetupScript(baseEnv());
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/inbound trunk\s+"firstword-inbound" created/);
    expect(first.stdout).toMatch(/dispatch rule\s+"firstword-dispatch" created/);
    const writesAfterFirst = stub.writes.length;
    expect(writesAfterFirst).toBe(2);

    const second = await runSetupScript(baseEnv());
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/inbound trunk\s+"firstword-inbound" unchanged/);
    expect(second.stdout).toMatch(/dispatch rule\s+"firstword-dispatch" unchanged/);
    expect(stub.writes.length).toBe(writesAfterFirst);
  }, 40_000);

  it('exits 2 naming every missing variable, without calling the API', async () => {
    const result = await runSetupScript({ LIVEKIT_URL: 'not a url', SIP_NUMBERS: '555-0100' });
    expect(result.code).toBe(2);
    for (const name of ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET', 'AGENT_NAME', 'SIP_NUMBERS']) {
      expect(result.stderr).toContain(name);
    }
    expect(stub.calls).toEqual([]);
  }, 20_000);
});
