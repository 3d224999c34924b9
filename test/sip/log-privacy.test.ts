import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskPhoneNumbersIn } from '../../src/sip/log-privacy.js';

// The shapes @livekit/agents 1.9 writes to a SIP call's worker log (seen in a call through livekit-sip 1.0.0 built from source).
const FRAMEWORK_LINE =
  '{"level":30,"time":1796130224307,"pid":10828,"lk.pii.participant_identity":"sip_+15557654321",' +
  '"trackPublications":[{"info":{"name":"sip_+15557654321"}}],"reason":"CLIENT_INITIATED","msg":"closing agent session"}';

describe('maskPhoneNumbersIn', () => {
  it('masks SIP identities and E.164 numbers, keeping the last digits', () => {
    const masked = maskPhoneNumbersIn(FRAMEWORK_LINE);
    expect(masked).not.toContain('5557654321');
    expect(masked.match(/sip_\+\*{7}4321/g)).toHaveLength(2);
    expect(maskPhoneNumbersIn('room call-_+821012345678_Ab3x')).toBe('room call-_+********5678_Ab3x');
    expect(maskPhoneNumbersIn('identity sip_15557654321 joined')).toBe('identity sip_*******4321 joined');
    expect(maskPhoneNumbersIn('"sip_+821012345678","sip_821012345678"')).toBe('"sip_+********5678","sip_********5678"');
    expect(maskPhoneNumbersIn('six +123456, seven sip_1234567.')).toBe('six +****56, seven sip_*****67.');
  });

  it('leaves numbers that are not phone numbers alone', () => {
    const line = '{"time":1796130224307,"pid":10828,"ms":+1250,"offset":"+0100","port":18081}';
    expect(maskPhoneNumbersIn(line)).toBe(line);
    // Longer than E.164 allows, or a `sip_` run that is too short: not a phone number.
    expect(maskPhoneNumbersIn('id +1234567890123456 and sip_12345')).toBe('id +1234567890123456 and sip_12345');
    // JSON stays JSON: only digits change.
    expect(JSON.parse(maskPhoneNumbersIn(FRAMEWORK_LINE)).time).toBe(1796130224307);
  });

  it('never lets out more of a number than its last digits, wherever in a line it stands', () => {
    // Text around the numbers has no digits, so every digit left in the output is one of theirs.
    const TEXT = fc.string({ unit: fc.constantFrom(...'abcsip_+ "{}:,-()/=@\n한국어'.split('')), maxLength: 24 });
    const NUMBER = fc.record({
      form: fc.constantFrom('+', 'sip_', 'sip_+'),
      digits: fc.stringMatching(/^[0-9]{6,15}$/),
    });
    fc.assert(
      fc.property(TEXT, fc.array(fc.tuple(NUMBER, TEXT), { minLength: 1, maxLength: 4 }), (head, numbers) => {
        const line = head + numbers.map(([n, text]) => n.form + n.digits + text).join('');
        const masked = maskPhoneNumbersIn(line);
        const visible = (digits: string) => digits.slice(digits.length >= 8 ? -4 : -2);
        expect(masked.replace(/\D/g, '')).toBe(numbers.map(([n]) => visible(n.digits)).join(''));
        for (const [n] of numbers) expect(masked).not.toContain(n.digits);
      }),
      { numRuns: 2000 },
    );
  });
});
