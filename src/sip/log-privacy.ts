/**
 * The framework logs SIP callers' identities raw (`sip_+14155550123` as
 * `lk.pii.participant_identity`, and as the caller's track name), so masking our own log lines
 * (call.ts) is not enough: the job process's stdout, where the framework's pino logger writes,
 * masks every phone number it carries (src/log-output). Only `+`-prefixed runs of digits (E.164)
 * and the digits of `sip_<number>` identities are touched, never timestamps, PIDs or durations.
 */
import { maskPhoneNumber } from './mask.js';

const SIP_PREFIX = 'sip_';
const PHONE_NUMBER_IN_TEXT = /\+\d{6,15}(?!\d)|sip_\d{6,15}(?!\d)/g;

export function maskPhoneNumbersIn(text: string): string {
  // Every line the process logs comes through here, and almost none carries a number: two plain
  // substring scans rule them out at a fraction of the regular expression's cost.
  if (!text.includes('+') && !text.includes(SIP_PREFIX)) return text;
  return text.replace(PHONE_NUMBER_IN_TEXT, (found) =>
    found.startsWith(SIP_PREFIX) ? SIP_PREFIX + maskPhoneNumber(found.slice(SIP_PREFIX.length)) : maskPhoneNumber(found),
  );
}
