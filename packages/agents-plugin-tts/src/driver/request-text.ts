/**
 * A chunk's text → the pieces sent as provider requests: cleaned for the wire, split at the
 * provider's length limit, then prepared (spoken-form rewriting or SSML). Split first: the limit
 * counts spoken text, not markup.
 */

/**
 * What may go on the wire as text to speak. LLM output can carry lone UTF-16 surrogates (a model
 * or a delta cut mid-pair) and control characters (NUL, BEL, terminal escapes). JSON.stringify
 * keeps a lone surrogate as a `\ud800` escape, which a provider's UTF-8 decoder may reject as a
 * whole request; control characters are never speech. Both go before the text is sent.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// C0 and C1 controls; tab, newline and carriage return are whitespace, not noise.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
// What a terminal colour escape leaves once its ESC is gone: `[31m`.
const ANSI_ESCAPE = /\u001B\[[0-9;?]*[A-Za-z]/g;

export function speakableText(text: string): string {
  return text.replace(ANSI_ESCAPE, '').replace(LONE_SURROGATE, '').replace(CONTROL, ' ');
}

/** The requests one chunk becomes; empty when nothing in it can be spoken. */
export function requestPieces(text: string, limit: number, prepare: (text: string) => string = (t) => t): string[] {
  return splitForLimit(speakableText(text), limit)
    .map(prepare)
    .filter((piece) => piece.trim().length > 0);
}

/**
 * Splits text longer than `limit` characters at the last sentence end, clause or space before the
 * limit, so a provider's per-request cap never truncates or rejects a chunk.
 */
export function splitForLimit(text: string, limit: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const cut =
      lastMatchEnd(window, /[.!?。！？](?=\s)/g) ??
      lastMatchEnd(window, /[,;:，、](?=\s)/g) ??
      lastMatchEnd(window, /\s/g) ??
      safeCut(window, limit);
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.trim()) pieces.push(rest.trim());
  return pieces.filter((p) => p.length > 0);
}

/** A hard cut that never separates a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

function lastMatchEnd(text: string, re: RegExp): number | undefined {
  let end: number | undefined;
  for (const m of text.matchAll(re)) {
    const e = (m.index ?? 0) + m[0].length;
    if (e > text.length / 2) end = e; // never cut a piece shorter than half the limit
  }
  return end;
}
