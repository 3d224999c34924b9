/**
 * Chunker microbenchmark (not a test): throughput and per-delta cost for Korean and English
 * replies streamed in token-sized deltas, against the naive regex sentence splitter of the seed
 * write-up (cursor + terminator regex over the unread tail), measured in the same run.
 *
 *   npm run bench:chunker
 */
import { createChunker } from '@firstword/agents-plugin-tts/chunking';

const ENGLISH_SENTENCES = [
  'Sure, I can help with that.',
  'Your appointment with Dr. Kim is on Tuesday at 3:30 p.m., right after lunch.',
  'The total comes to $1,500, which includes the 3.5% service fee.',
  'If you would like, I can move it to **Thursday** instead — just let me know.',
  'There are three options: the early slot, the afternoon slot, and the evening one.',
  'You can also check the details at https://example.com/booking?id=42 whenever you want.',
  'Okay.',
  'Does that work for you?',
  'I have sent a confirmation to your e-mail, e.g. the one ending in @example.com.',
  'Let me know if anything changes, and I will update the booking right away.',
];

const KOREAN_SENTENCES = [
  '네, 바로 확인해 볼게요.',
  '오늘은 오후 3시에 치과 예약이 하나 있어요.',
  '진료비는 1,500원이고, 주차는 2시간까지 무료예요.',
  '원하시면 **목요일**로 옮겨 드릴 수도 있어요 — 편하게 말씀해 주세요.',
  '가능한 시간은 세 가지예요: 오전 10시, 오후 2시, 그리고 저녁 6시.',
  '자세한 내용은 https://example.com/booking 에서 보실 수 있어요.',
  '네.',
  '괜찮으세요?',
  '그 전에는 푹 쉬셔도 돼요. 물은 충분히 드시고요!',
  '혹시 일정이 바뀌면 언제든지 다시 말씀해 주세요.',
];

/** Deterministic PRNG (mulberry32) so every run measures the same text. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeReplies(sentences: readonly string[], count: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const n = 3 + Math.floor(next() * 8);
    return Array.from({ length: n }, () => sentences[Math.floor(next() * sentences.length)]).join(' ');
  });
}

/**
 * Token-sized deltas like an LLM stream: English tokens average ~4 characters (often a leading
 * space plus a word piece), Korean tokens 1–3 characters.
 */
function tokenize(reply: string, language: 'en' | 'ko', seed: number): string[] {
  const next = random(seed);
  const deltas: string[] = [];
  for (let at = 0; at < reply.length; ) {
    const size = language === 'en' ? 2 + Math.floor(next() * 5) : 1 + Math.floor(next() * 3);
    deltas.push(reply.slice(at, at + size));
    at += size;
  }
  return deltas;
}

/** The naive splitter: rescan the unread tail with a terminator regex on every delta. */
function naiveSplit(deltas: readonly string[]): number {
  let full = '';
  let cursor = 0;
  let chunks = 0;
  for (const delta of deltas) {
    full += delta;
    const tail = full.slice(cursor);
    const terminators = /[.!?。！？\n]/g;
    let lastEnd = -1;
    for (let m = terminators.exec(tail); m !== null; m = terminators.exec(tail)) lastEnd = m.index + 1;
    if (lastEnd > 0) {
      if (tail.slice(0, lastEnd).trim()) chunks++;
      cursor += lastEnd;
    }
  }
  if (full.slice(cursor).trim()) chunks++;
  return chunks;
}

function firstwordSplit(deltas: readonly string[]): number {
  const chunker = createChunker();
  let chunks = 0;
  for (const delta of deltas) chunks += chunker.push(delta).length;
  return chunks + chunker.end().length;
}

interface Measure {
  ms: number;
  chunks: number;
}

/** Median of several timed passes after a warm-up, so JIT tiers and GC noise average out. */
function measure(replies: readonly (readonly string[])[], split: (deltas: readonly string[]) => number): Measure {
  const pass = () => {
    let chunks = 0;
    const started = performance.now();
    for (const deltas of replies) chunks += split(deltas);
    return { ms: performance.now() - started, chunks };
  };
  for (let k = 0; k < 3; k++) pass();
  const runs = Array.from({ length: 9 }, pass).sort((a, b) => a.ms - b.ms);
  return runs[Math.floor(runs.length / 2)];
}

function report(label: string, replies: readonly string[], deltas: readonly (readonly string[])[]): void {
  const bytes = replies.reduce((sum, r) => sum + Buffer.byteLength(r, 'utf8'), 0);
  const deltaCount = deltas.reduce((sum, d) => sum + d.length, 0);
  const ours = measure(deltas, firstwordSplit);
  const naive = measure(deltas, naiveSplit);
  const line = (name: string, m: Measure) =>
    `  ${name.padEnd(10)} ${((bytes / 1e6) / (m.ms / 1e3)).toFixed(1).padStart(7)} MB/s` +
    `  ${((m.ms * 1e3) / deltaCount).toFixed(3).padStart(7)} µs/delta  ${String(m.chunks).padStart(6)} chunks`;
  console.log(
    `${label}: ${replies.length} replies, ${(bytes / 1e6).toFixed(2)} MB UTF-8, ${deltaCount} deltas ` +
      `(avg ${(replies.reduce((s, r) => s + r.length, 0) / deltaCount).toFixed(1)} chars)`,
  );
  console.log(line('firstword', ours));
  console.log(line('naive', naive));
  console.log(`  per-delta cost ratio firstword/naive: ${(ours.ms / naive.ms).toFixed(2)}×`);
}

/** A long reply in 1-character deltas (best of three): the worst case for a splitter that rescans. */
function singleCharDeltas(chars: number, split: (deltas: readonly string[]) => number): number {
  const unit = 'The meeting is at 3:30, okay? 네, 좋아요. ';
  const deltas = Array.from(unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars));
  split(deltas.slice(0, 5000)); // warm-up
  let best = Number.POSITIVE_INFINITY;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    split(deltas);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

function linearity(): void {
  // Amortised O(delta): ten times the text should cost about ten times as much, not a hundred.
  const line = (name: string, split: (deltas: readonly string[]) => number, small: number, large: number) => {
    const a = singleCharDeltas(small, split);
    const b = singleCharDeltas(large, split);
    console.log(
      `  ${name.padEnd(10)} ${String(small / 1000).padStart(3)}k chars ${a.toFixed(1).padStart(8)} ms,` +
        ` ${String(large / 1000).padStart(3)}k chars ${b.toFixed(1).padStart(8)} ms (${(b / a).toFixed(1)}× for ${large / small}× the text)`,
    );
  };
  console.log('Long reply in 1-character deltas:');
  line('firstword', firstwordSplit, 10_000, 100_000);
  line('naive', naiveSplit, 10_000, 30_000); // quadratic: 100k would take seconds
}

const englishReplies = makeReplies(ENGLISH_SENTENCES, 400, 1);
const koreanReplies = makeReplies(KOREAN_SENTENCES, 400, 2);
report('English', englishReplies, englishReplies.map((r, k) => tokenize(r, 'en', 100 + k)));
report('Korean', koreanReplies, koreanReplies.map((r, k) => tokenize(r, 'ko', 200 + k)));
linearity();
console.log(
  'naive = the seed splitter (no sanitizing, no guards: cuts 3.14, Dr., URLs); firstword sanitizes markdown,\n' +
    'keeps raw offsets and applies every guard, in one pass per character.',
);
