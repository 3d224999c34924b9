/**
 * A transcript as the end-of-turn rules read it: its words, lower-cased, and how it ends.
 *
 * Punctuation is kept only as weak evidence: streaming STTs put a full stop on every final, even
 * in mid-sentence, so a '.' says nothing; an ellipsis, a dash, a trailing comma or a '?' does
 * say something when an STT writes one.
 */
import { containsHangul } from '@firstword/agents-plugin-tts/chunking';

export type WordScript = 'hangul' | 'latin' | 'digits' | 'other';

export interface TranscriptWord {
  text: string;
  script: WordScript;
  /** The punctuation between this word and the next one (or the end of the transcript). */
  after: string;
}

/** What the transcript's last punctuation says: trailing off, mid-list, a question, or nothing. */
export type TranscriptEnding = 'ellipsis' | 'comma' | 'question' | 'none';

export interface TranscriptWords {
  words: TranscriptWord[];
  ending: TranscriptEnding;
}

// A word is letters and digits, with inner apostrophes ("what's", "don't").
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;
const PUNCTUATION = /[\p{P}\p{S}]/gu;

export function readTranscript(text: string): TranscriptWords {
  const normal = text.normalize('NFC').toLowerCase();
  const matches = [...normal.matchAll(WORD)];
  const words = matches.map((match, i): TranscriptWord => {
    const end = match.index + match[0].length;
    const next = matches[i + 1]?.index ?? normal.length;
    return { text: match[0].replace('’', "'"), script: scriptOf(match[0]), after: punctuationIn(normal.slice(end, next)) };
  });
  return { words, ending: endingOf(words.at(-1)?.after ?? '') };
}

function scriptOf(word: string): WordScript {
  if (/^\p{N}+$/u.test(word)) return 'digits';
  if (containsHangul(word)) return 'hangul';
  if (/[a-z]/.test(word)) return 'latin';
  return 'other';
}

function punctuationIn(between: string): string {
  return (between.match(PUNCTUATION) ?? []).join('');
}

function endingOf(after: string): TranscriptEnding {
  if (after.includes('…') || after.includes('..') || /[-–—~]$/u.test(after)) return 'ellipsis';
  const last = after.replace(/["'”’)\]]+$/u, '').at(-1);
  if (last === '?' || last === '？') return 'question';
  if (last === ',' || last === '、' || last === '，') return 'comma';
  return 'none';
}

/** The run of trailing words that satisfy `test`, allowing any punctuation between them. */
export function trailingRun(words: readonly TranscriptWord[], test: (word: TranscriptWord) => boolean): TranscriptWord[] {
  let start = words.length;
  while (start > 0 && test(words[start - 1]!)) start--;
  return words.slice(start);
}

/** Whether a separator (comma or stop) stands between word `i` and the next. */
export function separatedAfter(word: TranscriptWord): boolean {
  return /[,.;、，。]/u.test(word.after);
}
