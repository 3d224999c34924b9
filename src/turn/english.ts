/**
 * Whether an English transcript reads as a finished turn, judged by its last words: a filler or a
 * word that needs another after it ("and", "the", "to", "my") means the caller is mid-thought;
 * a phone number still short of its digits, a list without its "and", or a trailing ellipsis
 * means more is probably coming. Everything else is a finished sentence.
 */
import { LIKELIHOOD, withPunctuation } from './likelihood.js';
import { type TranscriptEnding, type TranscriptWord, type TranscriptWords, separatedAfter, trailingRun } from './transcript-words.js';

const FILLERS = new Set(['um', 'umm', 'uhm', 'uh', 'uhh', 'er', 'erm', 'hmm', 'hmmm', 'mm']);
const FILLER_PHRASES = [['i', 'mean'], ['let', 'me', 'see'], ['let', 'me', 'think'], ['you', 'know', 'what']];
const CONJUNCTIONS = new Set([
  'and', 'or', 'but', 'so', 'because', 'cause', 'cuz', 'if', 'when', 'while', 'although', 'unless',
  'whether', 'nor', 'plus', 'than', 'whereas', 'since', 'then',
]);
/** "so" ends a sentence after these: "I think so", "I hope so". */
const SO_FINISHERS = new Set(['think', 'hope', 'guess', 'suppose', 'believe', 'said', 'say', 'told', 'do', 'did', 'so', 'not']);
/** "then" ends one after these: "see you then", "okay then", "bye then". */
const THEN_FINISHERS = new Set(['you', 'okay', 'ok', 'bye', 'and', 'fine', 'since', 'until', 'till', 'right']);
const DETERMINERS = new Set(['the', 'a', 'an', 'my', 'your', 'our', 'their', 'his', 'its', 'every', 'each']);
const PREPOSITIONS = new Set([
  'to', 'for', 'of', 'with', 'about', 'at', 'from', 'into', 'onto', 'by', 'via', 'per', 'without',
  'between', 'toward', 'towards', 'during', 'until', 'till', 'near', 'regarding', 'including', 'except',
]);
/**
 * "in" and "on" are prepositions ("Is the store on") and also particles that finish a phrase
 * ("turn it on", "I'm logged in", "hold on"): they finish one after these words.
 */
const IN_ON = new Set(['in', 'on']);
const PARTICLE_TAKERS = new Set([
  'it', 'me', 'us', 'you', 'him', 'her', 'them', 'this', 'that', 'hold', 'go', 'come', 'turn', 'log', 'logged',
  'sign', 'signed', 'check', 'checked', 'carry', 'keep', 'move', 'right', 'back', 'is', 'are', 'was', 'were',
  "i'm", "it's", 'be', 'been', 'still', 'now', 'already', 'plug', 'plugged', 'switch', 'put', 'try',
]);
/** A question can end on these ("Who is it from?", "What is this for?"); never on "to" or "of". */
const STRANDABLE = new Set(['for', 'from', 'with', 'about', 'at', 'by']);
const WH_WORDS = new Set(['what', "what's", 'who', "who's", 'where', "where's", 'which', 'how', 'whom', 'whose', 'when']);
const AUXILIARIES = new Set([
  'is', 'are', 'was', 'were', 'am', 'be', 'been', 'being', 'will', 'would', 'can', 'could', 'should',
  'shall', 'may', 'might', 'must', 'do', 'does', 'did', 'have', 'has', 'had',
]);
/** "Yes it is", "I can": an auxiliary after a pronoun is a short answer, not a cut-off. */
const PRONOUNS = new Set(['i', 'you', 'he', 'she', 'it', 'we', 'they', 'there', 'that', 'this', 'not']);
const SUBJECTS = new Set(['i', 'we', 'they', 'he', 'she']);
const ANSWERS = new Set([
  'yes', 'yeah', 'yep', 'yup', 'no', 'nope', 'nah', 'okay', 'ok', 'sure', 'thanks', 'thank', 'you',
  'right', 'correct', 'exactly', 'great', 'perfect', 'fine', 'absolutely', 'definitely', 'alright',
  'bye', 'hello', 'hi', 'please', 'good', 'cool',
]);
const DIGIT_WORDS = new Set(['zero', 'oh', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']);
const NUMBER_WORDS = new Set([
  ...DIGIT_WORDS, 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen',
  'eighteen', 'nineteen', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety',
  'hundred', 'thousand', 'double', 'triple',
]);
const PHONE_CUES = new Set(['phone', 'call', 'cell', 'mobile', 'reach', 'text', 'telephone']);
/** How many digits a phone number has when it is whole: local, national, with a country or trunk prefix. */
const WHOLE_PHONE_DIGITS = new Set([7, 10, 11]);

export function englishTurnLikelihood({ words, ending }: TranscriptWords): number {
  return withPunctuation(byWords(words, ending), ending, hasEarlierComma(words));
}

function byWords(words: readonly TranscriptWord[], ending: TranscriptEnding): number {
  const last = words.at(-1)!.text;
  const before = words.at(-2)?.text;
  const texts = words.map((w) => w.text);

  if (FILLERS.has(last) || FILLER_PHRASES.some((phrase) => endsWith(texts, phrase))) return LIKELIHOOD.midThought;
  if (CONJUNCTIONS.has(last) && !finishesOn(last, before, words.length)) return LIKELIHOOD.midThought;
  if (DETERMINERS.has(last)) return LIKELIHOOD.continues;
  if (PREPOSITIONS.has(last) && !isStrandedInQuestion(words)) return LIKELIHOOD.continues;
  if (IN_ON.has(last) && !(before !== undefined && PARTICLE_TAKERS.has(before))) return LIKELIHOOD.continues;
  if (AUXILIARIES.has(last) && !(before !== undefined && PRONOUNS.has(before))) return LIKELIHOOD.continues;
  if (SUBJECTS.has(last) && !(before !== undefined && AUXILIARIES.has(before))) return LIKELIHOOD.continues;

  const numbers = numberEvidence(words);
  if (numbers !== undefined) return numbers;
  if (words.length <= 3 && texts.every((w) => ANSWERS.has(w))) return LIKELIHOOD.surelyOver;
  return LIKELIHOOD.over;
}

function endsWith(texts: readonly string[], phrase: readonly string[]): boolean {
  return texts.length >= phrase.length && phrase.every((w, i) => texts[texts.length - phrase.length + i] === w);
}

function finishesOn(last: string, before: string | undefined, length: number): boolean {
  if (last === 'so') return before !== undefined && SO_FINISHERS.has(before);
  if (last === 'then') return length > 1 && before !== undefined && THEN_FINISHERS.has(before);
  return false;
}

/**
 * "Who is it from?" and "What is this for" end on a preposition and are finished; "What about"
 * is not. The wh-word must open the same sentence.
 */
function isStrandedInQuestion(words: readonly TranscriptWord[]): boolean {
  const sentence = words.slice(lastSentenceStart(words)).map((w) => w.text);
  const last = sentence.at(-1)!;
  if (!STRANDABLE.has(last) || sentence.length < 3) return false;
  const before = sentence.at(-2)!;
  if (last === 'about' && (before === 'what' || before === 'how')) return false;
  return WH_WORDS.has(sentence[0]!);
}

function lastSentenceStart(words: readonly TranscriptWord[]): number {
  for (let i = words.length - 2; i >= 0; i--) if (/[.?!。？！]/u.test(words[i]!.after)) return i + 1;
  return 0;
}

/**
 * A number read out is finished when it is a whole phone number, or the last item of a list
 * after its "and"; it is in progress while a phone number lacks digits or a list of numbers goes
 * on without its "and". Undefined when the transcript does not end on a number.
 */
function numberEvidence(words: readonly TranscriptWord[]): number | undefined {
  const run = trailingRun(words, isNumber);
  if (run.length === 0) return undefined;
  const cued = words.slice(0, words.length - run.length).some((w, i, all) => PHONE_CUES.has(w.text) || (w.text === 'number' && ['my', 'the', 'your'].includes(all[i - 1]?.text ?? '')));
  if (cued) return WHOLE_PHONE_DIGITS.has(digitCount(run)) ? LIKELIHOOD.over : LIKELIHOOD.probablyContinues;
  const listed = run.length >= 2 && separatedAfter(run.at(-2)!);
  if (listed) return LIKELIHOOD.probablyContinues;
  return undefined;
}

function isNumber(word: TranscriptWord): boolean {
  return word.script === 'digits' || NUMBER_WORDS.has(word.text);
}

function digitCount(run: readonly TranscriptWord[]): number {
  return run.reduce((n, w) => n + (w.script === 'digits' ? w.text.length : DIGIT_WORDS.has(w.text) ? 1 : w.text === 'double' || w.text === 'triple' ? 0 : 2), 0);
}

function hasEarlierComma(words: readonly TranscriptWord[]): boolean {
  return words.slice(0, -1).some((w) => w.after.includes(','));
}
