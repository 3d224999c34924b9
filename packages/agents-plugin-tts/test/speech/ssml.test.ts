import { describe, expect, it } from 'vitest';
import { normalizeForSpeech, toSsml } from '../../src/chunking/speech/index.js';
import { assertWellFormed, textContent } from './xml-check.js';

const ALLOWED_ELEMENTS = new Set(['speak', 'sub', 'say-as', 'break']);

function elementsOf(ssml: string): string[] {
  const elements = assertWellFormed(ssml);
  for (const name of elements) expect(ALLOWED_ELEMENTS.has(name), `unexpected <${name}>`).toBe(true);
  return elements;
}

/** What the voice is told to say: sub aliases instead of their content, tags dropped. */
function spokenText(ssml: string): string {
  return textContent(ssml.replace(/<sub alias="([^"]*)">[^<]*<\/sub>/g, (_, alias: string) => alias));
}

describe('toSsml', () => {
  it('wraps plain text in <speak> and changes nothing else', () => {
    expect(toSsml('Hello there.')).toBe('<speak>Hello there.</speak>');
  });

  it('renders readings as <sub alias> around the whole word, particle included', () => {
    expect(toSsml('3시에 만나요')).toBe('<speak><sub alias="세 시에">3시에</sub> 만나요</speak>');
    expect(toSsml('AI를 써요')).toBe('<speak><sub alias="에이아이를">AI를</sub> 써요</speak>');
  });

  it('renders a phone number as one <sub> per digit group with a <break> between groups', () => {
    expect(toSsml('010-1234-5678로')).toBe(
      '<speak><sub alias="공일공">010</sub><break time="150ms"/><sub alias="일이삼사">1234</sub>' +
        '<break time="150ms"/><sub alias="오육칠팔로">5678로</sub></speak>',
    );
  });

  it('renders spelled codes as <say-as interpret-as="characters">', () => {
    expect(toSsml('코드 A1B2', { spellCodes: true })).toBe(
      '<speak>코드 <say-as interpret-as="characters">A1B2</say-as></speak>',
    );
  });

  it('turns line breaks into a pause, since XML would collapse them', () => {
    expect(toSsml('First item\nSecond item')).toBe('<speak>First item <break time="300ms"/> Second item</speak>');
  });

  it.each([
    '회의는 2026년 3월 5일 오후 3:30에 시작하고, 참석자는 12명, 예산은 1,500만 원입니다.',
    'On March 3rd, 2026 at 3:30 pm, 22 people paid $3.50 each (15% off).',
    '문의는 010-1234-5678 또는 AI 상담원에게 하세요.',
    '-5도에서 3.14를 곱하면 & 결과는 <없음>',
  ])('says the same words as normalizeForSpeech: %s', (text) => {
    const ssml = toSsml(text);
    elementsOf(ssml);
    const squash = (s: string): string => s.replace(/\s+/g, '');
    expect(squash(spokenText(ssml))).toBe(squash(normalizeForSpeech(text)));
  });
});

describe('toSsml escaping (hostile input)', () => {
  const hostile = [
    '<speak><audio src="https://evil.example/x.mp3"/></speak>',
    '&amp;',
    '"><script>alert(1)</script>',
    "' onload='x' <break time=\"10s\"/>",
    '<![CDATA[ ]]> <!-- comment --> <?xml version="1.0"?>',
    '</sub></speak><speak>',
    'a < b > c & d &lt; &#60; &#x3C;',
    'null\u0000 bell\u0007 lone\uD800 surrogate \uFFFE',
    '<sub alias="x">3시</sub>',
  ];

  it.each(hostile)('escapes everything the LLM wrote: %s', (text) => {
    const ssml = toSsml(text);
    expect(elementsOf(ssml).filter((name) => name !== 'sub' && name !== 'break')).toEqual(['speak']);
    expect(ssml).not.toMatch(/<(?!\/?(?:speak|sub|say-as|break)[\s>/])/);
  });

  it('escapes a literal &amp; so it is said as written, not decoded', () => {
    expect(toSsml('&amp;')).toBe('<speak>&amp;amp;</speak>');
  });

  it('turns an injected tag into text, keeping its characters', () => {
    const ssml = toSsml('<audio src="x"/>');
    expect(ssml).toBe('<speak>&lt;audio src="x"/&gt;</speak>');
    expect(textContent(ssml)).toBe('<audio src="x"/>');
  });

  it('escapes quotes inside alias attributes', () => {
    const ssml = toSsml('Say "AI" now', { aliases: { AI: 'a "quoted" <alias> & more' } });
    elementsOf(ssml);
    expect(ssml).toContain('alias="a &quot;quoted&quot; &lt;alias&gt; &amp; more"');
  });

  it('drops characters XML cannot carry instead of producing an unparseable document', () => {
    expect(toSsml('a\u0000b\u0008c\uFFFFd')).toBe('<speak>abcd</speak>');
    expect(toSsml('emoji 😀 ok')).toBe('<speak>emoji 😀 ok</speak>');
  });
});

describe('toSsml with allowMarkup', () => {
  it('passes tags and entities through and does not read numbers inside them', () => {
    expect(toSsml('잠시 <break time="500ms"/> 3시에 &amp; 만나요', { allowMarkup: true })).toBe(
      '<speak>잠시 <break time="500ms"/> <sub alias="세 시에">3시에</sub> &amp; 만나요</speak>',
    );
  });

  it('drops a <speak> wrapper from the input instead of nesting it', () => {
    expect(toSsml('<speak>Hello</speak>', { allowMarkup: true })).toBe('<speak>Hello</speak>');
  });

  it('still escapes stray < > & that do not form a tag or entity', () => {
    const ssml = toSsml('if a < b && c > 2 <emphasis>really</emphasis>', { allowMarkup: true });
    expect(ssml).toBe('<speak>if a &lt; b &amp;&amp; c &gt; <sub alias="two">2</sub> <emphasis>really</emphasis></speak>');
    assertWellFormed(ssml);
  });
});
