/**
 * The framework logs SIP callers' identities raw (`sip_+14155550123` as
 * `lk.pii.participant_identity`, and as the caller's track name), so masking our own log lines
 * (call.ts) is not enough: the job process's stdout, where the framework's pino logger writes,
 * masks every phone number it carries. Only `+`-prefixed runs of digits (E.164) and the digits of
 * `sip_<number>` identities are touched, never timestamps, PIDs or durations.
 */
import { maskPhoneNumber } from './mask.js';

const PHONE_NUMBER_IN_TEXT = /\+\d{6,15}(?!\d)|(?<=\bsip_)\d{6,15}(?!\d)/g;

export function maskPhoneNumbersIn(text: string): string {
  return text.replace(PHONE_NUMBER_IN_TEXT, (number) => maskPhoneNumber(number));
}

const guarded = new WeakSet<NodeJS.WritableStream>();

/** Wraps `stream.write` (once per stream) so whatever is written has its phone numbers masked. */
export function maskPhoneNumbersInOutput(stream: NodeJS.WriteStream = process.stdout): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string') return write(maskPhoneNumbersIn(chunk), ...rest);
    // pino hands strings; a Buffer (or typed array) is decoded as the UTF-8 it is.
    if (chunk instanceof Uint8Array) return write(maskPhoneNumbersIn(Buffer.from(chunk).toString('utf8')), ...rest.filter((r) => typeof r === 'function'));
    return write(chunk, ...rest);
  }) as typeof stream.write;
}
