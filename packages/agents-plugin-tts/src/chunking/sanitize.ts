import { HeldBracket } from './bracket.js';
import { LINE_FEED, isSpaceCode, normalizeWhitespace } from './chars.js';
import { isLiteralRun, isRule } from './marks.js';

/** Receives each character that survives sanitizing, with its offset in the raw reply, in order. */
export type SanitizedCharSink = (char: string, rawIndex: number) => void;

const enum Mode {
  /** Only whitespace seen on this line so far: block markers (#, -, >, |, ```) are possible. */
  LineStart,
  Text,
  Hashes,
  /** A `-` or `+` at line start: a bullet if a space follows. */
  LineMark,
  /** `--` at line start: a horizontal rule if the line holds only dashes and spaces. */
  Rule,
  /** Backticks or tildes at line start: a fence if there are three or more. */
  FenceRun,
  FenceInfo,
  FenceBody,
  FenceTail,
  Table,
  /** A run of `*`, `_`, `~` or `` ` `` inside a line, decided by the character after it. */
  InlineRun,
  Code,
  CodeRun,
  /** A `!` that may open an image `![alt](url)`. */
  Bang,
  /** `]` of an open bracket, waiting to see whether `(` makes it a link. */
  BracketClose,
  LinkUrl,
  Emotion,
}

/** Longest bracket content held back while waiting to learn whether it is a link. */
const MAX_BRACKET_CHARS = 200;
const MAX_URL_CHARS = 2048;
const MAX_EMOTION_CHARS = 40;

/**
 * Streaming, offset-keeping markdown removal for speech. Every decision needs at most a short,
 * bounded look-ahead (a marker run, a bracket's content, a line of dashes), so characters are
 * released as soon as their fate is certain and the output never depends on how the input was
 * split into deltas.
 *
 * Removed: emphasis markers (`*`, `**`, `_` at word edges, `~~`; arithmetic `2*3` and `5 * 3`
 * stay), heading hashes, bullet markers, blockquote `>`, horizontal rules, link syntax
 * (`[text](url)` keeps `text`), images, inline-code backticks (the code text itself is kept: it is
 * usually a word of the sentence), fenced code blocks including ```` ```card ```` blocks (whole),
 * table rows (whole: a table is read with the eyes) and `[emotion:...]` tags, wherever they are.
 * Everything else, including `[laugh]`-style audio cues, passes unchanged.
 */
export class SpeechSanitizer {
  readonly #sink: SanitizedCharSink;
  #raw = 0;
  #mode = Mode.LineStart;
  /** Characters held back while undecided; always consecutive in the raw reply. */
  #held = '';
  #heldStart = 0;
  #codeLength = 0;
  #fenceChar = '';
  #fenceLength = 0;
  #fenceLineStart = true;
  #fenceRun = 0;
  #linkDepth = 0;
  #linkLength = 0;
  #bracket: HeldBracket | null = null;
  readonly #emit = (char: string, raw: number): void => this.#out(char, raw);
  #prevOut = '';

  constructor(sink: SanitizedCharSink) {
    this.#sink = sink;
  }

  write(text: string): void {
    for (let k = 0; k < text.length; k++) this.#feed(text[k], this.#raw++);
  }

  /** Decides everything held back as if the text ended here; block state (an open fence) stays. */
  flush(): void {
    this.#resolvePending();
  }

  /** The reply is complete: decides the rest and gets ready for a new reply (offsets restart at 0). */
  end(): void {
    this.#resolvePending();
    this.#raw = 0;
    this.#mode = Mode.LineStart;
    this.#held = '';
    this.#bracket = null;
    this.#prevOut = '';
  }

  #feed(c: string, i: number): void {
    if (this.#bracket && this.#mode === Mode.Text && this.#bracket.completesEmotionTag(c)) {
      this.#hold(Mode.Emotion, c, i);
      return;
    }
    while (!this.#step(c, c.charCodeAt(0), i));
  }

  /** Handles one character in the current mode; false means "mode changed, handle it again". */
  #step(c: string, code: number, i: number): boolean {
    switch (this.#mode) {
      case Mode.LineStart:
        return this.#lineStart(c, code, i);
      case Mode.Text:
        return this.#text(c, code, i);
      case Mode.Hashes:
        if (c === '#') return this.#keep(c);
        if (this.#held.length <= 6 && (c === ' ' || c === '\t' || code === LINE_FEED)) this.#held = '';
        return this.#emitHeldThen(Mode.Text);
      case Mode.LineMark:
        if (c === ' ' || c === '\t') this.#held = '';
        else if (c === '-' && this.#held === '-') {
          this.#mode = Mode.Rule;
          return this.#keep(c);
        }
        return this.#emitHeldThen(Mode.Text);
      case Mode.Rule:
        if (c === '-' || c === ' ' || c === '\t') return this.#keep(c);
        if (code === LINE_FEED && isRule(this.#held)) this.#held = '';
        return this.#emitHeldThen(Mode.Text);
      case Mode.FenceRun:
        if (c === this.#held[0]) return this.#keep(c);
        if (this.#held.length >= 3) this.#openFence();
        else this.#mode = Mode.InlineRun;
        return false;
      case Mode.FenceInfo:
        if (code === LINE_FEED) {
          this.#mode = Mode.FenceBody;
          this.#fenceLineStart = true;
          this.#fenceRun = 0;
        }
        return true;
      case Mode.FenceBody:
        return this.#fenceBody(c, code);
      case Mode.FenceTail:
      case Mode.Table:
        if (code !== LINE_FEED) return true;
        this.#mode = Mode.LineStart;
        return false;
      case Mode.InlineRun:
        if (c === this.#held[0]) return this.#keep(c);
        this.#resolveInlineRun(c);
        return false;
      case Mode.Code:
        if (c === '`') return this.#hold(Mode.CodeRun, c, i);
        if (code === LINE_FEED) {
          this.#mode = Mode.Text;
          return false;
        }
        this.#out(c, i);
        return true;
      case Mode.CodeRun:
        if (c === '`') return this.#keep(c);
        this.#resolveCodeRun();
        return false;
      case Mode.Bang:
        if (c === '[') {
          this.#held = '';
          this.#mode = Mode.Text;
          this.#openBracket(i, this.#heldStart);
          return true;
        }
        return this.#emitHeldThen(Mode.Text);
      case Mode.BracketClose:
        if (c === '(') {
          this.#mode = Mode.LinkUrl;
          this.#linkDepth = 1;
          this.#linkLength = 0;
          return true;
        }
        this.#flushBracketLiteral(true);
        this.#mode = Mode.Text;
        return false;
      case Mode.LinkUrl:
        return this.#linkUrl(c, code);
      case Mode.Emotion:
        return this.#emotion(c, code);
    }
  }

  #lineStart(c: string, code: number, i: number): boolean {
    if (isSpaceCode(code)) {
      this.#out(c, i);
      return true;
    }
    switch (c) {
      case '#':
        return this.#hold(Mode.Hashes, c, i);
      case '-':
      case '+':
        return this.#hold(Mode.LineMark, c, i);
      case '`':
      case '~':
        return this.#hold(Mode.FenceRun, c, i);
      case '>': // blockquote marker; what follows may still be a bullet or heading
        return true;
      case '|':
        this.#mode = Mode.Table;
        return true;
      case '*': // bullet or emphasis: markup either way
        this.#mode = Mode.Text;
        return true;
    }
    this.#mode = Mode.Text;
    return false;
  }

  #text(c: string, code: number, i: number): boolean {
    switch (c) {
      case '*':
      case '_':
      case '~':
      case '`':
        return this.#hold(Mode.InlineRun, c, i);
      case '!':
        return this.#hold(Mode.Bang, c, i);
      case '[':
        this.#openBracket(i, -1);
        return true;
      case ']':
        if (!this.#bracket) break;
        this.#bracket.closeRaw = i;
        this.#mode = Mode.BracketClose;
        return true;
    }
    if (code === LINE_FEED) {
      if (this.#bracket) this.#flushBracketLiteral(false);
      this.#mode = Mode.LineStart;
    }
    this.#out(c, i);
    return true;
  }

  #fenceBody(c: string, code: number): boolean {
    if (this.#fenceLineStart) {
      if (c === this.#fenceChar) {
        this.#fenceRun++;
        return true;
      }
      if (this.#fenceRun >= this.#fenceLength) {
        this.#mode = Mode.FenceTail;
        return false;
      }
      if (this.#fenceRun === 0 && (c === ' ' || c === '\t')) return true;
      this.#fenceLineStart = false;
    }
    if (code === LINE_FEED) {
      this.#fenceLineStart = true;
      this.#fenceRun = 0;
    }
    return true;
  }

  #linkUrl(c: string, code: number): boolean {
    if (code === LINE_FEED || ++this.#linkLength > MAX_URL_CHARS) {
      this.#finishLink();
      return false;
    }
    if (c === '(') this.#linkDepth++;
    else if (c === ')' && --this.#linkDepth === 0) this.#finishLink();
    return true;
  }

  #emotion(c: string, code: number): boolean {
    if (c === ']' || code === LINE_FEED) {
      this.#bracket = null;
      this.#held = '';
      this.#mode = Mode.Text;
      return c === ']';
    }
    if (this.#held.length < MAX_EMOTION_CHARS) return this.#keep(c);
    // Too long to be a tag: it was prose in brackets after all.
    this.#flushBracketLiteral(false);
    return this.#emitHeldThen(Mode.Text);
  }

  #openFence(): void {
    this.#fenceChar = this.#held[0];
    this.#fenceLength = this.#held.length;
    this.#held = '';
    this.#mode = Mode.FenceInfo;
  }

  #resolveInlineRun(next: string): void {
    const run = this.#held;
    this.#mode = Mode.Text;
    if (run[0] === '`') {
      this.#held = '';
      this.#mode = Mode.Code;
      this.#codeLength = run.length;
    } else if (isLiteralRun(run, this.#prevOut, next)) {
      this.#emitHeld();
    } else {
      this.#held = '';
    }
  }

  #resolveCodeRun(): void {
    if (this.#held.length === this.#codeLength) {
      this.#held = '';
      this.#mode = Mode.Text;
    } else {
      this.#emitHeldThen(Mode.Code);
    }
  }

  /** Decides held-back characters as if the text ended here. */
  #resolvePending(): void {
    switch (this.#mode) {
      case Mode.Hashes: // a heading marker with no heading
        this.#held = '';
        this.#mode = Mode.Text;
        break;
      case Mode.Rule:
        if (isRule(this.#held)) this.#held = '';
        this.#emitHeldThen(Mode.Text);
        break;
      case Mode.FenceRun:
        if (this.#held.length >= 3) this.#openFence();
        else this.#resolveInlineRun('');
        break;
      case Mode.InlineRun:
        this.#resolveInlineRun('');
        break;
      case Mode.CodeRun:
        this.#resolveCodeRun();
        break;
      case Mode.LineMark:
      case Mode.Bang:
        this.#emitHeldThen(Mode.Text);
        break;
      case Mode.BracketClose:
        this.#flushBracketLiteral(true);
        this.#mode = Mode.Text;
        break;
      case Mode.LinkUrl:
        this.#finishLink();
        break;
      case Mode.Emotion: // an unterminated trailing tag
        this.#bracket = null;
        this.#held = '';
        this.#mode = Mode.Text;
        break;
    }
    if (this.#bracket) this.#flushBracketLiteral(false);
  }

  #openBracket(openRaw: number, bangRaw: number): void {
    if (this.#bracket) this.#flushBracketLiteral(false);
    this.#bracket = new HeldBracket(openRaw, bangRaw);
  }

  #flushBracketLiteral(withClose: boolean): void {
    const bracket = this.#bracket;
    if (!bracket) return;
    this.#bracket = null;
    bracket.replayLiteral(this.#emit, withClose);
  }

  #finishLink(): void {
    const bracket = this.#bracket;
    this.#bracket = null;
    this.#mode = Mode.Text;
    if (!bracket || bracket.isImage) return; // an image's alt text is not part of the reply
    bracket.replayContent(this.#emit);
  }

  #out(c: string, i: number): void {
    this.#prevOut = c;
    const bracket = this.#bracket;
    if (!bracket) {
      this.#sink(c, i);
      return;
    }
    bracket.add(c, i);
    if (bracket.length > MAX_BRACKET_CHARS) this.#flushBracketLiteral(false);
  }

  #hold(mode: Mode, c: string, i: number): true {
    this.#mode = mode;
    this.#held = c;
    this.#heldStart = i;
    return true;
  }

  #keep(c: string): true {
    this.#held += c;
    return true;
  }

  #emitHeld(): void {
    const held = this.#held;
    this.#held = '';
    for (let k = 0; k < held.length; k++) this.#out(held[k], this.#heldStart + k);
  }

  #emitHeldThen(mode: Mode): false {
    this.#emitHeld();
    this.#mode = mode;
    return false;
  }
}

/** The whole-text form of the streaming sanitizer, whitespace-normalised: what a reply's chunks add up to. */
export function sanitizeForSpeech(text: string): string {
  const kept: string[] = [];
  const sanitizer = new SpeechSanitizer((c) => kept.push(c));
  sanitizer.write(text);
  sanitizer.end();
  return normalizeWhitespace(kept.join(''));
}
