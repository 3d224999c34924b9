/**
 * The floor of time to first audio for a trace: LLM first token + time until the first clause's
 * text is complete + provider first byte. "First clause" is the first chunk of the asymmetric
 * policy with default options (first clause boundary after a few words, or the forced word-limit
 * cut) — the shortest text the product agrees to speak on its own.
 *
 * Two moments are reported: when the clause's last character arrived (`floorMs`, physics), and
 * when the chunker could be sure of the boundary (`certainMs`): `Hello,` is only a clause once
 * the next token shows a space after the comma (not `1,500`).
 */
import { createChunker } from '@firstword/agents-plugin-tts/chunking';
import type { Trace } from './llm.js';

export interface Floor {
  /** LLM request → first clause's text complete → + provider first byte, ms. */
  floorMs: number;
  /** LLM request → first clause boundary certain → + provider first byte, ms. */
  certainMs: number;
  firstClause: string;
}

export function floorOf(trace: Trace, firstByteMs: number): Floor {
  const chunker = createChunker({ policy: 'asymmetric' });
  let tokenIndex = -1;
  let chunk = undefined as ReturnType<typeof chunker.push>[number] | undefined;
  for (let i = 0; i < trace.tokens.length && !chunk; i++) {
    chunk = chunker.push(trace.tokens[i]!)[0];
    if (chunk) tokenIndex = i;
  }
  if (!chunk) {
    chunk = chunker.end()[0]!;
    tokenIndex = trace.tokens.length - 1;
  }
  // The token holding the clause's last raw character (the span ends where its boundary was confirmed).
  const lastChar = Math.max(0, chunk.end - 1);
  let offset = 0;
  let completeIndex = trace.tokens.length - 1;
  for (let i = 0; i < trace.tokens.length; i++) {
    offset += trace.tokens[i]!.length;
    if (offset > lastChar) {
      completeIndex = i;
      break;
    }
  }
  return {
    floorMs: trace.at[completeIndex]! + firstByteMs,
    certainMs: trace.at[tokenIndex]! + firstByteMs,
    firstClause: chunk.text,
  };
}
