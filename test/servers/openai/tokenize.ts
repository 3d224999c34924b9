/**
 * Deterministic stand-in for a BPE tokenizer, so plain-text replies stream the way a real model's
 * do: a word carries its leading space (" Hello"), words longer than 6 letters come in 4-letter
 * pieces (" unde", "rsta", "ndin", "g" — the first piece keeps the space), Korean comes in pieces of
 * two syllables (" 안녕", "하세", "요"), digits in groups of up to three, every other non-space
 * character (punctuation, emoji) alone, a newline run alone. A sentence end is thus only certain
 * once the next token's leading space arrives, as with a real model. Tokens always join back to
 * exactly the input.
 */
import { HANGUL_CHARACTER_CLASS, containsHangul } from '@firstword/agents-plugin-tts/chunking';

/** One streamed token and when it leaves, in ms after the request arrived. */
export interface TimedToken {
  text: string;
  atMs: number;
}

/** An explicit reply: the exact token trace to replay. `atMs` must be non-decreasing. */
export interface ReplyTrace {
  tokens: TimedToken[];
}

const PIECES = new RegExp(`(\\s*)([${HANGUL_CHARACTER_CLASS}]+|[\\p{L}\\p{M}']+|\\p{N}+|[^\\s\\p{L}\\p{M}\\p{N}'])`, 'gu');

function pieceSize(body: string): number {
  if (containsHangul(body)) return 2;
  if (/^\p{N}+$/u.test(body)) return 3;
  return body.length > 6 ? 4 : body.length;
}

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(PIECES)) {
    let space = match[1] ?? '';
    const body = [...match[2]!];
    const newline = space.lastIndexOf('\n');
    if (newline >= 0) {
      tokens.push(space.slice(0, newline + 1));
      space = space.slice(newline + 1);
    }
    const size = pieceSize(match[2]!);
    for (let offset = 0; offset < body.length; offset += size) {
      tokens.push((offset === 0 ? space : '') + body.slice(offset, offset + size).join(''));
    }
  }
  const trailing = /\s+$/u.exec(text)?.[0];
  if (trailing && tokens.join('') !== text) tokens.push(trailing);
  return tokens;
}

/** Plain reply → trace: first token at `firstTokenDelayMs`, then one every `1000 / tokensPerSecond` ms. */
export function plainTrace(text: string, timing: { firstTokenDelayMs: number; tokensPerSecond: number }): ReplyTrace {
  const gap = 1000 / timing.tokensPerSecond;
  return { tokens: tokenize(text).map((token, i) => ({ text: token, atMs: timing.firstTokenDelayMs + i * gap })) };
}

export function traceText(trace: ReplyTrace): string {
  return trace.tokens.map((t) => t.text).join('');
}

/** Why a trace cannot be replayed, or undefined. */
export function traceProblem(trace: ReplyTrace): string | undefined {
  let previous = 0;
  for (const [i, token] of trace.tokens.entries()) {
    if (typeof token.text !== 'string') return `tokens[${i}].text must be a string`;
    if (!Number.isFinite(token.atMs) || token.atMs < 0) return `tokens[${i}].atMs must be a finite number >= 0`;
    if (token.atMs < previous) return `tokens[${i}].atMs goes back in time (${token.atMs} < ${previous})`;
    previous = token.atMs;
  }
  return undefined;
}
