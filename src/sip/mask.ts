/**
 * Phone numbers are personal data: logs get a masked form that is still useful for
 * telling calls apart (the last few digits) but not for calling anyone back.
 */

const PLACEHOLDER = '(unknown)';

/** `\d` without a regular expression per character: every log line with a number comes here. */
const isDigit = (char: string): boolean => char >= '0' && char <= '9';

/** How many trailing digits stay visible, by how many digits the number has. */
function visibleDigits(totalDigits: number): number {
  if (totalDigits >= 8) return 4;
  if (totalDigits >= 5) return 2;
  return 0;
}

/**
 * Masks every digit except the last few; separators and a leading `+` are kept so the
 * shape stays recognisable. A SIP URI (`sip:+1555…@host`) is reduced to its user part
 * first: the host adds nothing to telling calls apart.
 *
 * @example maskPhoneNumber('+14155550123') === '+*******0123'
 */
export function maskPhoneNumber(value: string | null | undefined): string {
  if (typeof value !== 'string') return PLACEHOLDER;
  const userPart = value.replace(/^sips?:/i, '').split('@')[0]!.trim();
  let totalDigits = 0;
  for (const char of userPart) if (isDigit(char)) totalDigits += 1;
  if (totalDigits === 0) return PLACEHOLDER;

  let digitsToHide = totalDigits - visibleDigits(totalDigits);
  let masked = '';
  for (const char of userPart) {
    if (isDigit(char)) {
      masked += digitsToHide > 0 ? '*' : char;
      digitsToHide -= 1;
    } else if (char === '+' || char === '-' || char === ' ' || char === '(' || char === ')') {
      masked += char;
    }
    // anything else (letters, `;params`) is dropped: it can carry identifying text
  }
  return masked;
}
