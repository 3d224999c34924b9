/** XML text and attribute escaping for SSML. */

/**
 * Characters that XML 1.0 forbids anywhere (C0 controls other than tab/LF/CR, lone surrogates,
 * U+FFFE/U+FFFF). A single one makes the whole document unparseable, so they are dropped.
 */
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT_SPECIAL = /[&<>]/g;
/** One scan to skip the common case (nothing to escape, nothing to drop). */
const NEEDS_TEXT_WORK = /[&<>\u0000-\u0008\u000B\u000C\u000E-\u001F\uD800-\uDFFF\uFFFE\uFFFF]/;
const ATTRIBUTE_SPECIAL = /[&<>"']/g;

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

const replaceEntity = (char: string): string => ENTITIES[char];

export function stripForbiddenXmlChars(text: string): string {
  return text.replace(XML_FORBIDDEN, '');
}

export function escapeXmlText(text: string): string {
  if (!NEEDS_TEXT_WORK.test(text)) return text;
  return stripForbiddenXmlChars(text).replace(TEXT_SPECIAL, replaceEntity);
}

export function escapeXmlAttribute(text: string): string {
  return stripForbiddenXmlChars(text).replace(ATTRIBUTE_SPECIAL, replaceEntity);
}
