/**
 * A simulated LLM: a reply cut into token-like deltas with arrival times. The same trace is
 * replayed for every strategy, so they all hear exactly the same LLM.
 *
 * Tokens look like a BPE tokenizer's: English words with their leading space (long words in ~4
 * character pieces), Korean in 1–2 syllable pieces, digits in groups of up to three, punctuation
 * and newlines on their own. A sentence end is therefore confirmed only by the next token's
 * leading space, as with a real LLM.
 */
import { seededRandom } from '../test/servers/prng.js';
import { HANGUL_CHARACTER_CLASS, isHangulSyllable } from '@firstword/agents-plugin-tts/chunking';
import type { Language } from './scenarios.js';

export interface TraceOptions {
  /** LLM request → first token, ms. */
  firstTokenMs: number;
  tokensPerSecond: number;
  /** Each gap varies uniformly by ± this fraction (0 = a steady stream). */
  jitter: number;
  seed: number;
}

export interface Trace {
  tokens: string[];
  /** Arrival of each token, ms after the LLM request. */
  at: number[];
  /** Arrival of the last token (the LLM is done). */
  endMs: number;
}

export { seededRandom };

const PIECES = new RegExp(`(\\s*)([A-Za-z']+|[${HANGUL_CHARACTER_CLASS}]+|\\d+|[^\\sA-Za-z'${HANGUL_CHARACTER_CLASS}\\d])`, 'gu');

export function tokenize(text: string, language: Language, seed: number): string[] {
  const random = seededRandom(seed);
  const tokens: string[] = [];
  for (const match of text.matchAll(PIECES)) {
    let space = match[1] ?? '';
    const body = match[2]!;
    // A newline is a token of its own; other whitespace leads the next piece.
    const newline = space.lastIndexOf('\n');
    if (newline >= 0) {
      tokens.push(space.slice(0, newline + 1));
      space = space.slice(newline + 1);
    }
    const sizes = pieceSizes(body, language, random);
    let offset = 0;
    for (const [i, size] of sizes.entries()) {
      tokens.push((i === 0 ? space : '') + body.slice(offset, offset + size));
      offset += size;
    }
  }
  const trailing = text.match(/\s+$/u)?.[0];
  if (trailing) tokens.push(trailing);
  if (tokens.join('') !== text) throw new Error('tokenize lost characters');
  return tokens;
}

function pieceSizes(body: string, language: Language, random: () => number): number[] {
  const sizes: number[] = [];
  let left = body.length;
  const hangul = body.length > 0 && isHangulSyllable(body.charCodeAt(0));
  const isDigits = /^\d/u.test(body);
  while (left > 0) {
    let size: number;
    if (isDigits) size = 3;
    else if (hangul) size = random() < 0.5 ? 1 : 2;
    else if (language === 'en' || /^[A-Za-z]/u.test(body)) size = left <= 6 ? left : 3 + Math.floor(random() * 3);
    else size = 1;
    size = Math.min(size, left);
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

export function makeTrace(text: string, language: Language, options: TraceOptions): Trace {
  const tokens = tokenize(text, language, options.seed);
  const random = seededRandom(options.seed ^ 0x9e3779b9);
  const gap = 1000 / options.tokensPerSecond;
  const at: number[] = [];
  let t = options.firstTokenMs;
  for (let i = 0; i < tokens.length; i++) {
    if (i > 0) t += gap * (1 + options.jitter * (2 * random() - 1));
    at.push(t);
  }
  return { tokens, at, endMs: at[at.length - 1] ?? options.firstTokenMs };
}

export interface TraceSink {
  push(token: string): void;
  end(): void;
}

/**
 * Replays a trace against the wall clock from `t0` (performance.now() of the LLM request). Each
 * token is scheduled from t0, not from the previous one, so timer lateness never accumulates.
 */
export async function replay(trace: Trace, t0: number, sink: TraceSink): Promise<void> {
  for (let i = 0; i < trace.tokens.length; i++) {
    const wait = t0 + trace.at[i]! - performance.now();
    if (wait > 0.5) await new Promise((resolve) => setTimeout(resolve, wait));
    sink.push(trace.tokens[i]!);
  }
  sink.end();
}

/** Characters per token of a trace (for the printed configuration). */
export function charsPerToken(trace: Trace): number {
  return trace.tokens.join('').length / Math.max(1, trace.tokens.length);
}
