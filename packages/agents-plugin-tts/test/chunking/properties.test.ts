import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Chunk, type ChunkerOptions, createChunker, sanitizeForSpeech } from '../../src/chunking/index.js';
import { chunksOf, feed, sanitizeStreamed, splitAt, withoutWhitespace } from './helpers.js';

/** A long soak: FC_RUNS_SCALE=50 npx vitest run test/chunking/properties.test.ts --testTimeout=900000 */
const runs = (n: number) => n * Number(process.env.FC_RUNS_SCALE ?? 1);

const ENGLISH = ['hello', 'the', 'meeting', 'is', 'ready', 'Sure', 'Dr.', 'Mr.', 'e.g.', 'U.S.', 'etc.', 'p.m.', 'J.', 'snake_case', 'C#', '#1', '😀'];
const KOREAN = ['네', '안녕하세요', '오늘은', '날씨가', '좋아요', '했다', '그래서', '3시에', '1,500원', '예약이', '「좋아요」', '요'];
const NUMBERS = ['3.14', '1,500', '3:30', '2.0.1', '-5', '3~5', '50%', '10'];
const LINKS = ['https://ex.com/a.b?c=1', 'www.x.io', 'me@x.io', 'http://예시.한국'];
const PUNCTUATION = ['.', '. ', ',', ', ', '?', '! ', '?!', '...', '… ', '。', '！', '，', '、', ': ', ';', ' —', '—', ' – ', ' - ', '"', ')', '」', "'"];
const MARKUP = [
  '**', '*', '_', '`', '``', '~~', '~', '[', ']', '(', ')', '](http://x.y/(a))', '[link](http://a.b)', '![img](u)',
  '\n# ', '\n## ', '\n- ', '\n* ', '\n+ ', '\n1. ', '\n2) ', '\n> ', '\n---\n', '\n| a | b |\n|---|---|\n',
  '\n```card\n| x |\n```\n', '\n```\ncode', '\n~~~\n', '[emotion:warm]', '[emotion:', '[laugh]', '!', '\n', '\n\n', '\t',
];
const SEPARATORS = [' ', ' ', ' ', '', '  ', '\n'];

const piece = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...ENGLISH) },
  { weight: 5, arbitrary: fc.constantFrom(...KOREAN) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 1, arbitrary: fc.constantFrom(...LINKS) },
  { weight: 4, arbitrary: fc.constantFrom(...PUNCTUATION) },
  { weight: 3, arbitrary: fc.constantFrom(...MARKUP) },
);

/** Replies mixing Korean and English words, numbers, links, punctuation and markdown. */
const replyArb = fc
  .array(fc.tuple(piece, fc.constantFrom(...SEPARATORS)), { minLength: 0, maxLength: 80 })
  .map((parts) => parts.map(([p, sep]) => p + sep).join(''));

/** Prose only: no markup, so every chunk's text is its raw range, whitespace-normalised. */
const proseArb = fc
  .array(
    fc.tuple(fc.constantFrom(...ENGLISH, ...KOREAN, ...NUMBERS, ...LINKS, ...PUNCTUATION), fc.constantFrom(' ', ' ', '', '\n')),
    { maxLength: 80 },
  )
  .map((parts) => withoutBullets(parts.map(([p, sep]) => p + sep).join('').replace(/[*_`~#>|[\]]/g, '')));

/** Drops `-`/`+` that would start a line (bullets), repeatedly: removing one can expose another. */
function withoutBullets(text: string): string {
  const stripped = text.replace(/(^|\n)([ \t]*)[-+]+/g, '$1$2');
  return stripped === text ? text : withoutBullets(stripped);
}

const cutsArb = fc.array(fc.nat({ max: 1000 }), { maxLength: 60 });

const OPTION_SETS: ReadonlyArray<ChunkerOptions> = [
  {},
  { policy: 'sentence' },
  { policy: 'unit' },
  { maxChunkChars: 30 },
  { policy: 'unit', maxChunkChars: 25 },
  { firstChunkMinWords: 3, minSentenceChars: 0 },
];
const optionsArb = fc.constantFrom(...OPTION_SETS);

function expectWellFormed(chunks: Chunk[], reply: string, options: ChunkerOptions): void {
  let previousEnd = 0;
  for (const chunk of chunks) {
    expect(chunk.text).not.toBe('');
    expect(chunk.text).toBe(chunk.text.replace(/\s+/g, ' ').trim());
    expect(chunk.start).toBeGreaterThanOrEqual(previousEnd);
    expect(chunk.end).toBeGreaterThan(chunk.start);
    expect(chunk.end).toBeLessThanOrEqual(reply.length);
    if (options.maxChunkChars) expect(chunk.text.length).toBeLessThanOrEqual(options.maxChunkChars);
    previousEnd = chunk.end;
  }
}

describe('chunker properties over generated replies and random delta cuts', () => {
  it('chunks do not depend on how the reply was cut into deltas', () => {
    fc.assert(
      fc.property(replyArb, cutsArb, optionsArb, (reply, cuts, options) => {
        expect(chunksOf(reply, options, splitAt(reply, cuts))).toEqual(chunksOf(reply, options));
      }),
      { numRuns: runs(300) },
    );
  });

  it('chunk texts joined equal the sanitized reply, modulo whitespace', () => {
    fc.assert(
      fc.property(replyArb, cutsArb, optionsArb, (reply, cuts, options) => {
        const chunks = chunksOf(reply, options, splitAt(reply, cuts));
        expect(withoutWhitespace(chunks.map((c) => c.text).join(''))).toBe(withoutWhitespace(sanitizeForSpeech(reply)));
      }),
      { numRuns: runs(300) },
    );
  });

  it('ranges are ordered, non-overlapping, non-empty and inside the reply', () => {
    fc.assert(
      fc.property(replyArb, cutsArb, optionsArb, (reply, cuts, options) => {
        expectWellFormed(chunksOf(reply, options, splitAt(reply, cuts)), reply, options);
      }),
      { numRuns: runs(300) },
    );
  });

  it('for prose, ranges tile the reply and each text is its raw range', () => {
    fc.assert(
      fc.property(proseArb, cutsArb, optionsArb, (reply, cuts, options) => {
        const chunks = chunksOf(reply, options, splitAt(reply, cuts));
        chunks.forEach((chunk, k) => {
          expect(chunk.start).toBe(k === 0 ? 0 : chunks[k - 1].end);
          expect(chunk.text).toBe(reply.slice(chunk.start, chunk.end).replace(/\s+/g, ' ').trim());
        });
        expect(reply.slice(chunks.at(-1)?.end ?? 0).trim()).toBe('');
      }),
      { numRuns: runs(300) },
    );
  });

  it('with flushes at fixed places, chunks still do not depend on the cuts in between', () => {
    fc.assert(
      fc.property(fc.array(replyArb, { minLength: 1, maxLength: 4 }), cutsArb, optionsArb, (units, cuts, options) => {
        const run = (split: boolean) => {
          const chunker = createChunker(options);
          const chunks: Chunk[] = [];
          for (const unit of units) {
            chunks.push(...feed(chunker, split ? splitAt(unit, cuts) : [unit]));
            chunks.push(...chunker.flush());
          }
          chunks.push(...chunker.end());
          return chunks;
        };
        const whole = run(false);
        expect(run(true)).toEqual(whole);
        expectWellFormed(whole, units.join(''), options);
      }),
      { numRuns: runs(200) },
    );
  });

  it('a chunker reused after end() behaves like a fresh one', () => {
    fc.assert(
      fc.property(replyArb, replyArb, optionsArb, (first, second, options) => {
        const chunker = createChunker(options);
        feed(chunker, [first]);
        chunker.end();
        const again = [...chunker.push(second), ...chunker.end()];
        expect(again).toEqual(chunksOf(second, options));
      }),
      { numRuns: runs(200) },
    );
  });
});

describe('sanitizer properties', () => {
  it('keeps only raw characters, in order, the same for any cuts', () => {
    fc.assert(
      fc.property(replyArb, cutsArb, (reply, cuts) => {
        const whole = sanitizeStreamed([reply]);
        expect(sanitizeStreamed(splitAt(reply, cuts))).toEqual(whole);
        whole.raws.forEach((raw, k) => {
          expect(reply[raw]).toBe(whole.chars[k]);
          if (k > 0) expect(raw).toBeGreaterThan(whole.raws[k - 1]);
        });
      }),
      { numRuns: runs(300) },
    );
  });

  it('passes prose through unchanged', () => {
    fc.assert(
      fc.property(proseArb, (reply) => {
        expect(sanitizeForSpeech(reply)).toBe(reply.replace(/\s+/g, ' ').trim());
      }),
      { numRuns: runs(300) },
    );
  });
});
