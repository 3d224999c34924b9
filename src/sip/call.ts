import type { voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { SipCallConfig } from '../config/index.js';
import { greetingFor } from './greeting.js';
import { maskPhoneNumber } from './mask.js';
import { type ParticipantLike, callerNumber, isSipParticipant } from './participant.js';
import { type TelephonySessionOptions, telephonySessionOptions } from './telephony.js';

/** How the entry should treat the participant it is about to talk to. */
export interface CallerProfile {
  readonly channel: 'sip' | 'web';
  /** Safe to log: numbers masked (SIP identities embed the caller's number). */
  readonly logFields: Readonly<Record<string, string>>;
  /** Present for SIP callers: room audio options for `session.start()`. */
  readonly telephony?: TelephonySessionOptions;
  /** Present for SIP callers: spoken at once, before any LLM turn. */
  readonly greeting?: string;
}

export interface DescribeCallerOptions {
  /** Greeting language (`en`, `ko`, `ko-KR`…). @defaultValue `sip.language`, else `en` */
  language?: string;
  /** `config.sip.call`; defaults to 16 kHz and the built-in English greeting. */
  sip?: SipCallConfig;
}

/** Masks every run of 5+ digits: LiveKit names SIP callers `sip_<their number>`. */
export function maskIdentity(identity: string): string {
  return identity.replace(/\+?\d[\d-]{3,}\d/g, (run) => maskPhoneNumber(run));
}

export function describeCaller(
  participant: ParticipantLike,
  options: DescribeCallerOptions = {},
): CallerProfile {
  if (!isSipParticipant(participant)) {
    return { channel: 'web', logFields: { 'caller.channel': 'web', 'caller.identity': participant.identity } };
  }
  return {
    channel: 'sip',
    logFields: {
      'caller.channel': 'sip',
      'caller.identity': maskIdentity(participant.identity),
      'caller.number': maskPhoneNumber(callerNumber(participant)),
    },
    telephony: telephonySessionOptions(participant.identity, options.sip?.sampleRate),
    greeting: greetingFor(options.language ?? options.sip?.language, options.sip?.greeting),
  };
}

/** The one `AgentSession` method the greeting needs (a fake is enough in tests). */
export type SayCapable = Pick<voice.AgentSession, 'say'>;

/**
 * Speaks the SIP greeting immediately after `session.start()`: fixed text straight to
 * the (prewarmed) TTS stream, no LLM round trip, so the caller hears a voice within the
 * TTS's first-byte time (or at once, with audio asked for earlier). Not interruptible: line noise at pickup must not cut it, and it
 * is short. It goes into the chat context so the LLM does not greet a second time.
 * Returns `undefined` for non-SIP participants.
 */
export function greetSipCaller(
  session: SayCapable,
  caller: CallerProfile,
  /** The greeting's audio when it was asked for before the call was answered (greeting-audio.ts). */
  audio?: ReadableStream<AudioFrame>,
): ReturnType<SayCapable['say']> | undefined {
  if (caller.channel !== 'sip' || !caller.greeting) return undefined;
  return session.say(caller.greeting, { allowInterruptions: false, addToChatCtx: true, ...(audio ? { audio } : {}) });
}
