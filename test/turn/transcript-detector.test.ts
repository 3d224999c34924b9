/**
 * The transcript end-of-turn rules: a turn that ends mid-thought is judged unfinished, a finished
 * one finished, in both languages, whatever punctuation the STT puts on it; and the rules answer
 * every string. The corpus's pauses are the examples: what the caller had said when they paused.
 */
import { asLanguageCode, llm } from '@livekit/agents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TURN_CORPUS, transcriptsSoFar } from '../../bench/turn/corpus.js';
import { withSttFullStops } from '../../bench/turn/transcript-confusion.js';
import type { AckLanguage } from '../../src/ack/phrases.js';
import { TranscriptTurnDetector, isTurnComplete, predictTurnComplete, turnUnlikelyThreshold } from '../../src/turn/transcript-detector.js';

/** What a streaming STT makes of a piece: a full stop on every final, whatever was said. */
const asSttFinal = withSttFullStops;

const FINISHED: Record<AckLanguage, string[]> = {
  en: TURN_CORPUS.filter((u) => u.language === 'en').map((u) => transcriptsSoFar(u).at(-1)!),
  ko: TURN_CORPUS.filter((u) => u.language === 'ko').map((u) => transcriptsSoFar(u).at(-1)!),
};

const MID_THOUGHT: Record<AckLanguage, string[]> = {
  en: ['um', 'uh', 'and', 'but', 'or', 'so', 'because', 'and the', 'and um', 'with my', 'for the', 'to', 'about', 'if'],
  // Not "어" or "뭐": asked ("어?", "뭐?") they are a whole turn, tested apart.
  ko: ['음', '으음', '그리고', '근데', '그러니까', '그래서', '하지만', '아니면', '그', '그리고 음', '어 그러니까'],
};

const sentence = (language: AckLanguage) =>
  fc.tuple(fc.constantFrom(...FINISHED[language]), fc.boolean()).map(([text, stt]) => (stt ? asSttFinal(text) : text));
const joiner = fc.constantFrom(' ', ', ', '. ', '… ', ' … ');
const tail = fc.constantFrom('', '.', ',', '…', '...', '?', ' -');

describe('predictTurnComplete', () => {
  for (const language of ['en', 'ko'] as const) {
    it(`judges a finished ${language} sentence unfinished once a filler or conjunction follows it`, () => {
      fc.assert(
        fc.property(sentence(language), joiner, fc.constantFrom(...MID_THOUGHT[language]), tail, (text, join, more, end) => {
          expect(isTurnComplete(text, language)).toBe(true);
          expect(predictTurnComplete(`${text}${join}${more}${end}`, language)).toBeLessThan(turnUnlikelyThreshold(language));
        }),
      );
    });
  }

  it('judges anything that ends on a filler or conjunction unfinished, whatever came before', () => {
    // Not "about": "What is it about" ends on it and is whole, and random text could be a wh-question.
    const english = MID_THOUGHT.en.filter((w) => w !== 'about');
    const ending = fc.constantFrom(...english.map((w) => ['en', w] as const), ...MID_THOUGHT.ko.map((w) => ['ko', w] as const));
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), ending, tail, (before, [language, more], end) => {
        expect(predictTurnComplete(`${before} ${more}${end}`, language)).toBeLessThan(turnUnlikelyThreshold(language));
      }),
    );
  });

  it('answers every string, emoji, mixed scripts and lone surrogates included, with a probability', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.array(fc.constantFrom('네', 'Yes', '🙂', '010-1234-5678', '…', ',', '?', '서울', 'weather', 'ㅋㅋ', '\u0301', ' ', '日本'), { maxLength: 12 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, fc.constantFrom<AckLanguage>('en', 'ko'), (input, language) => {
        const p = predictTurnComplete(input, language);
        expect(Number.isFinite(p)).toBe(true);
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        expect(predictTurnComplete(input)).toBe(predictTurnComplete(input));
      }),
    );
  });

  it('judges one-word answers and questions finished in both languages', () => {
    for (const text of ['Yes.', 'No.', 'Okay', 'Sure thanks', 'Who is it from?', 'What is this for?', 'Where are you calling from', 'Is it on?'])
      expect([text, isTurnComplete(text, 'en')]).toEqual([text, true]);
    for (const text of ['네.', '네', '아니요.', '응', '그럼', '얼마예요?', '왜?', '뭐?', '할게', '좋아', '내일 와?', '저도'])
      expect([text, isTurnComplete(text, 'ko')]).toEqual([text, true]);
  });

  it('hears "어" and "뭐" as fillers, unless the STT heard them asked', () => {
    for (const text of ['어', '어…', '네. 어', '뭐', '그게 뭐']) expect([text, isTurnComplete(text, 'ko')]).toEqual([text, false]);
    for (const text of ['어?', '뭐?', '네. 어?']) expect([text, isTurnComplete(text, 'ko')]).toEqual([text, true]);
  });

  it('judges a phone number finished only once it has its digits', () => {
    expect(isTurnComplete('My phone number is five five five.', 'en')).toBe(false);
    expect(isTurnComplete('My phone number is five five five. Zero one two three.', 'en')).toBe(true);
    expect(isTurnComplete('Call me at 212 555.', 'en')).toBe(false);
    expect(isTurnComplete('Call me at 212 555 0198.', 'en')).toBe(true);
    expect(isTurnComplete('제 번호는 010 1234.', 'ko')).toBe(false);
  });

  it('reads a trailing comma or ellipsis as more to come, and a full stop as nothing', () => {
    expect(isTurnComplete('Add milk', 'en')).toBe(true);
    expect(isTurnComplete('Add milk.', 'en')).toBe(true);
    expect(isTurnComplete('Add milk,', 'en')).toBe(false);
    expect(isTurnComplete("I think that's it…", 'en')).toBe(false);
    expect(isTurnComplete('Is there a way to.', 'en')).toBe(false);
    expect(isTurnComplete('그게 다인 것 같아요…', 'ko')).toBe(false);
    expect(isTurnComplete('우유,', 'ko')).toBe(false);
    expect(isTurnComplete('제 예약을.', 'ko')).toBe(false);
  });

  it('judges by the last word’s script, so a Korean sentence with English in it is read as Korean', () => {
    expect(isTurnComplete('OK, 서울 날씨 알려 주세요', 'en')).toBe(true);
    expect(isTurnComplete('OK, 서울 날씨를', 'en')).toBe(false);
    expect(isTurnComplete('서울 weather for the', 'ko')).toBe(false);
  });
});

describe('the corpus, as the transcript detector sees it', () => {
  const forms = { 'as spoken': (t: string) => t, 'with an STT full stop on every final': asSttFinal };
  for (const [form, final] of Object.entries(forms)) {
    describe(form, () => {
      for (const utterance of TURN_CORPUS) {
        const pieces = utterance.pieces.map((p) => final(p.text));
        const soFar = pieces.map((_, i) => pieces.slice(0, i + 1).join(' '));
        // A list item after a full stop ("Add milk. Eggs.") reads as a finished sentence: only
        // the comma, when an STT writes one, says the list goes on. Those are not asserted.
        const judgedByWords = form === 'as spoken' || utterance.kind !== 'list';
        it(`${utterance.id}: unfinished at each clear pause, finished at the end`, () => {
          soFar.slice(0, -1).forEach((text, i) => {
            if (utterance.pieces[i]!.completeSoFar || !judgedByWords) return;
            expect([text, isTurnComplete(text, utterance.language)]).toEqual([text, false]);
          });
          expect([soFar.at(-1), isTurnComplete(soFar.at(-1)!, utterance.language)]).toEqual([soFar.at(-1), true]);
        });
      }
    });
  }
});

describe('TranscriptTurnDetector', () => {
  const detector = new TranscriptTurnDetector();

  it('judges the caller’s latest words, not the earlier turns', async () => {
    const chat = llm.ChatContext.empty();
    chat.addMessage({ role: 'user', content: 'Yes.' });
    chat.addMessage({ role: 'assistant', content: 'Where would you like to book?' });
    chat.addMessage({ role: 'user', content: "I'd like to book a table for" });
    expect(await detector.predictEndOfTurn(chat)).toBeLessThan((await detector.unlikelyThreshold(asLanguageCode('en')))!);
    chat.addMessage({ role: 'user', content: '네 명이요.' });
    expect(await detector.predictEndOfTurn(chat)).toBeGreaterThanOrEqual((await detector.unlikelyThreshold(asLanguageCode('ko')))!);
  });

  it('answers any caller words with a probability, as the framework asks it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme' }), async (text) => {
        const chat = llm.ChatContext.empty();
        chat.addMessage({ role: 'user', content: text });
        const p = await detector.predictEndOfTurn(chat);
        expect(p).toBe(predictTurnComplete(text));
      }),
      { numRuns: 200 },
    );
  });

  it('answers a history with no caller words without throwing', async () => {
    const chat = llm.ChatContext.empty();
    chat.addMessage({ role: 'assistant', content: 'Hello!' });
    expect(Number.isFinite(await detector.predictEndOfTurn(chat))).toBe(true);
  });

  it('supports Korean and English however the STT spells them, and an STT that names no language', async () => {
    for (const code of ['ko', 'ko-KR', 'en', 'en-US', 'English', undefined]) {
      const language = code === undefined ? undefined : asLanguageCode(code);
      expect([code, await detector.supportsLanguage(language)]).toEqual([code, true]);
      expect([code, await detector.unlikelyThreshold(language)]).toEqual([code, 0.5]);
    }
    expect(await detector.supportsLanguage(asLanguageCode('ja'))).toBe(false);
    expect(await detector.unlikelyThreshold(asLanguageCode('ja'))).toBeUndefined();
  });
});
