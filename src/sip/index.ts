export {
  type CallerProfile,
  type DescribeCallerOptions,
  type SayCapable,
  describeCaller,
  greetSipCaller,
  maskIdentity,
} from './call.js';
export { DEFAULT_GREETINGS, baseLanguage, greetingFor } from './greeting.js';
export { maskPhoneNumber } from './mask.js';
export {
  type ParticipantLike,
  SIP_ATTRIBUTES,
  callerNumber,
  dialledNumber,
  isSipParticipant,
} from './participant.js';
export {
  DEFAULT_TELEPHONY_SAMPLE_RATE,
  type TelephonySessionOptions,
  telephonySessionOptions,
} from './telephony.js';
export {
  AmbiguousSipResourceError,
  type SetupAction,
  type SipAdminApi,
  type SipInboundPlan,
  type SipInboundResult,
  apiHost,
  ensureSipInbound,
} from './setup.js';
