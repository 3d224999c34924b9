import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Chunk, createChunker } from '@firstword/agents-plugin-tts/chunking';
import { DEFAULT_CHARS_PER_SECOND, heardPrefix, type VoicedSpan, type WordTiming } from '../../src/heard/index.js';

const RATE = 1000; // one sample per millisecond keeps the arithmetic readable
const MS_PER_CHAR = 10;

/** Fixtures keep several words per first chunk (the older default): heard text is what is tested. */
function chunksOf(reply: string, options: Parameters<typeof createChunker>[0] = { firstChunkMinWords: 3 }): Chunk[] {
  const chunker = createChunker(options);
  return [...chunker.push(reply), ...chunker.end()];
}

/** One span per chunk, MS_PER_CHAR per code point of the chunk text (a Resemble request each). */
function perChunkSpans(chunks: Chunk[]): VoicedSpan[] {
  let at = 0;
  return chunks.map((chunk) => {
    const startSample = at;
    at += [...chunk.text].length * MS_PER_CHAR;
    return { chunks: [chunk], startSample, endSample: at };
  });
}

/** Word timings as a per-chunk provider gives them: ends at the word's last character. */
function timingsOf(spans: VoicedSpan[]): WordTiming[] {
  const out: WordTiming[] = [];
  for (const span of spans) {
    let index = 0;
    for (const word of span.chunks[0]!.text.split(' ')) {
      const len = [...word].length;
      out.push({
        text: `${word} `,
        startTime: (span.startSample + index * MS_PER_CHAR) / RATE,
        endTime: (span.startSample + (index + len) * MS_PER_CHAR) / RATE,
      });
      index += len + 1;
    }
  }
  return out;
}

/** Reference for a plain reply voiced per chunk: the words whose last character fully played. */
function wordsPlayedThrough(chunks: Chunk[], playedMs: number): string {
  const words: string[] = [];
  let at = 0;
  for (const chunk of chunks) {
    let index = 0;
    for (const word of chunk.text.split(' ')) {
      index += [...word].length;
      if (at + index * MS_PER_CHAR > playedMs) return words.join(' ');
      words.push(word);
      index += 1;
    }
    at += [...chunk.text].length * MS_PER_CHAR;
  }
  return words.join(' ');
}

const EN = 'Sure, the museum opens at nine tomorrow morning. Afterwards you could walk along the riverside promenade.';
const KO = '네, 박물관은 내일 아침 아홉 시에 문을 열어요. 관람이 끝나면 강변 산책로를 따라 걸어 보세요.';

describe('heardPrefix', () => {
  it('keeps the words whose audio played to the end, across chunks (English)', () => {
    const chunks = chunksOf(EN);
    expect(chunks.length).toBeGreaterThan(1);
    const spans = perChunkSpans(chunks);
    const at = (playedMs: number) => heardPrefix({ reply: EN, spans, playedSamples: playedMs, sampleRate: RATE }).text;
    expect(at(0)).toBe('');
    expect(at(49)).toBe(''); // "Sure," ends at 50 ms
    expect(at(50)).toBe('Sure,');
    expect(at(95)).toBe('Sure, the'); // inside "museum"
    const first = [...chunks[0]!.text].length * MS_PER_CHAR;
    expect(at(first)).toBe(chunks[0]!.text);
    expect(at(first + 60)).toBe(`${chunks[0]!.text}`); // "Afterwards" is 10 chars
    expect(at(first + 100)).toBe(`${chunks[0]!.text} Afterwards`);
    expect(at(1e9)).toBe(EN);
  });

  it('cuts Korean at eojeol boundaries', () => {
    const chunks = chunksOf(KO);
    const spans = perChunkSpans(chunks);
    const at = (playedMs: number) => heardPrefix({ reply: KO, spans, playedSamples: playedMs, sampleRate: RATE }).text;
    expect(at(20)).toBe('네,');
    expect(at(50)).toBe('네,'); // "박물관은" ends at 70 ms
    expect(at(70)).toBe('네, 박물관은');
    expect(at(269)).toBe('네, 박물관은 내일 아침 아홉 시에 문을');
  });

  it('treats each ideograph and kana as a word', () => {
    const reply = '東京へ行きます。';
    const spans = perChunkSpans(chunksOf(reply));
    expect(heardPrefix({ reply, spans, playedSamples: 35, sampleRate: RATE }).text).toBe('東京へ');
  });

  it('keeps the markup around heard words and drops what was never voiced', () => {
    const reply = '**Sure**, the _museum_ opens at [nine](https://example.com/hours) tomorrow. ```card\n| a |\n```\nBye now.';
    const chunks = chunksOf(reply, { policy: 'sentence' });
    const spans = perChunkSpans(chunks);
    const at = (playedMs: number) => heardPrefix({ reply, spans, playedSamples: playedMs, sampleRate: RATE }).text;
    expect(chunks[0]!.text).toBe('Sure, the museum opens at nine tomorrow.');
    expect(at(160)).toBe('**Sure**, the _museum_');
    expect(at(300)).toBe('**Sure**, the _museum_ opens at [nine](https://example.com/hours)');
  });

  it('places the cut proportionally inside one stretch of audio that voices several chunks', () => {
    const chunks = chunksOf(EN);
    const joined = chunks.map((c) => c.text).join(' ');
    const total = [...joined].length * MS_PER_CHAR;
    const spans: VoicedSpan[] = [{ chunks, startSample: 0, endSample: total }];
    const expectedAt = (playedMs: number): string => {
      const words: string[] = [];
      let at = 0;
      for (const word of joined.split(' ')) {
        const end = at + [...word].length;
        if (end * MS_PER_CHAR > playedMs) break;
        words.push(word);
        at = end + 1;
      }
      return words.join(' ');
    };
    for (const playedMs of [0, 45, 50, 130, 480, 490, 700, total - 1, total]) {
      const heard = heardPrefix({ reply: EN, spans, playedSamples: playedMs, sampleRate: RATE });
      expect(heard.text, `at ${playedMs} ms`).toBe(expectedAt(playedMs));
    }
    expect(heardPrefix({ reply: EN, spans, playedSamples: 130, sampleRate: RATE }).source).toBe('audio');
  });

  it('uses word timings when given, even when the provider split words across frames', () => {
    const chunks = chunksOf(EN);
    const spans = perChunkSpans(chunks);
    // A client that attaches timings per frame reports "museum" as "mu " + "seum ".
    const timings = timingsOf(spans).flatMap((t) => {
      const word = t.text.trim();
      if (word.length < 6) return [t];
      const mid = (t.startTime! + t.endTime!) / 2;
      return [
        { text: `${word.slice(0, 2)} `, startTime: t.startTime, endTime: mid },
        { text: `${word.slice(2)} `, startTime: mid, endTime: t.endTime },
      ];
    });
    const at = (playedMs: number) =>
      heardPrefix({ reply: EN, spans, playedSamples: playedMs, sampleRate: RATE, timings });
    expect(at(140).text).toBe('Sure, the'); // "museum" ends at 160 ms, its first half at 130
    expect(at(140).source).toBe('timings');
    expect(at(160).text).toBe('Sure, the museum');
  });

  it('matches timings whose spelling differs from the chunk text (numbers read out) word for word', () => {
    const reply = 'It costs 3 dollars today.';
    const chunks = chunksOf(reply, { policy: 'unit' });
    const spoken = ['It', 'costs', 'three', 'dollars', 'today.'];
    const timings: WordTiming[] = [];
    let index = 0;
    for (const word of spoken) {
      timings.push({ text: word, startTime: (index * MS_PER_CHAR) / RATE, endTime: ((index + word.length) * MS_PER_CHAR) / RATE });
      index += word.length + 1;
    }
    const spans: VoicedSpan[] = [{ chunks, startSample: 0, endSample: (index - 1) * MS_PER_CHAR }];
    const at = (playedMs: number) => heardPrefix({ reply, spans, playedSamples: playedMs, sampleRate: RATE, timings }).text;
    expect(at(130)).toBe('It costs'); // inside "three"
    expect(at(140)).toBe('It costs 3'); // "three" played
    expect(at(10_000)).toBe(reply);
  });

  it('estimates by the rate measured on complete spans while the current audio is still arriving', () => {
    const chunks = chunksOf(EN);
    const [first, ...rest] = perChunkSpans(chunks);
    const open: VoicedSpan = { chunks: rest.flatMap((s) => s.chunks), startSample: first!.endSample! };
    const playedMs = first!.endSample! + 100; // "Afterwards" is 10 chars = 100 ms
    const heard = heardPrefix({ reply: EN, spans: [first!, open], playedSamples: playedMs, sampleRate: RATE });
    expect(heard.source).toBe('estimate');
    expect(heard.text).toBe(`${chunks[0]!.text} Afterwards`);
  });

  it('falls back to the hinted rate, then to a per-language default, when nothing is complete yet', () => {
    const koChunks = chunksOf(KO);
    const open: VoicedSpan = { chunks: koChunks, startSample: 0 };
    // The Korean default rate (8 chars/s): 400 ms ≈ 3.2 chars → "네," only.
    expect(DEFAULT_CHARS_PER_SECOND.korean * 0.4).toBeLessThan(4);
    expect(heardPrefix({ reply: KO, spans: [open], playedSamples: 400, sampleRate: RATE }).text).toBe('네,');
    // A learned 100 chars/s: 400 ms = 40 chars, and "강변" ends at char 38.
    expect(heardPrefix({ reply: KO, spans: [open], playedSamples: 400, sampleRate: RATE, charsPerSecond: 100 }).text).toBe(
      '네, 박물관은 내일 아침 아홉 시에 문을 열어요. 관람이 끝나면 강변',
    );
  });

  it('is always a prefix of the reply, grows with playback, and matches a per-chunk reference', () => {
    const word = fc.oneof(
      fc.constantFrom('the', 'museum', 'opens', 'tomorrow', 'walk', 'promenade', 'nine,', 'today.', 'Yes!', 'well;'),
      fc.constantFrom('네,', '박물관은', '내일', '아침', '열어요.', '걸어', '보세요.', '산책로를'),
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 40 }),
        fc.array(fc.nat({ max: 5000 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        (words, played, withTimings) => {
          const reply = words.join(' ');
          const chunks = chunksOf(reply);
          const spans = perChunkSpans(chunks);
          const timings = withTimings ? timingsOf(spans) : undefined;
          let previous = -1;
          for (const ms of [...played].sort((a, b) => a - b)) {
            const heard = heardPrefix({ reply, spans, playedSamples: ms, sampleRate: RATE, timings });
            expect(reply.startsWith(heard.text)).toBe(true);
            expect(heard.text.length).toBeGreaterThanOrEqual(previous);
            expect(heard.text).toBe(wordsPlayedThrough(chunks, ms));
            previous = heard.text.length;
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
