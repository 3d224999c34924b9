import { describe, expect, it } from 'vitest';
import {
  type BoundaryDetector,
  type Chunk,
  UNIT_MAX_CHUNK_CHARS,
  createChunker,
} from '../../src/chunking/index.js';
import { chunksOf, feed, textsOf, unitDeltas } from './helpers.js';

const brief = (chunks: Chunk[]) => chunks.map((c) => [c.reason, c.text]);
const streamed = (reply: string, options?: Parameters<typeof chunksOf>[1]) =>
  brief(chunksOf(reply, options, unitDeltas(reply)));

describe('asymmetric policy (default): the first chunk', () => {
  const FIRST: ReadonlyArray<readonly [name: string, reply: string, first: [string, string]]> = [
    ['cut at the first clause', 'Okay so here, we go today and tomorrow.', ['clause', 'Okay so here,']],
    ['a one-word clause goes out alone (a comma is an intonation break)', 'Well, I think we should, go now.', ['clause', 'Well,']],
    ['forced after 8 words when no clause comes', 'I think that we should go now and then eat something.', ['length', 'I think that we should go now and']],
    ['a one-word first sentence goes out alone', 'Sure. Let me check that for you, one moment.', ['sentence', 'Sure.']],
    ['a first sentence with enough words is cut', 'I can help. Let me check that for you.', ['sentence', 'I can help.']],
    ['Korean: a one-eojeol clause goes out alone', '네, 지금 바로 확인해 볼게요, 잠시만요.', ['clause', '네,']],
    ['Korean: a one-eojeol sentence goes out alone', '네. 확인해 볼게요, 잠시만 기다려 주세요.', ['sentence', '네.']],
    ['Korean: forced at the word boundary after 25 characters', '오늘 서울의 날씨는 맑고 기온은 영상 십오도 정도로 따뜻할 것으로 예상됩니다.', ['length', '오늘 서울의 날씨는 맑고 기온은 영상 십오도 정도로']],
    ['a forced cut never separates an abbreviation from its name', 'Today I will go and see Dr. Kim about it, then rest.', ['length', 'Today I will go and see Dr. Kim']],
    ['a forced cut never splits a dotted date', '다음 회의는 2024. 11. 29. 오후 세 시에 열릴 예정입니다.', ['length', '다음 회의는 2024. 11. 29. 오후 세']],
    ['a forced cut never splits a number', 'It was about 1,500 or 3.14 or 3:30 more or less than before.', ['length', 'It was about 1,500 or 3.14 or 3:30']],
  ];
  it.each(FIRST)('%s', (_name, reply, first) => {
    expect(streamed(reply)[0]).toEqual(first);
  });

  it('uses the char limit only for mostly-Korean text (English stays on words)', () => {
    const english = 'Absolutely wonderful questions deserve extraordinarily thoughtful answers today my friend.';
    expect(streamed(english)[0]).toEqual(['length', 'Absolutely wonderful questions deserve extraordinarily thoughtful answers today']);
  });

  it('honours custom first-chunk limits', () => {
    const reply = 'One two three four five six seven.';
    expect(streamed(reply, { firstChunkMaxWords: 3 })[0]).toEqual(['length', 'One two three']);
    expect(streamed('하나 둘 셋 넷 다섯 여섯 일곱 여덟.', { firstChunkMaxChars: 6 })[0]).toEqual(['length', '하나 둘 셋']);
    expect(streamed('A, b c, d e f, g.', { firstChunkMinWords: 2 })[0]).toEqual(['clause', 'A, b c,']);
    expect(streamed('Well, I think we should, go now.', { firstChunkMinWords: 3 })[0]).toEqual(['clause', 'Well, I think we should,']);
    expect(streamed('네. 확인해 볼게요, 잠시만 기다려 주세요.', { firstChunkMinWords: 3 })[0]).toEqual(['clause', '네. 확인해 볼게요,']);
  });

  it('after a one-word first chunk, the next is cut like a first chunk until three words are sent', () => {
    expect(streamed('Sure. The meeting has been moved to Thursday at three in the afternoon. Bye now.')).toEqual([
      ['sentence', 'Sure.'],
      ['length', 'The meeting has been moved to Thursday at'],
      ['sentence', 'three in the afternoon.'],
      ['end', 'Bye now.'],
    ]);
    // A natural end must complete the three words: "네," + "바로 확인했습니다." (3), not "네," + "네.".
    expect(streamed('네, 네. 바로 확인했습니다. 치과 예약을 목요일 오후 네 시로 옮겨 두었어요.')).toEqual([
      ['clause', '네,'],
      ['sentence', '네. 바로 확인했습니다.'],
      ['end', '치과 예약을 목요일 오후 네 시로 옮겨 두었어요.'],
    ]);
    expect(streamed('Sure, no problem. I have moved it.', { firstClauseWords: 1 })).toEqual([
      ['clause', 'Sure,'],
      ['end', 'no problem. I have moved it.'],
    ]);
  });

  it('a flush ends the first-clause rule once anything was sent', () => {
    const chunker = createChunker();
    expect(brief(feed(chunker, ['Sure, '])).concat(brief(chunker.flush()))).toEqual([['clause', 'Sure,']]);
    expect(brief(feed(chunker, ['let me look, at the calendar for next week and the week after. Done. ']))).toEqual([
      ['sentence', 'let me look, at the calendar for next week and the week after.'],
    ]);
  });

});

describe('paced: the caller releases the first chunk and cuts inside sentences', () => {
  it('holds the first chunk and says when the first-chunk limits would have cut', () => {
    const chunker = createChunker({ paced: true });
    expect(feed(chunker, ['Sure'])).toEqual([]);
    expect(chunker.pending()).toMatchObject({ chars: 4, releasable: 0, firstDue: false, emitted: 0 });
    expect(feed(chunker, [', I', ' can do that. The'])).toEqual([]);
    expect(chunker.pending()).toMatchObject({ releasable: 20, releasableKind: 'sentence', firstDue: true, openSentenceChars: 0 });
    expect(brief(chunker.release())).toEqual([['sentence', 'Sure, I can do that.']]);
    expect(chunker.pending()).toMatchObject({ chars: 3, releasable: 0, firstDue: false, emitted: 1 });
  });

  it('after the first release cuts sentence ends itself, the rest of a split sentence however short', () => {
    const chunker = createChunker({ paced: true });
    feed(chunker, ['Sure, no']);
    expect(chunker.pending()).toMatchObject({ releasable: 5, releasableKind: 'clause', firstDue: true, openSentenceChars: 5 });
    expect(brief(chunker.release())).toEqual([['clause', 'Sure,']]);
    // "no problem." is the rest of a sentence, not a short sentence to merge.
    expect(brief(feed(chunker, [' problem. I have moved'])).concat(brief(chunker.release()))).toEqual([
      ['sentence', 'no problem.'],
      ['word', 'I have'],
    ]);
    expect(chunker.pending()).toMatchObject({ chars: 5, releasable: 0, openSentenceChars: 7 });
    expect(brief(feed(chunker, [' it. Ok. Bye now.'])).concat(brief(chunker.end()))).toEqual([
      ['sentence', 'moved it.'],
      ['end', 'Ok. Bye now.'],
    ]);
  });

  it('counts the open sentence across releases', () => {
    const chunker = createChunker({ paced: true });
    feed(chunker, ['네. 회의는 목요일 ']);
    expect(chunker.pending()).toMatchObject({ releasable: 10, releasableKind: 'word', openSentenceChars: 7 });
    expect(brief(chunker.release())).toEqual([['word', '네. 회의는 목요일']]);
    feed(chunker, ['오후 세 ']);
    expect(chunker.pending()).toMatchObject({ releasable: 4, openSentenceChars: 12 });
  });

  it('is eager where no caller paces: the sentence and unit policies ignore it', () => {
    expect(streamed('Sure. Let me check.', { policy: 'sentence', paced: true })).toEqual([
      ['sentence', 'Sure.'],
      ['end', 'Let me check.'],
    ]);
  });
});

describe('asymmetric policy: later chunks', () => {
  it('are whole sentences, clauses are not cut', () => {
    expect(streamed('I can help with that. Sure thing, here it is now. And one more, as promised.')).toEqual([
      ['sentence', 'I can help with that.'],
      ['sentence', 'Sure thing, here it is now.'],
      ['end', 'And one more, as promised.'],
    ]);
  });

  it('merge short sentences forward, but not past the end of the reply', () => {
    expect(streamed('I can help with that. Ok. Sure thing, here it is now. Ok.')).toEqual([
      ['sentence', 'I can help with that.'],
      ['sentence', 'Ok. Sure thing, here it is now.'],
      ['end', 'Ok.'],
    ]);
    expect(streamed('네. 네. 알겠어요. 지금 바로 예약을 잡아 드릴게요. 네. 감사합니다.')).toEqual([
      ['sentence', '네.'],
      ['sentence', '네. 알겠어요.'],
      ['sentence', '지금 바로 예약을 잡아 드릴게요.'],
      ['end', '네. 감사합니다.'],
    ]);
  });

  it('honours minSentenceChars', () => {
    const reply = 'I can help with that. Yes. No. Maybe so.';
    expect(textsOf(reply, { minSentenceChars: 1 })).toEqual(['I can help with that.', 'Yes.', 'No.', 'Maybe so.']);
    expect(textsOf(reply, { minSentenceChars: 100 })).toEqual(['I can help with that.', 'Yes. No. Maybe so.']);
  });
});

describe('maxChunkChars', () => {
  const long = 'When the weather is nice, we walk along the river, we stop for coffee, and then we head home before dark.';

  it('splits an over-long sentence at clauses, else words, keeping every chunk within the limit', () => {
    expect(streamed(long, { policy: 'sentence', maxChunkChars: 40 })).toEqual([
      ['length', 'When the weather is nice,'],
      ['length', 'we walk along the river,'],
      ['length', 'we stop for coffee, and then we head'],
      ['end', 'home before dark.'],
    ]);
  });

  it('prefers a sentence end, then a clause, in the second half of the chunk, else the last word', () => {
    const reply = 'I can help with that. Yes, it is, and then a very long tail goes on and on without end';
    expect(streamed(reply, { policy: 'unit', maxChunkChars: 40 })).toEqual([
      ['length', 'I can help with that.'],
      ['length', 'Yes, it is, and then a very long tail'],
      ['end', 'goes on and on without end'],
    ]);
  });

  it('hard-cuts text without any boundary, never inside a surrogate pair', () => {
    expect(textsOf('x'.repeat(95), { maxChunkChars: 40 }).map((t) => t.length)).toEqual([40, 40, 15]);
    const emoji = textsOf('😀'.repeat(30), { maxChunkChars: 41 }, unitDeltas('😀'.repeat(30)));
    expect(emoji.map((t) => t.length)).toEqual([40, 20]);
    expect(emoji.every((t) => /^(?:😀)+$/u.test(t))).toBe(true);
  });
});

describe('sentence policy', () => {
  it('cuts at every sentence end, short ones included, from the first', () => {
    expect(streamed('네. 알겠어요, 지금 확인할게요. Ok.', { policy: 'sentence' })).toEqual([
      ['sentence', '네.'],
      ['sentence', '알겠어요, 지금 확인할게요.'],
      ['end', 'Ok.'],
    ]);
  });
});

describe('unit policy', () => {
  it('cuts only at flushes and at the end', () => {
    const chunker = createChunker({ policy: 'unit' });
    const before = feed(chunker, unitDeltas('잠깐, 일정 확인해볼게. Let me see, ok. '));
    expect(before).toEqual([]);
    const unit = chunker.flush();
    expect(brief(unit)).toEqual([['unit', '잠깐, 일정 확인해볼게. Let me see, ok.']]);
    expect(feed(chunker, ['오늘은 3시에 치과 하나뿐이야. 그 전엔 푹 쉬어도 돼.'])).toEqual([]);
    expect(brief(chunker.end())).toEqual([['end', '오늘은 3시에 치과 하나뿐이야. 그 전엔 푹 쉬어도 돼.']]);
  });

  it('still splits a unit longer than the provider limit (3000 by default), at a sentence end', () => {
    const sentence = 'This sentence is exactly fifty characters long ok. ';
    const chunks = chunksOf(sentence.repeat(70), { policy: 'unit' });
    expect(chunks.map((c) => c.reason)).toEqual(['length', 'end']);
    expect(chunks[0].text.length).toBeLessThanOrEqual(UNIT_MAX_CHUNK_CHARS);
    expect(chunks[0].text.endsWith('ok.')).toBe(true);
  });
});

describe('flush', () => {
  it('forces a boundary where the reply stands, even mid-sentence or short', () => {
    const chunker = createChunker();
    expect(feed(chunker, ['Let me', ' check'])).toEqual([]);
    expect(chunker.flush()).toEqual([{ text: 'Let me check', start: 0, end: 12, reason: 'flush' }]);
  });

  it('the chunk after a flush is not a first chunk again', () => {
    const chunker = createChunker();
    feed(chunker, ['Let me check.']);
    chunker.flush();
    const after = feed(chunker, unitDeltas(' Your appointment is at three, and the dentist is Dr. Kim. '));
    expect(brief(after)).toEqual([['sentence', 'Your appointment is at three, and the dentist is Dr. Kim.']]);
  });

  it('a flush before any text keeps the next chunk first', () => {
    const chunker = createChunker();
    expect(chunker.flush()).toEqual([]);
    expect(brief(feed(chunker, unitDeltas('Your appointment is at three, and the dentist is in. ')))).toEqual([
      ['clause', 'Your appointment is at three,'],
      ['sentence', 'and the dentist is in.'],
    ]);
  });

  it('releases markup held back at the flush and keeps offsets running', () => {
    const chunker = createChunker();
    feed(chunker, ['I can help with [that']);
    expect(chunker.flush()).toEqual([{ text: 'I can help with [that', start: 0, end: 21, reason: 'flush' }]);
    expect(feed(chunker, [' later on today. ', 'Fine.'])).toEqual([
      { text: 'later on today.', start: 21, end: 37, reason: 'sentence' },
    ]);
  });
});

describe('eager release', () => {
  const releaseIndex = (reply: string, options?: Parameters<typeof createChunker>[0]) => {
    const chunker = createChunker(options);
    for (let k = 0; k < reply.length; k++) if (chunker.push(reply[k]).length > 0) return k;
    return -1;
  };

  it('releases an English sentence on the space after it, not on the next word', () => {
    const reply = 'I can help with that. Next';
    expect(releaseIndex(reply)).toBe(reply.indexOf(' Next'));
    expect(releaseIndex('Hi there. Next', { policy: 'sentence' })).toBe(9);
  });

  it('releases a sentence ending in a closing quote on the space after the quote', () => {
    expect(releaseIndex('He said "Stop right now." Next')).toBe(25);
  });

  it('releases a CJK sentence on the next character, or at once on a closing quote', () => {
    expect(releaseIndex('알겠습니다。다음', { policy: 'sentence' })).toBe(6);
    expect(releaseIndex('「알겠습니다。」다음', { policy: 'sentence' })).toBe(7);
  });

  it('releases a sentence ending in a bare number on the next non-space character (2024. 11. is a date)', () => {
    expect(releaseIndex('The answer is 42. Next', { policy: 'sentence' })).toBe(18);
    expect(releaseIndex('날짜는 2024. 11. 29. 이에요 다음', { policy: 'sentence' })).toBe(-1);
  });

  it('releases at a newline', () => {
    expect(releaseIndex('Here is the plan today\nFirst', { policy: 'sentence' })).toBe(22);
  });

  it('releases a first clause ending in a comma or semicolon after a letter on that character', () => {
    const reply = 'Let me check that, one moment';
    expect(releaseIndex(reply)).toBe(reply.indexOf(','));
    expect(releaseIndex('잠시만요, 확인해 볼게요')).toBe(4);
    expect(releaseIndex('It rained; we stayed in')).toBe(9);
  });

  it('waits for the next character after a comma that a number, a quotation or a link may continue', () => {
    expect(releaseIndex('It costs 1,500, one moment')).toBe('It costs 1,500,'.length);
    expect(releaseIndex('He said "Yes, one moment" and left')).toBe('He said "Yes,'.length);
    expect(releaseIndex('He said “Yes, one moment” and left')).toBe('He said “Yes,'.length);
    expect(releaseIndex('Open https://a.b/c,d now, please')).toBe('Open https://a.b/c,d now'.length);
    expect(releaseIndex('At 3:30: one moment')).toBe('At 3:30:'.length);
    expect(releaseIndex('Note: one moment')).toBe('Note:'.length);
  });

  it('a closed quotation does not hold later commas back', () => {
    expect(releaseIndex('He said "yes" twice, one moment')).toBe('He said "yes" twice'.length);
    expect(releaseIndex('「좋아요。」 그럼, 시작할게요', { firstChunkMinWords: 2 })).toBe('「좋아요。」 그럼'.length);
    expect(releaseIndex('He said (twice) yes, one moment')).toBe('He said (twice) yes'.length);
  });

  it('returns every sentence a single delta completes', () => {
    const chunker = createChunker({ policy: 'sentence' });
    expect(chunker.push('One is here. Two is here. Three is here. Fo').map((c) => c.text)).toEqual([
      'One is here.',
      'Two is here.',
      'Three is here.',
    ]);
  });
});

describe('ranges', () => {
  it('tile the raw reply and include markup that closes a chunk', () => {
    const reply = '**Hello there.** How are you?\n\n```card\nx\n```\n[emotion:warm]';
    const chunks = chunksOf(reply, { policy: 'sentence' }, unitDeltas(reply));
    expect(chunks).toEqual([
      { text: 'Hello there.', start: 0, end: 16, reason: 'sentence' },
      { text: 'How are you?', start: 16, end: 29, reason: 'sentence' },
    ]);
    expect(chunksOf('Hello there. How are _you_?**', { policy: 'sentence' }).at(-1)).toEqual({
      text: 'How are you?',
      start: 12,
      end: 29,
      reason: 'end',
    });
    expect(reply.slice(0, chunks[0].end)).toBe('**Hello there.**');
  });

  it('gives heard text on interruption as a raw prefix', () => {
    const reply = '네, 지금 바로 확인해 볼게요, 잠시만요. 오늘은 3시에 치과 예약이 있어요.';
    const chunks = chunksOf(reply);
    expect(reply.slice(0, chunks[0].end)).toBe('네,');
    expect(reply.slice(0, chunks[1].end)).toBe('네, 지금 바로 확인해 볼게요,');
    expect(reply.slice(chunks[2].start, chunks[2].end).trim()).toBe('잠시만요. 오늘은 3시에 치과 예약이 있어요.');
  });

  it('does not emit chunks that sanitize to nothing, and restarts offsets after end()', () => {
    const chunker = createChunker();
    expect(feed(chunker, ['```card\n| a |\n```\n'])).toEqual([]);
    expect(chunker.end()).toEqual([]);
    expect(feed(chunker, ['Hi'])).toEqual([]);
    expect(chunker.end()).toEqual([{ text: 'Hi', start: 0, end: 2, reason: 'end' }]);
  });
});

describe('options', () => {
  it('rejects invalid values', () => {
    expect(() => createChunker({ maxChunkChars: 1 })).toThrow(RangeError);
    expect(() => createChunker({ firstChunkMaxWords: 0 })).toThrow(RangeError);
    expect(() => createChunker({ firstChunkMaxChars: Number.NaN })).toThrow(RangeError);
    expect(() => createChunker({ policy: 'words' as never })).toThrow(RangeError);
  });

  it('accepts a pluggable boundary detector', () => {
    const pipes: BoundaryDetector = {
      createScanner: () => ({ next: (c) => (c === '|' ? { after: 'sentence' } : undefined), reset: () => {} }),
    };
    expect(textsOf('a b| c. d|e', { policy: 'sentence', boundaryDetector: pipes })).toEqual(['a b|', 'c. d|', 'e']);
  });
});
