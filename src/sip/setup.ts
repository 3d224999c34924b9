import {
  RoomAgentDispatch,
  RoomConfiguration,
  SIPDispatchRule,
  SIPDispatchRuleIndividual,
  type SIPDispatchRuleInfo,
  type SIPInboundTrunkInfo,
  type SipClient,
} from 'livekit-server-sdk';

/** The calls the setup makes; `SipClient` satisfies it, a recording stub can too. */
export type SipAdminApi = Pick<
  SipClient,
  | 'listSipInboundTrunk'
  | 'createSipInboundTrunk'
  | 'updateSipInboundTrunk'
  | 'listSipDispatchRule'
  | 'createSipDispatchRule'
  | 'updateSipDispatchRule'
>;

/** LiveKit's API speaks HTTP(S) on the same host as the signalling WebSocket. */
export function apiHost(livekitUrl: string): string {
  return livekitUrl.replace(/^ws(s?):\/\//i, 'http$1://');
}

/** What the operator asked for (`config.sip.setup` and AGENT_NAME). */
export interface SipInboundPlan {
  trunkName: string;
  numbers: readonly string[];
  allowedAddresses?: readonly string[];
  auth?: { username: string; password: string };
  dispatchRuleName: string;
  roomPrefix: string;
  agentName: string;
}

export type SetupAction = 'created' | 'updated' | 'unchanged';

export interface SipInboundResult {
  trunk: { id: string; action: SetupAction };
  dispatchRule: { id: string; action: SetupAction };
}

/** Two resources with our name: we cannot tell which one is ours, so we stop. */
export class AmbiguousSipResourceError extends Error {
  constructor(kind: string, name: string, ids: string[]) {
    super(`${ids.length} ${kind}s are named "${name}" (${ids.join(', ')}); delete the extras and run again`);
    this.name = 'AmbiguousSipResourceError';
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sortedB = [...b].sort();
  return [...a].sort().every((value, i) => value === sortedB[i]);
}

function findOne<T>(
  kind: string,
  name: string,
  items: T[],
  nameOf: (item: T) => string,
  idOf: (item: T) => string,
): T | undefined {
  const matches = items.filter((item) => nameOf(item) === name);
  if (matches.length > 1) throw new AmbiguousSipResourceError(kind, name, matches.map(idOf));
  return matches[0];
}

function trunkMatches(trunk: SIPInboundTrunkInfo, plan: SipInboundPlan): boolean {
  return (
    sameSet(trunk.numbers, plan.numbers) &&
    sameSet(trunk.allowedAddresses, plan.allowedAddresses ?? []) &&
    trunk.authUsername === (plan.auth?.username ?? '') &&
    // the server may not echo the password back; only a visible mismatch counts
    (trunk.authPassword === '' || trunk.authPassword === (plan.auth?.password ?? ''))
  );
}

async function ensureTrunk(api: SipAdminApi, plan: SipInboundPlan): Promise<SipInboundResult['trunk']> {
  const existing = findOne(
    'inbound trunk',
    plan.trunkName,
    await api.listSipInboundTrunk(),
    (t) => t.name,
    (t) => t.sipTrunkId,
  );
  if (!existing) {
    const created = await api.createSipInboundTrunk(plan.trunkName, [...plan.numbers], {
      allowedAddresses: plan.allowedAddresses ? [...plan.allowedAddresses] : undefined,
      authUsername: plan.auth?.username,
      authPassword: plan.auth?.password,
    });
    return { id: created.sipTrunkId, action: 'created' };
  }
  if (trunkMatches(existing, plan)) return { id: existing.sipTrunkId, action: 'unchanged' };

  // Replace from a copy of what is there, so settings made elsewhere (headers, media
  // encryption, ringing timeout) survive; only the fields we own change.
  const replacement = existing.clone();
  replacement.numbers = [...plan.numbers];
  replacement.allowedAddresses = [...(plan.allowedAddresses ?? [])];
  replacement.authUsername = plan.auth?.username ?? '';
  replacement.authPassword = plan.auth?.password ?? '';
  const updated = await api.updateSipInboundTrunk(existing.sipTrunkId, replacement);
  return { id: updated.sipTrunkId || existing.sipTrunkId, action: 'updated' };
}

function individualRule(roomPrefix: string): SIPDispatchRule {
  return new SIPDispatchRule({
    rule: { case: 'dispatchRuleIndividual', value: new SIPDispatchRuleIndividual({ roomPrefix, pin: '' }) },
  });
}

function agentRoomConfig(agentName: string): RoomConfiguration {
  return new RoomConfiguration({ agents: [new RoomAgentDispatch({ agentName })] });
}

function ruleMatches(rule: SIPDispatchRuleInfo, plan: SipInboundPlan, trunkId: string): boolean {
  const individual = rule.rule?.rule.case === 'dispatchRuleIndividual' ? rule.rule.rule.value : undefined;
  const agents = rule.roomConfig?.agents ?? [];
  return (
    individual !== undefined &&
    individual.roomPrefix === plan.roomPrefix &&
    individual.pin === '' &&
    sameSet(rule.trunkIds, [trunkId]) &&
    agents.length === 1 &&
    agents[0]!.agentName === plan.agentName
  );
}

async function ensureDispatchRule(
  api: SipAdminApi,
  plan: SipInboundPlan,
  trunkId: string,
): Promise<SipInboundResult['dispatchRule']> {
  const existing = findOne(
    'dispatch rule',
    plan.dispatchRuleName,
    await api.listSipDispatchRule(),
    (r) => r.name,
    (r) => r.sipDispatchRuleId,
  );
  if (!existing) {
    // `individual`: every caller gets a fresh room `<prefix>_<caller number>_<random>`, and the room
    // configuration dispatches our agent into it by name (explicit dispatch).
    const created = await api.createSipDispatchRule(
      { type: 'individual', roomPrefix: plan.roomPrefix },
      { name: plan.dispatchRuleName, trunkIds: [trunkId], roomConfig: agentRoomConfig(plan.agentName) },
    );
    return { id: created.sipDispatchRuleId, action: 'created' };
  }
  if (ruleMatches(existing, plan, trunkId)) return { id: existing.sipDispatchRuleId, action: 'unchanged' };

  const replacement = existing.clone();
  replacement.rule = individualRule(plan.roomPrefix);
  replacement.trunkIds = [trunkId];
  replacement.roomConfig = agentRoomConfig(plan.agentName);
  const updated = await api.updateSipDispatchRule(existing.sipDispatchRuleId, replacement);
  return { id: updated.sipDispatchRuleId || existing.sipDispatchRuleId, action: 'updated' };
}

/**
 * Makes LiveKit's SIP side match the plan: one inbound trunk for our numbers and one
 * dispatch rule that puts each caller in their own room with our agent. Resources are
 * found by name, so running it again creates nothing; a changed plan updates them.
 */
export async function ensureSipInbound(api: SipAdminApi, plan: SipInboundPlan): Promise<SipInboundResult> {
  const trunk = await ensureTrunk(api, plan);
  const dispatchRule = await ensureDispatchRule(api, plan, trunk.id);
  return { trunk, dispatchRule };
}
