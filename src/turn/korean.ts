/**
 * Whether a Korean transcript reads as a finished turn. A Korean sentence ends on its predicate,
 * so the last word says most: a final ending ("-요", "-다", "-까", "-죠", "-어") finishes it; a
 * connective ending ("-고", "-는데", "-서", "-면", "-니까", "-지만") or a particle ("-을/를",
 * "-은/는", "-에", "-랑") means the predicate is still to come; a filler ("음", "어", "그러니까")
 * or a conjunction ("그리고", "근데") means the caller is mid-thought. A bare noun phrase
 * ("서울 날씨") is often a whole request, unless a topic or object was already named without
 * its predicate ("제 번호는 공일공 일이삼사").
 */
import { LIKELIHOOD, withPunctuation } from './likelihood.js';
import { syllableIndex } from '@firstword/agents-plugin-tts/chunking';
import { type TranscriptEnding, type TranscriptWord, type TranscriptWords, separatedAfter } from './transcript-words.js';

const FILLERS = new Set([
  '음', '음음', '으음', '어', '어어', '으', '엄', '흠', '아', '아아', '저', '저기', '그', '그게', '뭐', '뭐지',
  '뭐더라', '있잖아', '있잖아요', '막', '좀', '이제', '약간', '그니까', '그러니까',
]);
/** Fillers that are also a whole question when asked: "뭐?", "어?". */
const ASKABLE_FILLERS = new Set(['뭐', '어', '뭐지']);
const CONJUNCTIONS = new Set([
  '그리고', '근데', '그런데', '그래서', '그러면', '그럼', '하지만', '그렇지만', '그래도', '또', '또는', '아니면',
  '혹은', '왜냐하면', '왜냐면', '그러고', '그러다가', '및', '그다음에',
]);
/** Words that need a noun after them: "그 다른", "제", "무슨", "몇". */
const DETERMINERS = new Set(['이', '제', '내', '무슨', '어떤', '어느', '몇', '모든', '각', '새', '다른', '이런', '그런', '저런']);
/** Adverbs that need their verb: "구독을 잠시", "택배가 언제" (as a question they are whole: "언제?"). */
const PREDICATE_ADVERBS = new Set([
  '잠시', '잠깐', '언제', '어디', '어떻게', '왜', '얼마나', '아직', '혹시', '정말', '너무', '빨리', '조금', '다시', '먼저', '꼭', '제일', '가장',
]);
const ANSWERS = new Set(['네', '예', '응', '아니', '아니요', '아니오', '아뇨', '그럼', '오케이', '그래', '좋아', '맞아']);
/** "-는데요", "-거든요": grammatically final, but usually a lead-in to what the caller wants. */
const LEAD_IN_ENDINGS = ['는데요', '은데요', '인데요', '던데요', '거든요'];
const QUESTION_ENDINGS = ['까', '니', '냐', '나', '죠', '래'];
/** Final endings of a predicate, by the word's last syllable (after the connectives are ruled out). */
const FINAL_SYLLABLES = new Set([
  '요', '다', '까', '니', '냐', '나', '죠', '지', '네', '군', '어', '아', '해', '돼', '줘', '봐', '워', '와',
  '야', '자', '게', '걸', '라', '대', '래', '때', '여', '셈', '임', '함', '음',
]);
/**
 * Endings and particles that leave the predicate to come, longest first, with how strongly.
 * Nouns that happen to end the same way ("라면", "계약서", "회의") are rare at the end of a
 * request; the weaker grades go to the endings nouns share most.
 */
const CONTINUING_SUFFIXES: ReadonlyArray<readonly [string, number]> = [
  ['자마자', LIKELIHOOD.continues],
  ['으니까', LIKELIHOOD.midThought],
  ['니까', LIKELIHOOD.midThought],
  ['지만', LIKELIHOOD.midThought],
  ['면서', LIKELIHOOD.continues],
  ['려고', LIKELIHOOD.continues],
  ['도록', LIKELIHOOD.continues],
  ['거나', LIKELIHOOD.continues],
  ['든지', LIKELIHOOD.probablyContinues],
  ['다가', LIKELIHOOD.probablyContinues],
  ['는데', LIKELIHOOD.probablyContinues],
  ['은데', LIKELIHOOD.probablyContinues],
  ['인데', LIKELIHOOD.probablyContinues],
  ['던데', LIKELIHOOD.probablyContinues],
  ['는지', LIKELIHOOD.probablyContinues],
  ['은지', LIKELIHOOD.probablyContinues],
  ['인지', LIKELIHOOD.probablyContinues],
  ['을지', LIKELIHOOD.probablyContinues],
  ['에게', LIKELIHOOD.continues],
  ['한테', LIKELIHOOD.continues],
  ['께서', LIKELIHOOD.continues],
  ['부터', LIKELIHOOD.probablyContinues],
  ['까지', LIKELIHOOD.probablyContinues],
  ['보다', LIKELIHOOD.probablyContinues],
  ['처럼', LIKELIHOOD.probablyContinues],
  ['만큼', LIKELIHOOD.probablyContinues],
  ['랑', LIKELIHOOD.continues],
  ['고', LIKELIHOOD.continues],
  ['서', LIKELIHOOD.probablyContinues],
  ['면', LIKELIHOOD.probablyContinues],
  ['며', LIKELIHOOD.probablyContinues],
  ['을', LIKELIHOOD.continues],
  ['를', LIKELIHOOD.continues],
  ['은', LIKELIHOOD.continues],
  ['는', LIKELIHOOD.continues],
  ['에', LIKELIHOOD.continues],
  ['로', LIKELIHOOD.probablyContinues],
  ['의', LIKELIHOOD.probablyContinues],
  ['이', LIKELIHOOD.probablyContinues],
  ['가', LIKELIHOOD.probablyContinues],
];
/** Words ending like a particle that are whole answers: "저도" (me too). */
const WHOLE_DESPITE_SUFFIX = new Set(['저도', '나도', '저는요', '최고']);
/** Topic, subject and object particles: once one is said, the sentence owes a predicate. */
const ARGUMENT_PARTICLES = ['은', '는', '을', '를', '이', '가'];
const SINO_DIGITS = /^[공영일이삼사오육칠팔구십백천만]+$/u;
const NATIVE_NUMBERS = new Set(['하나', '둘', '셋', '넷', '다섯', '여섯', '일곱', '여덟', '아홉', '열', '한', '두', '세', '네']);
const LIST_CLOSERS = new Set(['그리고', '및', '또는', '아니면', '하고', '랑']);

export function koreanTurnLikelihood({ words, ending }: TranscriptWords): number {
  return withPunctuation(byWords(words, ending), ending, listBefore(words));
}

function byWords(words: readonly TranscriptWord[], ending: TranscriptEnding): number {
  const word = words.at(-1)!.text;
  if (words.every((w) => ANSWERS.has(w.text))) return LIKELIHOOD.surelyOver;
  if (FILLERS.has(word)) return ending === 'question' && ASKABLE_FILLERS.has(word) ? LIKELIHOOD.surelyOver : LIKELIHOOD.midThought;
  if (CONJUNCTIONS.has(word)) return LIKELIHOOD.midThought;
  if (DETERMINERS.has(word)) return LIKELIHOOD.continues;
  if (PREDICATE_ADVERBS.has(word)) return LIKELIHOOD.probablyContinues;
  return finishedWordLikelihood(word) ?? unfinishedLikelihood(words);
}

/** The likelihood a predicate's final ending gives, or undefined when the last word has none. */
function finishedWordLikelihood(word: string): number | undefined {
  if (word.endsWith('요')) {
    if (LEAD_IN_ENDINGS.some((e) => word.endsWith(e))) return LIKELIHOOD.leansContinues;
    return word.endsWith('고요') ? LIKELIHOOD.leansOver : LIKELIHOOD.surelyOver;
  }
  if (WHOLE_DESPITE_SUFFIX.has(word)) return LIKELIHOOD.over;
  if (isNumberWord(word)) return undefined;
  if (continuingSuffix(word) !== undefined) return undefined;
  if (QUESTION_ENDINGS.some((e) => word.endsWith(e)) && word.length >= 2) return LIKELIHOOD.surelyOver;
  return word.length >= 2 && FINAL_SYLLABLES.has(word.at(-1)!) ? LIKELIHOOD.over : undefined;
}

/** The last word has no final ending: a connective, a particle, a number or a bare noun. */
function unfinishedLikelihood(words: readonly TranscriptWord[]): number {
  const word = words.at(-1)!.text;
  const suffix = isNumberWord(word) ? undefined : continuingSuffix(word);
  if (suffix !== undefined) return suffix;
  if (isNumberWord(word) && listBefore(words)) return LIKELIHOOD.probablyContinues;
  if (words.slice(0, -1).some((w) => hasArgumentParticle(w.text))) return LIKELIHOOD.probablyContinues;
  return LIKELIHOOD.leansOver;
}

function continuingSuffix(word: string): number | undefined {
  if (word.length < 2) return undefined;
  if (endsOnNieunDe(word)) return LIKELIHOOD.probablyContinues;
  return CONTINUING_SUFFIXES.find(([suffix]) => word.endsWith(suffix) && word.length > suffix.length)?.[1];
}

/** "-ㄴ데" written into the syllable before it ("한데", "간데"): the lead-in connective. */
function endsOnNieunDe(word: string): boolean {
  if (!word.endsWith('데') || word.length < 2) return false;
  const index = syllableIndex(word.charCodeAt(word.length - 2));
  return index !== undefined && index % 28 === 4;
}

function hasArgumentParticle(word: string): boolean {
  return word.length >= 2 && !isNumberWord(word) && ARGUMENT_PARTICLES.some((p) => word.endsWith(p));
}

function isNumberWord(word: string): boolean {
  return /^\p{N}+$/u.test(word) || SINO_DIGITS.test(word) || NATIVE_NUMBERS.has(word);
}

/** An earlier item of a list in progress: a separated item before the last one, with no "그리고" closing it. */
function listBefore(words: readonly TranscriptWord[]): boolean {
  const earlier = words.slice(0, -1);
  if (earlier.some((w) => LIST_CLOSERS.has(w.text))) return false;
  return earlier.some(separatedAfter) || (words.length >= 2 && isNumberWord(words.at(-2)!.text) && isNumberWord(words.at(-1)!.text));
}
