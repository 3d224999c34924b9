import { describe, expect, it } from 'vitest';
import { sanitizeForSpeech } from '../../src/chunking/index.js';
import { sanitizeStreamed, splitAt, unitDeltas } from './helpers.js';

const CASES: ReadonlyArray<readonly [name: string, raw: string, spoken: string]> = [
  ['plain English prose passes unchanged', 'Hello, world! Costs 3.14 or 1,500 at 3:30 (see above); C# is #1 - a [laugh] cue.', 'Hello, world! Costs 3.14 or 1,500 at 3:30 (see above); C# is #1 - a [laugh] cue.'],
  ['plain Korean prose passes unchanged', '네, 3~5개 정도요. 약 ~10분, 50% 할인! 「좋아요」라고 했어요.', '네, 3~5개 정도요. 약 ~10분, 50% 할인! 「좋아요」라고 했어요.'],
  ['bold and italic markers go', '**Bold** and *italic* and ***both*** here', 'Bold and italic and both here'],
  ['arithmetic asterisks stay', '2*3 is 6 and 5 * 3 is 15, *not* 53', '2*3 is 6 and 5 * 3 is 15, not 53'],
  ['underscore emphasis goes, snake_case stays', '__strong__ and _em_ but my_var and __init__ stay', 'strong and em but my_var and init stay'],
  ['strikethrough goes, a single tilde stays', 'This is ~~wrong~~ right, ~5 minutes', 'This is wrong right, ~5 minutes'],
  ['headings lose their hashes', '# Title\n## 소제목\n###### Deep\nBody', 'Title 소제목 Deep Body'],
  ['hashes that are not headings stay', '#1 priority and #hashtag\n####### seven', '#1 priority and #hashtag ####### seven'],
  ['bullets go', '- one\n* two\n+ three\n  - nested', 'one two three nested'],
  ['signs at line start stay', '-5 degrees\n+82 10 1234', '-5 degrees +82 10 1234'],
  ['ordered list numbers stay (they are words)', '1. First\n2) Second', '1. First 2) Second'],
  ['blockquote markers go', '> quoted\n> > nested\n> - item', 'quoted nested item'],
  ['horizontal rules go', 'Above\n---\nMiddle\n***\nBelow\n-- not a rule', 'Above Middle Below -- not a rule'],
  ['links keep their text', 'See [the docs](https://x.com/a_(b)) and [**bold** link](u) now', 'See the docs and bold link now'],
  ['images go entirely', 'Chart: ![a chart](http://x/y.png) done!', 'Chart: done!'],
  ['brackets that are not links stay', 'Use [this] and [that one]: done [', 'Use [this] and [that one]: done ['],
  ['inline code loses backticks, keeps its words', 'Run `npm test` or ``a`b`` now', 'Run npm test or a`b now'],
  ['fenced code goes', 'Before:\n```ts\nconst x = 1;\n```\nAfter.', 'Before: After.'],
  ['tilde fence goes', '~~~\ncode\n~~~\nok', 'ok'],
  ['longer fence is not closed by a shorter one', '````\n```\nstill code\n````\nout', 'out'],
  ['an unclosed fence removes the rest', 'Text\n```\ncode forever', 'Text'],
  ['card blocks go', '좋아요.\n\n```card\n| time | what |\n|---|---|\n| 15:00 | dentist |\n```\n다음.', '좋아요. 다음.'],
  ['tables go', 'Here:\n| a | b |\n|---|---|\n| 1 | 2 |\nDone.', 'Here: Done.'],
  ['a trailing emotion tag goes', '그 전엔 푹 쉬어도 돼. [emotion:warm]', '그 전엔 푹 쉬어도 돼.'],
  ['an unterminated trailing emotion tag goes', 'Bye. [Emotion:happy', 'Bye.'],
  ['an emotion tag anywhere goes', '[emotion:calm] Hello', 'Hello'],
  ['a bracket that only starts like a tag stays', '[emotions run high] ok', '[emotions run high] ok'],
  ['surrogate pairs pass', '좋아요 😀 great', '좋아요 😀 great'],
  ['markup-only reply sanitizes to nothing', '**\n---\n```card\nx\n```\n[emotion:warm]', ''],
];

describe('sanitizeForSpeech', () => {
  it.each(CASES)('%s', (_name, raw, spoken) => {
    expect(sanitizeForSpeech(raw)).toBe(spoken);
  });

  it('gives up on a bracket that grows too long instead of holding the reply back', () => {
    const words = Array.from({ length: 120 }, (_, k) => `w${k}`).join(' ');
    expect(sanitizeForSpeech(`[${words}] end`)).toBe(`[${words}] end`);
  });
});

describe('streaming sanitizer', () => {
  it.each(CASES)('%s: same output and offsets however the deltas are cut', (_name, raw) => {
    const whole = sanitizeStreamed([raw]);
    expect(sanitizeStreamed(unitDeltas(raw))).toEqual(whole);
    for (let at = 1; at < raw.length; at++) expect(sanitizeStreamed(splitAt(raw, [at]))).toEqual(whole);
  });

  it.each(CASES)('%s: keeps only copies of raw characters, in order', (_name, raw) => {
    const { chars, raws } = sanitizeStreamed([raw]);
    for (let k = 0; k < chars.length; k++) {
      expect(raw[raws[k]]).toBe(chars[k]);
      if (k > 0) expect(raws[k]).toBeGreaterThan(raws[k - 1]);
    }
  });

  it('removes markers split across deltas', () => {
    const deltas = ['Say *', '*hi*', '* to [the', ' docs](ht', 'tp://x) and `co', 'de` now.\n``', '`card\n| a |\n`', '``\n[emo', 'tion:wa', 'rm]'];
    expect(sanitizeStreamed(deltas).chars.replace(/\s+/g, ' ').trim()).toBe('Say hi to the docs and code now.');
  });
});
