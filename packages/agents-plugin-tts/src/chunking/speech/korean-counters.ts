/**
 * Which number system a Korean counter takes. A counter glued to a number decides how the number
 * is read: 3시 → 세 시 (native) but 3분 → 삼 분 (Sino-Korean).
 */

export type CounterSystem = 'native' | 'sino' | 'month' | 'ordinal';

export interface Counter {
  readonly word: string;
  readonly system: CounterSystem;
}

/** Counters of counted things and hours; numbers above 99 fall back to Sino-Korean. */
const NATIVE = [
  '시간', '시', '개', '명', '살', '번', '마리', '잔', '권', '병', '대', '장', '그릇', '사람', '곳',
  '군데', '가지', '벌', '켤레', '송이', '그루', '척', '채', '통', '줄', '자루', '봉지', '상자', '판',
  '조각', '알', '쌍', '방울', '모금', '접시', '캔', '팩', '달', '배', '포기', '다발', '바퀴', '걸음',
  '끼', '톨', '닢', '골',
];

/**
 * Measured quantities, money, dates, minutes and seconds, ranks, floors, rooms. 과 and 이 are
 * deliberately absent: after a number they are almost always particles (3과 4, 3이 답).
 */
const SINO = [
  '원', '달러', '센트', '엔', '유로', '위안', '파운드', '년', '년대', '년생', '개월', '개국', '일',
  '주', '주일', '주년', '주차', '분', '분기', '초', '회', '회차', '차', '층', '호', '호선', '호실',
  '동', '번지', '도', '점', '등', '위', '세', '학년', '학기', '반', '단계', '편', '부', '쪽', '페이지',
  '퍼센트', '프로', '인', '인분', '박', '강', '절', '조', '항', '기', '킬로미터', '킬로그램', '킬로', '미터',
  '센티미터', '센티', '밀리미터', '밀리', '그램', '리터', '밀리리터', '시즌', '라운드', '세트',
  '포인트', '평', '칼로리', '킬로칼로리', '와트', '볼트', '헤르츠', '바이트', '기가바이트',
  '메가바이트', '테라바이트', '기가', '메가', '화', '부작', '승', '패', '무', '타', '안타',
];

const COUNTERS: ReadonlyMap<string, Counter> = new Map([
  ...NATIVE.map((word): [string, Counter] => [word, { word, system: 'native' }]),
  ...SINO.map((word): [string, Counter] => [word, { word, system: 'sino' }]),
  ['월', { word: '월', system: 'month' }],
  ['번째', { word: '번째', system: 'ordinal' }],
]);

/** Counters grouped by first character, longest first: one Map lookup, then startsWith. */
const COUNTERS_BY_FIRST_CHAR: ReadonlyMap<string, readonly Counter[]> = (() => {
  const byFirst = new Map<string, Counter[]>();
  for (const counter of COUNTERS.values()) {
    const list = byFirst.get(counter.word[0]) ?? [];
    list.push(counter);
    byFirst.set(counter.word[0], list);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.word.length - a.word.length);
  return byFirst;
})();

/** Longest counter starting at `index` (시간 wins over 시, 개월 over 개), or null. */
export function counterAt(text: string, index: number): Counter | null {
  const candidates = COUNTERS_BY_FIRST_CHAR.get(text.charAt(index));
  if (candidates === undefined) return null;
  for (const counter of candidates) if (text.startsWith(counter.word, index)) return counter;
  return null;
}

/**
 * After 번 a following noun can make it a label rather than a count: 3번 출구 is exit number
 * three (삼 번), 3번 했다 is three times (세 번).
 */
const LABEL_AFTER_BEON = /^\s?(?:출구|버스|선|방|문제|게이트|채널|트랙|홈|타자|국도|항목|질문|답|선수|테이블|창구|좌석|칸)/;

/** Number-words written after digits (checked before counters, so 3조 is three trillion unless 제 precedes it): 5천만 → 오천만, 1억 → 일억. */
const MAGNITUDE_WORD = /^(?:[십백천]?[만억조경]|[십백천])/;

const MAGNITUDE_CHARS = '십백천만억조경';

export function magnitudeWordAt(text: string, index: number): string | null {
  if (!MAGNITUDE_CHARS.includes(text.charAt(index))) return null;
  const match = MAGNITUDE_WORD.exec(text.slice(index, index + 2));
  return match === null ? null : match[0];
}

/**
 * The system actually used for `value` with `counter`, after the exceptions speakers make:
 * labels after 번, decades with 대 (20대 → 이십 대), scores with 대 (3대 2 → 삼 대 이).
 */
export function effectiveSystem(counter: Counter, value: number, text: string, afterCounter: number): CounterSystem {
  if (counter.word === '번' && LABEL_AFTER_BEON.test(text.slice(afterCounter, afterCounter + 5))) return 'sino';
  if (counter.word === '대') {
    if (value >= 10 && value % 10 === 0) return 'sino';
    if (/^\s?\d/.test(text.slice(afterCounter, afterCounter + 2))) return 'sino';
  }
  return counter.system;
}
