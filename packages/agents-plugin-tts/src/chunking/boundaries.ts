import {
  LINE_FEED,
  isCjkClauseCode,
  isCjkTerminatorCode,
  isCloserCode,
  isDigitCode,
  isCjkLetter,
  isLatinLetter,
  isSpaceCode,
  isTerminatorCode,
} from './chars.js';
import { isHangulSyllable } from './speech/language.js';
import type { BoundaryDetector, BoundaryHit, BoundaryKind, BoundaryScanner } from './types.js';

/**
 * Words that end in `.` without ending a sentence. Lower case, without the final dot. Ambiguous
 * words that are also common sentence-final words ("No.", "sun.", "min.") are deliberately left
 * out: a missed cut only merges two sentences, a wrong cut breaks one.
 */
export const DEFAULT_ABBREVIATIONS: readonly string[] = [
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs', 'etc', 'approx', 'dept', 'est',
  'fig', 'inc', 'ltd', 'co', 'corp', 'jan', 'feb', 'apr', 'aug', 'sept', 'oct', 'nov', 'dec',
  'gen', 'gov', 'sen', 'rep', 'capt', 'lt', 'col', 'sgt', 'ave', 'blvd', 'rd', 'vol', 'pp', 'ca',
  'cf', 'al', 'viz', 'ibid',
];

export interface BoundaryDetectorOptions {
  /** Lower-case words (without the final dot) after which `.` never ends a sentence. */
  abbreviations?: readonly string[];
}

/** Dotted initialisms like e.g, i.e, U.S, a.m, Ph.D (the final dot is the terminator itself). */
const DOTTED = /^(?:[a-z]{1,2}\.)+[a-z]{1,2}$/i;
const SINGLE_INITIAL = /^[A-Z]$/;
/** Opening quotes/brackets that may precede a word without being part of it. */
const LEADING_PUNCTUATION = /^[("'\[{“‘«「『（]+/;

/** Longest token kept for the abbreviation check (a power of two: the ring index is masked). */
const TOKEN_MAX = 16;

const enum Clause {
  None,
  /** `,` `;` `:` — a clause boundary only when followed by whitespace (not 1,500 / 3:30 / https:). */
  Spaced,
  /** `—` — a boundary after the dash run, spaces or not (word—word). */
  EmDash,
  /** ` – ` / ` - ` — a dash used as punctuation, with whitespace on both sides (not 3–5, -5). */
  SpacedDash,
}

const enum Line {
  Start,
  Digits,
  Other,
}

const KINDS: readonly (BoundaryKind | undefined)[] = [undefined, 'sentence', 'clause', 'word'];
const KIND_INDEX = { sentence: 1, clause: 2, word: 3 } as const;
/** Every before/after combination, allocated once: the scanner runs per character. */
const HITS: readonly (readonly BoundaryHit[])[] = KINDS.map((before) =>
  KINDS.map((after) => Object.freeze({ ...(before && { before }), ...(after && { after }) })),
);
function hit(before: BoundaryKind | undefined, after: BoundaryKind | undefined): BoundaryHit | undefined {
  if (!before && !after) return undefined;
  return HITS[before ? KIND_INDEX[before] : 0][after ? KIND_INDEX[after] : 0];
}

/** Opening quotes and brackets (not `'`/`‘`, which are apostrophes far more often). */
function isQuoteOpener(code: number): boolean {
  switch (code) {
    case 40: // (
    case 91: // [
    case 123: // {
    case 0xab: // «
    case 0x201c: // “
    case 0x2039: // ‹
    case 0x3008: // 〈
    case 0x300a: // 《
    case 0x300c: // 「
    case 0x300e: // 『
    case 0x3010: // 【
    case 0x3014: // 〔
    case 0x3016: // 〖
    case 0xff08: // （
    case 0xff3b: // ［
    case 0xff5b: // ｛
      return true;
    default:
      return false;
  }
}

/** Marker for a terminator run that must not end anything, not even a word (Dr. Kim, 1. item). */
const GUARDED = 'guarded' as const;

class DefaultBoundaryScanner implements BoundaryScanner {
  readonly #abbreviations: ReadonlySet<string>;

  // Pending run of terminators (`.`, `?!`, `...`, `。`), decided by the characters after it.
  #run = false;
  #runDots = 0;
  #runStrong = false; // contains ! or ?
  #runEllipsis = false;
  #runCjk = false;
  #runClosers = 0;
  #runAfterHangul = false;
  /** Length of the token before the run; its codes stay in `#token` until the next whitespace. */
  #runTokenLength = 0;
  #runListMarker = false;
  #runLink = false;
  #runAfterNumber = false;
  /**
   * `2024.` + space: a sentence end, or a Korean date/enumeration (2024. 11. 29.) going on. The
   * next non-space character decides, so only sentences ending in a bare number wait that long.
   */
  #numberDot = false;
  /** Inside a dotted number sequence (2024. 11.): its further parts (29.) end nothing. */
  #numberChain = false;

  #clause = Clause.None;

  // The current token (run of non-space characters): the first TOKEN_MAX code units, as codes, so
  // that no string is built per character; the text is made only when a terminator needs it.
  readonly #token = new Uint16Array(TOKEN_MAX);
  #tokenLength = 0;
  #tokenLink = false;

  #line = Line.Start;
  #prevSpace = true;
  #prevHangul = false;
  #prevLetter = false;
  /** Open quotes/brackets on this line: a comma inside a quotation may be followed by its closer. */
  #quoteDepth = 0;
  #straightQuoteOpen = false;
  /** The previous character was a comma cut at once: the space after it is the same boundary. */
  #clauseJustEnded = false;

  constructor(abbreviations: ReadonlySet<string>) {
    this.#abbreviations = abbreviations;
  }

  reset(): void {
    this.#run = false;
    this.#numberDot = false;
    this.#numberChain = false;
    this.#clause = Clause.None;
    this.#tokenLength = 0;
    this.#tokenLink = false;
    this.#line = Line.Start;
    this.#prevSpace = true;
    this.#prevHangul = false;
    this.#prevLetter = false;
    this.#quoteDepth = 0;
    this.#straightQuoteOpen = false;
    this.#clauseJustEnded = false;
  }

  next(char: string): BoundaryHit | undefined {
    const code = char.charCodeAt(0);
    const space = isSpaceCode(code);
    let before: BoundaryKind | undefined;
    let after: BoundaryKind | undefined;
    let suppressWord = false;
    const clauseJustEnded = this.#clauseJustEnded;
    this.#clauseJustEnded = false;

    if (this.#run) {
      if (isTerminatorCode(code) && this.#runClosers === 0) {
        this.#extendRun(code);
        this.#appendToken(code);
        return undefined;
      }
      if (isCloserCode(code)) {
        this.#trackQuotes(code);
        this.#appendToken(code);
        // A CJK sentence end may wait for one closing quote, and no longer.
        if (this.#runCjk) {
          this.#run = false;
          return hit(undefined, 'sentence');
        }
        this.#runClosers++;
        return undefined;
      }
      this.#run = false;
      const decided = this.#decideRun(code, space);
      if (decided === GUARDED) suppressWord = true;
      else before = decided;
    }

    if (this.#numberDot && !(space && code !== LINE_FEED)) {
      this.#numberDot = false;
      if (isDigitCode(code)) this.#numberChain = true;
      else if (!space) before = 'sentence';
    }

    if (this.#clause !== Clause.None) {
      const pending = this.#clause;
      this.#clause = Clause.None;
      if (pending === Clause.EmDash) {
        if (code === 0x2014) {
          this.#clause = Clause.EmDash;
          this.#appendToken(code);
          return hit(before, undefined);
        }
        before ??= 'clause';
      } else if (space) {
        before ??= 'clause';
      }
    }

    if (space) {
      if (code === LINE_FEED) {
        before = 'sentence';
        this.#line = Line.Start;
        this.#quoteDepth = 0;
        this.#straightQuoteOpen = false;
      } else if (!before && !this.#prevSpace && !suppressWord && !clauseJustEnded) {
        before = 'word';
      }
      this.#prevSpace = true;
      this.#prevHangul = false;
      this.#prevLetter = false;
      this.#tokenLength = 0;
      this.#tokenLink = false;
      return hit(before, undefined);
    }

    if (isTerminatorCode(code)) this.#startRun(code);
    else if (isCjkClauseCode(code)) after = 'clause';
    else if ((code === 44 || code === 59) && this.#certainFromTheLeft()) {
      after = 'clause';
      this.#clauseJustEnded = true;
    }
    else if (code === 44 || code === 59 || code === 58) this.#clause = Clause.Spaced;
    else if (code === 0x2014) this.#clause = Clause.EmDash;
    else if ((code === 0x2013 || code === 45) && this.#prevSpace) this.#clause = Clause.SpacedDash;

    if (this.#numberChain && !isDigitCode(code) && code !== 46) this.#numberChain = false;
    if (this.#line !== Line.Other) {
      this.#line = isDigitCode(code) ? Line.Digits : Line.Other;
    }
    this.#trackQuotes(code);
    this.#appendToken(code);
    this.#prevSpace = false;
    this.#prevHangul = isHangulSyllable(code);
    this.#prevLetter = isLatinLetter(code) || isCjkLetter(code);
    return hit(before, after);
  }

  /**
   * `,` or `;` right after a letter is a clause boundary at once: only numbers (1,500) and links
   * put them inside a token, and a number ends in a digit. Waiting for the space would cost one
   * LLM token on every first chunk that ends at a comma. Inside a quotation the closing quote may
   * follow (`"Yes," she said`), so there the next character still decides.
   */
  #certainFromTheLeft(): boolean {
    return this.#prevLetter && this.#quoteDepth === 0 && !this.#straightQuoteOpen && !this.#tokenLink;
  }

  #trackQuotes(code: number): void {
    if (code === 34 || code === 0xff02) this.#straightQuoteOpen = !this.#straightQuoteOpen;
    else if (isQuoteOpener(code)) this.#quoteDepth++;
    else if (isCloserCode(code) && code !== 39 && code !== 0x2019 && this.#quoteDepth > 0) this.#quoteDepth--;
  }

  #startRun(code: number): void {
    this.#run = true;
    this.#runDots = 0;
    this.#runStrong = false;
    this.#runEllipsis = false;
    this.#runCjk = false;
    this.#runClosers = 0;
    this.#runAfterHangul = this.#prevHangul;
    this.#runTokenLength = this.#tokenLength;
    this.#runListMarker = code === 46 && this.#line === Line.Digits && this.#tokenLength <= 3;
    this.#runLink = this.#tokenLink;
    this.#runAfterNumber = this.#tokenIsNumber();
    this.#extendRun(code);
  }

  #extendRun(code: number): void {
    if (code === 46) this.#runDots++;
    else if (code === 33 || code === 63) this.#runStrong = true;
    else if (code === 0x2026 || code === 0x2025) this.#runEllipsis = true;
    else if (isCjkTerminatorCode(code)) this.#runCjk = true;
  }

  /** What the terminator run just ended means, now that the next character is known. */
  #decideRun(code: number, space: boolean): BoundaryKind | typeof GUARDED | undefined {
    const ellipsis = this.#runEllipsis || this.#runDots >= 2;
    if (this.#runCjk || this.#runStrong) return space || this.#runCjk ? 'sentence' : this.#glued(code, ellipsis);
    if (!space) return this.#glued(code, ellipsis);
    if (ellipsis) return 'clause';
    if (this.#runListMarker || this.#isAbbreviation()) return GUARDED;
    if (this.#runAfterNumber && this.#runDots === 1 && this.#runClosers === 0 && code !== LINE_FEED) {
      if (!this.#numberChain) this.#numberDot = true;
      return GUARDED;
    }
    return 'sentence';
  }

  /**
   * A terminator directly followed by a non-space character ends nothing (3.14, e.g.x, site.com),
   * except between Hangul syllables: Korean never puts a dot inside a word ("했다.그래서").
   */
  #glued(code: number, ellipsis: boolean): BoundaryKind | undefined {
    if (this.#runClosers > 0 || !this.#runAfterHangul || this.#runLink || !isHangulSyllable(code)) return undefined;
    return ellipsis ? 'clause' : 'sentence';
  }

  #isAbbreviation(): boolean {
    const length = this.#runTokenLength;
    if (length === 0 || length > TOKEN_MAX) return false;
    const word = String.fromCharCode(...this.#token.subarray(0, length)).replace(LEADING_PUNCTUATION, '');
    return this.#abbreviations.has(word.toLowerCase()) || DOTTED.test(word) || SINGLE_INITIAL.test(word);
  }

  /** The token is 1–4 digits (a year, a day, a count). */
  #tokenIsNumber(): boolean {
    const length = this.#tokenLength;
    if (length === 0 || length > 4) return false;
    for (let k = 0; k < length; k++) if (!isDigitCode(this.#token[k])) return false;
    return true;
  }

  #appendToken(code: number): void {
    const length = this.#tokenLength;
    const token = this.#token;
    if (!this.#tokenLink) {
      if (code === 64 /* @ */ && length > 0) this.#tokenLink = true;
      else if (code === 47 /* / */ && length >= 2 && length <= TOKEN_MAX && token[length - 1] === 47 && token[length - 2] === 58) {
        this.#tokenLink = true; // scheme://
      } else if (length === 3 && code === 46 && (token[0] | 32) === 119 && (token[1] | 32) === 119 && (token[2] | 32) === 119) {
        this.#tokenLink = true; // www.
      }
    }
    if (length < TOKEN_MAX) token[length] = code;
    this.#tokenLength = length + 1;
  }
}

/**
 * The built-in English + Korean boundary detector.
 *
 * - Sentence ends: `.` `!` `?` (runs like `?!`, optionally followed by closing quotes/brackets)
 *   once whitespace follows; `。` `！` `？` at once (waiting one character for a closing quote);
 *   a newline; and `.`/`?`/`!` glued between Hangul syllables.
 * - Clause boundaries: `,` `;` right after a letter at once (outside quotations and links), else
 *   `,` `;` `:` followed by whitespace; `—`, a spaced ` – ` or ` - `, the CJK
 *   `，` `、` `；` `：`, and an ellipsis (`...`, `…`) followed by whitespace — an ellipsis is a
 *   hesitation far more often than a sentence end ("그게... 잘 모르겠어요").
 * - A `.` after a bare number (`42. `) ends a sentence only if the next non-space character is
 *   not a digit: Korean dates and enumerations (`2024. 11. 29.`) stay whole.
 * - Never a boundary: inside numbers (3.14, 1,500, 3:30), URLs and e-mail addresses, after a known
 *   abbreviation or initial (Dr., e.g., U.S., J.), or after a list marker at the start of a line (1.)
 *   — in those places not even a word boundary is reported, so forced cuts keep them together.
 */
export function createBoundaryDetector(options: BoundaryDetectorOptions = {}): BoundaryDetector {
  const abbreviations = new Set((options.abbreviations ?? DEFAULT_ABBREVIATIONS).map((w) => w.toLowerCase()));
  return { createScanner: () => new DefaultBoundaryScanner(abbreviations) };
}
