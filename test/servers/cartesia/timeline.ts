/**
 * Word and phoneme timings of a context. Times are seconds from the start of the context's audio and
 * keep counting across continuations (B.4). Pieces are joined verbatim, so a word split across two
 * inputs ("Hel" + "lo there") is reported once, as "Hello", spanning both pieces; words keep their
 * attached punctuation ("there,").
 */
import type { TimedUnits } from './protocol.js';

export interface TimedUnit {
  text: string;
  start: number;
  end: number;
}

export interface PieceTimings {
  /** Context time at which this piece's audio starts. */
  startSec: number;
  /** Words complete by the end of this piece (a word the piece ends inside is held back). */
  words: TimedUnit[];
  /** One "phoneme" per non-space character of the piece (a stand-in; real phonemes are IPA). */
  phonemes: TimedUnit[];
}

const isSpace = (ch: string): boolean => /\s/u.test(ch);
const round = (seconds: number): number => Math.round(seconds * 1e6) / 1e6;

export function toTimedUnits(units: TimedUnit[]): TimedUnits {
  return {
    units: units.map((u) => u.text),
    start: units.map((u) => u.start),
    end: units.map((u) => u.end),
  };
}

export class ContextTimeline {
  #offsetSec = 0;
  #held: TimedUnit | undefined;

  /** Lays out one piece whose audio lasts `durationSec`, each code point taking `secPerChar`. */
  addPiece(text: string, durationSec: number, secPerChar: number): PieceTimings {
    const startSec = this.#offsetSec;
    const chars = [...text];
    const at = (index: number): number => round(startSec + Math.min(index * secPerChar, durationSec));
    const words: TimedUnit[] = [];
    const phonemes: TimedUnit[] = [];

    if (chars.length > 0 && this.#held && isSpace(chars[0]!)) words.push(this.#takeHeld()!);
    let i = 0;
    while (i < chars.length) {
      if (isSpace(chars[i]!)) {
        i++;
        continue;
      }
      let j = i;
      while (j < chars.length && !isSpace(chars[j]!)) {
        phonemes.push({ text: chars[j]!, start: at(j), end: at(j + 1) });
        j++;
      }
      const word = { text: chars.slice(i, j).join(''), start: at(i), end: at(j) };
      const held = i === 0 ? this.#takeHeld() : undefined;
      words.push(held ? { text: held.text + word.text, start: held.start, end: word.end } : word);
      i = j;
    }
    if (chars.length > 0 && !isSpace(chars[chars.length - 1]!)) this.#held = words.pop();

    this.#offsetSec += durationSec;
    return { startSec, words, phonemes };
  }

  /** The word a piece ended inside, once the segment is over (flush or end of input). */
  release(): TimedUnit[] {
    const held = this.#takeHeld();
    return held ? [held] : [];
  }

  #takeHeld(): TimedUnit | undefined {
    const held = this.#held;
    this.#held = undefined;
    return held;
  }
}
