/* Decisions about markdown marker runs that the streaming sanitizer holds back for one character. */
import { LINE_FEED, isDigitCode, isSpaceCode, isWordChar } from './chars.js';

/**
 * A lone `~` is prose (~5분, 3~5개); an underscore inside a word is part of it (snake_case); a
 * lone `*` between digits or between spaces is arithmetic (2*3, 5 * 3), never emphasis.
 */
export function isLiteralRun(run: string, before: string, after: string): boolean {
  switch (run[0]) {
    case '~':
      return run.length === 1;
    case '_':
      return isWordChar(before) && isWordChar(after);
    case '*': {
      if (run.length !== 1 || !before || !after) return false;
      const b = before.charCodeAt(0);
      const a = after.charCodeAt(0);
      return (isDigitCode(b) && isDigitCode(a)) || (isSpaceCode(b) && isSpaceCode(a) && a !== LINE_FEED);
    }
  }
  return false;
}

/** A line of dashes (and spaces) at least three long: a horizontal rule. */
export function isRule(held: string): boolean {
  let dashes = 0;
  for (let k = 0; k < held.length; k++) if (held[k] === '-') dashes++;
  return dashes >= 3;
}
