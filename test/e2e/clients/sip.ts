/**
 * A phone caller as LiveKit's SIP bridge puts one in a room (github.com/livekit/sip, protocol's
 * sip/sip.go and sip/token.go), so the agent's SIP path runs on the real stack without the bridge:
 *
 * - the room: an individual dispatch rule's `<prefix>_<caller number>_<12 random>` (what
 *   `sip:setup` creates), its room configuration dispatching the agent by name;
 * - the token (`BuildSIPToken`): participant kind SIP, identity `sip_<number>`, name
 *   `Phone <number>`, join/publish/subscribe/data/update-own-metadata grants, and the attributes
 *   `sip.callID`, `sip.trunkID`, `sip.ruleID`, `sip.phoneNumber`, `sip.hostname`,
 *   `sip.trunkPhoneNumber`, `sip.callStatus` (`ringing` on join);
 * - the audio: one track named after the identity with no source given, which LiveKit's Go SDK
 *   publishes as MICROPHONE;
 * - pick-up: livekit-sip answers the call (200 OK) only once one of its subscriptions (the agent's
 *   track) is up, then sets `sip.callStatus` to `active` (pkg/sip/inbound.go, waitSubscribe);
 * - keys: each RFC 4733 event becomes a `SipDTMF` packet (code and digit), as `publishDtmf` sends.
 */
import { randomBytes } from 'node:crypto';
import { AccessToken, RoomAgentDispatch, RoomConfiguration } from 'livekit-server-sdk';
import { need } from './common.js';

/** `sip:setup`'s default room prefix (SIP_ROOM_PREFIX). */
export const DEFAULT_ROOM_PREFIX = 'call-';

export interface SipCall {
  room: string;
  identity: string;
  name: string;
  attributes: Record<string, string>;
}

const randomSuffix = (length: number): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((b) => alphabet[b % alphabet.length]).join('');
};

/** The room, identity and attributes livekit-server's dispatch evaluation gives this call. */
export function sipCall(callerNumber: string, options: { trunkNumber?: string; roomPrefix?: string } = {}): SipCall {
  const prefix = options.roomPrefix ?? DEFAULT_ROOM_PREFIX;
  return {
    room: `${prefix}_${callerNumber}_${randomSuffix(12)}`,
    identity: `sip_${callerNumber}`,
    name: `Phone ${callerNumber}`,
    attributes: {
      'sip.callID': `SCL_${randomSuffix(12)}`,
      'sip.trunkID': `ST_${randomSuffix(12)}`,
      'sip.ruleID': `SDR_${randomSuffix(12)}`,
      'sip.phoneNumber': callerNumber,
      'sip.hostname': '203.0.113.7',
      'sip.trunkPhoneNumber': options.trunkNumber ?? '+15550100200',
      'sip.callStatus': 'ringing',
    },
  };
}

/** `BuildSIPToken`'s grants and kind, with the dispatch rule's room configuration. */
export function sipToken(call: SipCall, agentName: string | undefined): Promise<string> {
  const token = new AccessToken(need('LIVEKIT_API_KEY'), need('LIVEKIT_API_SECRET'), {
    identity: call.identity,
    name: call.name,
    attributes: call.attributes,
    ttl: 600,
  });
  token.kind = 'sip';
  token.addGrant({ roomJoin: true, room: call.room, canPublish: true, canSubscribe: true, canPublishData: true, canUpdateOwnMetadata: true });
  if (agentName) token.roomConfig = new RoomConfiguration({ agents: [new RoomAgentDispatch({ agentName })] });
  return token.toJwt();
}
