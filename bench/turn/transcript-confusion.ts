/**
 * The transcript detector's confusion on the corpus: at every pause inside an utterance (the
 * words so far) and at its end (all of them). Pauses after words that already read as a whole
 * turn are counted apart: only the voice could tell those, not the words.
 *
 * Two forms of transcript: the pieces as written (with the commas a list is read with), and as a
 * streaming STT tends to give them, a full stop on every final.
 */
import type { AckLanguage } from '../../src/ack/phrases.js';
import { isTurnComplete } from '../../src/turn/transcript-detector.js';
import type { CorpusUtterance } from './corpus-types.js';

export type TranscriptForm = 'as written' | 'STT full stops';

export interface Confusion {
  language: AckLanguage;
  form: TranscriptForm;
  /** Clear pauses (the words so far are not a turn): judged unfinished (right) / over (a false end). */
  clearJudgedUnfinished: number;
  clearJudgedOver: number;
  /** Ambiguous pauses (the words so far are a turn). */
  ambiguousJudgedUnfinished: number;
  ambiguousJudgedOver: number;
  /** Whole utterances: judged over (right) / unfinished (the commit waits maxDelay). */
  finalJudgedOver: number;
  finalJudgedUnfinished: number;
  /** Each wrong call on a clear pause or a final, with its text. */
  misses: string[];
}

export function withSttFullStops(text: string): string {
  return `${text.replace(/[\s.,?!…]+$/u, '')}.`;
}

export function transcriptConfusion(corpus: readonly CorpusUtterance[]): Confusion[] {
  const out: Confusion[] = [];
  for (const form of ['as written', 'STT full stops'] as const) {
    for (const language of ['ko', 'en'] as const) {
      const c: Confusion = { language, form, clearJudgedUnfinished: 0, clearJudgedOver: 0, ambiguousJudgedUnfinished: 0, ambiguousJudgedOver: 0, finalJudgedOver: 0, finalJudgedUnfinished: 0, misses: [] };
      for (const u of corpus.filter((x) => x.language === language)) {
        const pieces = u.pieces.map((p) => (form === 'as written' ? p.text : withSttFullStops(p.text)));
        pieces.forEach((_, i) => {
          const text = pieces.slice(0, i + 1).join(' ');
          const over = isTurnComplete(text, language);
          if (i === pieces.length - 1) {
            if (over) c.finalJudgedOver++;
            else {
              c.finalJudgedUnfinished++;
              c.misses.push(`${u.id} end judged unfinished: "${text}"`);
            }
          } else if (u.pieces[i]!.completeSoFar) {
            if (over) c.ambiguousJudgedOver++;
            else c.ambiguousJudgedUnfinished++;
          } else if (over) {
            c.clearJudgedOver++;
            c.misses.push(`${u.id} pause ${i + 1} judged over: "${text}"`);
          } else c.clearJudgedUnfinished++;
        });
      }
      out.push(c);
    }
  }
  return out;
}
