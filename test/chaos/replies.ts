/**
 * Random, speakable replies whose clauses never repeat (so every text on the wire identifies one
 * chunk of one turn), cut into LLM-like deltas at random points.
 */
import type { Rng } from './prng.js';

const SYLLABLES = ['ba', 'ko', 'ri', 'mu', 'sa', 'te', 'lo', 'ni', 'ga', 'pe', 'du', 'vi', 'ra', 'zo', 'me', 'ki', 'fa', 'shu', 'to', 'ne'];
const CLAUSE_END = [',', ',', ';', ':'] as const;
const SENTENCE_END = ['.', '.', '!', '?'] as const;

function word(rng: Rng): string {
  let w = '';
  const n = rng.int(1, 3);
  for (let i = 0; i < n; i++) w += rng.pick(SYLLABLES);
  return w;
}

function clause(rng: Rng): string {
  const words: string[] = [];
  const n = rng.int(3, 9);
  for (let i = 0; i < n; i++) words.push(word(rng));
  return words.join(' ');
}

/** `sentences` sentences of 1–3 clauses each. */
export function randomReply(rng: Rng, sentences = rng.int(1, 5)): string {
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const clauses = rng.int(1, 3);
    let sentence = '';
    for (let c = 0; c < clauses; c++) {
      sentence += clause(rng);
      sentence += c < clauses - 1 ? `${rng.pick(CLAUSE_END)} ` : rng.pick(SENTENCE_END);
    }
    out.push(sentence.charAt(0).toUpperCase() + sentence.slice(1));
  }
  return out.join(' ');
}

/** Cuts `text` into deltas of 1–`maxLen` characters (never inside a surrogate pair). */
export function randomDeltas(rng: Rng, text: string, maxLen = 8): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; ) {
    const n = rng.int(1, maxLen);
    out.push(chars.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}
