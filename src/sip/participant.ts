import { ParticipantKind } from '@livekit/rtc-node';

/** Participant attributes LiveKit's SIP service sets on a caller. */
export const SIP_ATTRIBUTES = {
  callId: 'sip.callID',
  callStatus: 'sip.callStatus',
  phoneNumber: 'sip.phoneNumber',
  trunkPhoneNumber: 'sip.trunkPhoneNumber',
  trunkId: 'sip.trunkID',
  ruleId: 'sip.ruleID',
} as const;

/** The part of an rtc-node `RemoteParticipant` this module looks at (easy to fake in tests). */
export interface ParticipantLike {
  readonly identity: string;
  readonly kind?: ParticipantKind | number;
  readonly attributes?: Readonly<Record<string, string>>;
}

/**
 * True when the participant is a phone caller bridged in by LiveKit SIP. The kind is the
 * authoritative signal; the `sip.callID` attribute covers servers that report the kind
 * late or not at all.
 */
export function isSipParticipant(participant: ParticipantLike | null | undefined): boolean {
  if (!participant) return false;
  if (participant.kind === ParticipantKind.SIP) return true;
  return typeof participant.attributes?.[SIP_ATTRIBUTES.callId] === 'string';
}

/** The caller's number as reported by the trunk; absent when the rule hides numbers. */
export function callerNumber(participant: ParticipantLike): string | undefined {
  const value = participant.attributes?.[SIP_ATTRIBUTES.phoneNumber];
  return value ? value : undefined;
}

/** The number the caller dialled (our trunk number), useful to route per line. */
export function dialledNumber(participant: ParticipantLike): string | undefined {
  const value = participant.attributes?.[SIP_ATTRIBUTES.trunkPhoneNumber];
  return value ? value : undefined;
}
