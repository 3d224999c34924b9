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
