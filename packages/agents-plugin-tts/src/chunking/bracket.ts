/** Where a replayed character goes: the sanitizer's output, with its raw offset. */
export type CharOut = (char: string, rawIndex: number) => void;

const EMOTION_PREFIX = 'emotion:';

/**
 * The sanitized content of an open `[`, held back until the bracket turns out to be a link
 * (`[text](url)`: keep the text), an image (`![alt](url)`: drop it), an `[emotion:...]` tag
 * (drop it) or plain prose (`[laugh]`: replay everything literally).
 */
export class HeldBracket {
  readonly openRaw: number;
  /** Raw offset of the `!` of an image, or -1. */
  readonly bangRaw: number;
  closeRaw = -1;
  readonly #chars: string[] = [];
  readonly #raws: number[] = [];
  /** How much of `emotion:` the raw content has matched so far; -1 once it cannot. */
  #emotion = 0;

  constructor(openRaw: number, bangRaw: number) {
    this.openRaw = openRaw;
    this.bangRaw = bangRaw;
  }

  get length(): number {
    return this.#chars.length;
  }

  get isImage(): boolean {
    return this.bangRaw >= 0;
  }

  add(char: string, raw: number): void {
    this.#chars.push(char);
    this.#raws.push(raw);
  }

  /** Feeds the next raw character of the content; true exactly when it completes `emotion:`. */
  completesEmotionTag(char: string): boolean {
    if (this.#emotion < 0) return false;
    if (char.toLowerCase() !== EMOTION_PREFIX[this.#emotion]) {
      this.#emotion = -1;
      return false;
    }
    return ++this.#emotion === EMOTION_PREFIX.length;
  }

  /** Not a link after all: `[`, the content and (if seen) `]` as they were. */
  replayLiteral(out: CharOut, withClose: boolean): void {
    if (this.isImage) out('!', this.bangRaw);
    out('[', this.openRaw);
    this.replayContent(out);
    if (withClose) out(']', this.closeRaw);
  }

  replayContent(out: CharOut): void {
    for (let k = 0; k < this.#chars.length; k++) out(this.#chars[k], this.#raws[k]);
  }
}
