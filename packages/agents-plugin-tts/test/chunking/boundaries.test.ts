import { describe, expect, it } from 'vitest';
import { type BoundaryKind, createBoundaryDetector } from '../../src/chunking/index.js';
import { textsOf, unitDeltas } from './helpers.js';

/** `sentence` policy: a cut at every sentence end and nowhere else (long limit). */
const sentences = (reply: string) => textsOf(reply, { policy: 'sentence' }, unitDeltas(reply));

const SENTENCES: ReadonlyArray<readonly [name: string, reply: string, expected: string[]]> = [
  // English
  ['terminators . ? !', 'Hello there. How are you? Fine!', ['Hello there.', 'How are you?', 'Fine!']],
  ['terminator runs', 'Really?! Yes!! Sure.', ['Really?!', 'Yes!!', 'Sure.']],
  ['numbers are not cut', 'Pi is 3.14 and 1,500 users came. Meet at 3:30 today.', ['Pi is 3.14 and 1,500 users came.', 'Meet at 3:30 today.']],
  ['versions are not cut', 'Version 2.0.1 is out. Update.', ['Version 2.0.1 is out.', 'Update.']],
  ['titles are not sentence ends', 'Dr. Kim and Mr. Lee met Prof. Park. They talked.', ['Dr. Kim and Mr. Lee met Prof. Park.', 'They talked.']],
  ['dotted abbreviations are not sentence ends', 'Use e.g. apples, i.e. fruit. In the U.S. it works. Fine.', ['Use e.g. apples, i.e. fruit.', 'In the U.S. it works.', 'Fine.']],
  ['etc. and a.m. are not sentence ends', 'Bring pens, paper, etc. and come at 9 a.m. sharp. Ok.', ['Bring pens, paper, etc. and come at 9 a.m. sharp.', 'Ok.']],
  ['initials are not sentence ends', 'J. K. Rowling wrote it. Sure.', ['J. K. Rowling wrote it.', 'Sure.']],
  ['URLs and e-mails are not cut', 'Visit https://example.com/a.b?c=1&d=2! Or mail a.b@ex.co.kr. Bye.', ['Visit https://example.com/a.b?c=1&d=2!', 'Or mail a.b@ex.co.kr.', 'Bye.']],
  ['a URL may end a sentence', 'Go to www.example.com. Then log in.', ['Go to www.example.com.', 'Then log in.']],
  ['list markers are not sentence ends', '1. First step.\n2. Second step.\n10. Tenth.', ['1. First step.', '2. Second step.', '10. Tenth.']],
  ['a number may end a sentence', 'I have 3. You have 4.', ['I have 3.', 'You have 4.']],
  ['a number may end a sentence before a quote or bracket', 'I have 3. (Really.) "Yes."', ['I have 3.', '(Really.)', '"Yes."']],
  ['closing quotes and brackets stay with the sentence', 'He said "Stop." Then (quietly.) Left.', ['He said "Stop."', 'Then (quietly.)', 'Left.']],
  ['an ellipsis is not a sentence end', 'Well... I think so. Wait… what?', ['Well... I think so.', 'Wait… what?']],
  ['a newline is a sentence end', 'Line one\nLine two\n\nLine three', ['Line one', 'Line two', 'Line three']],
  ['a terminator glued to a word is not an end', 'Yahoo!Mail and file.txt are fine.', ['Yahoo!Mail and file.txt are fine.']],
  // Korean
  ['Korean sentence ends with . ? !', '네. 확인해 볼게요. 정말요? 좋아요!', ['네.', '확인해 볼게요.', '정말요?', '좋아요!']],
  ['Korean numbers are not cut', '오늘은 3.5km 걸었고 1,500원을 썼어요. 3:30에 만나요.', ['오늘은 3.5km 걸었고 1,500원을 썼어요.', '3:30에 만나요.']],
  ['Korean terminator glued to the next sentence', '했다.그래서 갔다.', ['했다.', '그래서 갔다.']],
  ['CJK terminators need no space', '안녕하세요。반갑습니다！ 네？', ['안녕하세요。', '반갑습니다！', '네？']],
  ['a closing quote after 。 stays with it', '「좋아요。」그럼요.', ['「좋아요。」', '그럼요.']],
  ['a quoted Korean sentence is not cut before 라고', '그는 "좋다."라고 말했다. 끝.', ['그는 "좋다."라고 말했다.', '끝.']],
  ['a Korean ellipsis is a hesitation', '그게... 잘 모르겠어요.', ['그게... 잘 모르겠어요.']],
  ['Korean dotted dates are not cut', '회의는 2024. 11. 29. 오후예요. 그날 봬요.', ['회의는 2024. 11. 29. 오후예요.', '그날 봬요.']],
  ['a Korean sentence may end in a number', '참석자는 12. 그럼 시작할게요.', ['참석자는 12.', '그럼 시작할게요.']],
  ['Korean list markers', '1. 첫째 항목입니다.\n2. 둘째 항목입니다.', ['1. 첫째 항목입니다.', '2. 둘째 항목입니다.']],
  ['a Korean domain is not cut', '주소는 http://예시.한국 입니다. 네.', ['주소는 http://예시.한국 입니다.', '네.']],
];

describe('sentence boundaries (sentence policy, 1-character deltas)', () => {
  it.each(SENTENCES)('%s', (_name, reply, expected) => {
    expect(sentences(reply)).toEqual(expected);
  });
});

/** The first clause or sentence boundary the asymmetric first chunk may take (min 1 word). */
const firstCut = (reply: string) => textsOf(reply, { firstChunkMinWords: 1, firstChunkMaxWords: 50 }, unitDeltas(reply))[0];

const CLAUSES: ReadonlyArray<readonly [name: string, reply: string, first: string]> = [
  ['comma + space', 'Well, I think so today.', 'Well,'],
  ['colon + space, not 1,500 or 3:30', 'At 3:30 it costs 1,500 dollars: paid today.', 'At 3:30 it costs 1,500 dollars:'],
  ['semicolon', 'It rained; we stayed in all day.', 'It rained;'],
  ['em dash without spaces', 'I was thinking—maybe we could go.', 'I was thinking—'],
  ['em dash run', 'I was thinking——maybe we could go.', 'I was thinking——'],
  ['spaced en dash', 'Three options – red or blue.', 'Three options –'],
  ['spaced hyphen', 'Three options - red or blue.', 'Three options -'],
  ['ranges and negatives are not dashes', 'From 3–5 pm, or -5 degrees.', 'From 3–5 pm,'],
  ['URL punctuation is not a clause', 'See https://a.b/c,d;e:f now, please.', 'See https://a.b/c,d;e:f now,'],
  ['ellipsis + space is a clause', 'Well... maybe later.', 'Well...'],
  ['Korean comma', '지금 바로, 확인해 볼게요.', '지금 바로,'],
  ['CJK comma needs no space', '사과，배，포도', '사과，'],
  ['ideographic comma', '사과、배', '사과、'],
  ['Korean ellipsis glued', '그게...잘 모르겠어요.', '그게...'],
  ['a sentence end is also a natural first cut', 'Hello. How are you today, my friend?', 'Hello.'],
];

describe('clause boundaries (asymmetric first chunk, 1-character deltas)', () => {
  it.each(CLAUSES)('%s', (_name, reply, first) => {
    expect(firstCut(reply)).toBe(first);
  });
});

describe('createBoundaryDetector', () => {
  const scan = (text: string, abbreviations?: string[]) => {
    const scanner = createBoundaryDetector({ abbreviations }).createScanner();
    const found: Array<[number, BoundaryKind]> = [];
    for (let k = 0; k < text.length; k++) {
      const hit = scanner.next(text[k]);
      if (hit?.before) found.push([k, hit.before]);
      if (hit?.after) found.push([k + 1, hit.after]);
    }
    return found;
  };

  it('reports word, clause and sentence boundaries at their offsets', () => {
    expect(scan('Hi, you. 네，좋아요。다')).toEqual([
      [3, 'clause'],
      [8, 'sentence'],
      [11, 'clause'],
      [15, 'sentence'],
    ]);
    expect(scan('one two  three')).toEqual([
      [3, 'word'],
      [7, 'word'],
    ]);
  });

  it('reports no word boundary after an abbreviation or list marker, so forced cuts keep them', () => {
    expect(scan('Dr. Kim')).toEqual([]);
    expect(scan('1. item')).toEqual([]);
    expect(scan('at 3 p.m. today')).toEqual([
      [2, 'word'],
      [4, 'word'],
    ]);
  });

  it('takes a custom abbreviation list', () => {
    expect(scan('Hr. Lee', ['hr'])).toEqual([]);
    expect(scan('Dr. Lee', ['hr'])).toEqual([[3, 'sentence']]);
  });

  it('forgets pending decisions on reset', () => {
    const scanner = createBoundaryDetector().createScanner();
    scanner.next('a');
    scanner.next('.');
    scanner.reset();
    expect(scanner.next(' ')).toBeUndefined();
  });
});
