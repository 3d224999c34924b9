/**
 * SSML rendering of the same spans the plain-text path uses, so both say the same words:
 * readings become <sub alias>, phone numbers become one <sub> per digit group with a short
 * <break> between groups, spelled codes become <say-as interpret-as="characters">. Everything the
 * LLM wrote is escaped unless `allowMarkup` is set.
 */
import { isHangul } from './language.js';
import { findSpans } from './spans.js';
import type { Span, SsmlOptions, SpokenPart } from './types.js';
import { escapeXmlAttribute, escapeXmlText } from './xml.js';

/** Between digit groups of a phone number: the pause a person makes at each hyphen. */
const PHONE_GROUP_BREAK = '<break time="150ms"/>';
/** XML collapses whitespace, so a line break (a list item without punctuation) would lose its pause. */
const LINE_BREAK = '<break time="300ms"/>';
const LINE_BREAKS = /[ \t]*(?:\r\n|\r|\n)[ \t\r\n]*/g;

/** Tags and entities passed through when markup is allowed; anything else is escaped. */
const MARKUP =
  /<\/?[A-Za-z][\w:.-]*(?:\s+[\w:.-]+\s*=\s*(?:"[^"<&]*"|'[^'<&]*'))*\s*\/?>|&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#x[0-9A-Fa-f]+);/g;
const SPEAK_TAG = /^<\/?speak\b/i;

function plainText(text: string): string {
  const escaped = escapeXmlText(text);
  return escaped.includes('\n') || escaped.includes('\r') ? escaped.replace(LINE_BREAKS, ` ${LINE_BREAK} `) : escaped;
}

function sub(original: string, spoken: string): string {
  return `<sub alias="${escapeXmlAttribute(spoken)}">${escapeXmlText(original)}</sub>`;
}

function telephone(parts: readonly SpokenPart[], before: string, after: string): string {
  const last = parts.length - 1;
  return parts
    .map((part, i) =>
      sub(
        (i === 0 ? before : '') + part.original + (i === last ? after : ''),
        (i === 0 ? before : '') + part.spoken + (i === last ? after : ''),
      ),
    )
    .join(PHONE_GROUP_BREAK);
}

/** Body of the document for one stretch of plain text. */
function renderText(text: string, options: SsmlOptions): string {
  const spans: Span[] = findSpans(text, options);
  let out = '';
  let cursor = 0;
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i];
    if (span.kind === 'characters') {
      // Separators are not spelled in the plain path either (AB-12 → A B 1 2).
      const characters = text.slice(span.start, span.end).replace(/[^A-Za-z0-9]/g, '');
      out += `${plainText(text.slice(cursor, span.start))}<say-as interpret-as="characters">${characters}</say-as>`;
      cursor = span.end;
      continue;
    }
    // Resemble wants tags around whole words: take in Hangul glued on either side (3시에, AI를).
    const limit = i + 1 < spans.length ? spans[i + 1].start : text.length;
    let start = span.start;
    let end = span.end;
    while (start > cursor && isHangul(text.charCodeAt(start - 1))) start--;
    while (end < limit && isHangul(text.charCodeAt(end))) end++;
    const before = text.slice(start, span.start);
    const after = text.slice(span.end, end);
    out += plainText(text.slice(cursor, start));
    out +=
      span.kind === 'telephone'
        ? telephone(span.parts, before, after)
        : sub(before + text.slice(span.start, span.end) + after, before + span.spoken + after);
    cursor = end;
  }
  return out + plainText(text.slice(cursor));
}

function renderWithMarkup(text: string, options: SsmlOptions): string {
  let out = '';
  let cursor = 0;
  MARKUP.lastIndex = 0;
  for (let markup = MARKUP.exec(text); markup !== null; markup = MARKUP.exec(text)) {
    out += renderText(text.slice(cursor, markup.index), options);
    if (!SPEAK_TAG.test(markup[0])) out += markup[0];
    cursor = markup.index + markup[0].length;
  }
  return out + renderText(text.slice(cursor), options);
}

/**
 * A complete `<speak>` document for `text`. Without `allowMarkup` the result is always
 * well-formed XML whose only elements are speak, sub, say-as and break.
 */
export function toSsml(text: string, options: SsmlOptions = {}): string {
  const body = options.allowMarkup === true ? renderWithMarkup(text, options) : renderText(text, options);
  return `<speak>${body}</speak>`;
}
