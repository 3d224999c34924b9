/**
 * The replies every strategy speaks. Each shape is there for a reason: where firstword should win
 * most (a long first sentence, Korean), where it should win little (one short sentence), where a
 * naive splitter breaks (numbers, lists), and where a short first chunk risks a gap (a one-word
 * first sentence followed by a long one).
 */
export type Language = 'ko' | 'en';

/** Every scenario is spoken against each provider's local server (the one list: bench/peers/catalog.ts). */
export { PROVIDERS, type Provider } from './peers/catalog.js';

/**
 * The LLM a scenario is spoken under: a token rate, and how much each gap between tokens varies
 * (jitter 0.5: each gap × uniform[0.5, 1.5], from a seeded PRNG, different in every repetition).
 */
export interface Condition {
  tokensPerSecond: number;
  jitter: number;
}

/** 40 tokens/s steady (the TTFA comparison), 15 steady and 15 ±50% (the slow LLM that leaves pauses). */
export const DEFAULT_CONDITIONS: readonly Condition[] = [
  { tokensPerSecond: 40, jitter: 0 },
  { tokensPerSecond: 15, jitter: 0 },
  { tokensPerSecond: 15, jitter: 0.5 },
];

export function conditionLabel(c: Condition): string {
  return `${c.tokensPerSecond} tok/s${c.jitter > 0 ? ` ±${Math.round(c.jitter * 100)}%` : ''}`;
}

export interface Scenario {
  name: string;
  language: Language;
  /** What the shape tests, for the printed table. */
  note: string;
  reply: string;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'en-one-sentence',
    language: 'en',
    note: 'one short sentence: little to gain',
    reply: 'Yes, that works for me.',
  },
  {
    name: 'en-short-first',
    language: 'en',
    note: 'one-word first sentence, then long ones',
    reply:
      'Sure. The meeting has been moved to Thursday at three in the afternoon, in room two hundred and four. ' +
      'I will send the new invite to everyone on the list right after this call.',
  },
  {
    name: 'en-short-clause',
    language: 'en',
    note: 'three-word first sentence, then a long one (the gap a short first sentence leaves)',
    reply:
      'Sure, no problem. I have moved your appointment with the dentist from Tuesday morning to Thursday afternoon ' +
      'at four and the reminder will come by text message the day before. Anything else?',
  },
  {
    name: 'en-long-first',
    language: 'en',
    note: 'long first sentence without commas',
    reply:
      'The quarterly report shows that revenue grew by twelve percent compared to the same period last year ' +
      'because the new subscription plan attracted more small business customers than we expected. ' +
      'We think the trend will continue next quarter.',
  },
  {
    name: 'en-list',
    language: 'en',
    note: 'numbered list on separate lines',
    reply:
      'Here is how to change your plan:\n1. Open the settings page.\n2. Select the billing tab and choose a new plan.\n' +
      '3. Confirm the change with your password.\nThe new price applies from your next invoice.',
  },
  {
    name: 'en-numbers',
    language: 'en',
    note: 'amounts, decimals, percentages, dates',
    reply:
      'Your balance is $1,250.75, and the next payment of $89.99 is due on March 3. ' +
      'The interest rate stays at 4.5% until 2026. You can pay early at no extra cost, and payments of $100 or more are accepted.',
  },
  {
    name: 'en-six-sentences',
    language: 'en',
    note: 'six sentences with clauses',
    reply:
      'Good question, let me walk you through it. The store opens at nine in the morning on weekdays. ' +
      'On Saturdays it opens an hour later, at ten. It is closed on Sundays and public holidays. ' +
      'Parking is free for the first two hours if you validate your ticket at the front desk. Let me know if you need directions.',
  },
  {
    name: 'ko-one-sentence',
    language: 'ko',
    note: 'one short sentence: little to gain',
    reply: '네, 지금 바로 확인해 드릴게요.',
  },
  {
    name: 'ko-short-first',
    language: 'ko',
    note: 'one-word first sentence, then long ones',
    reply:
      '네. 회의는 목요일 오후 세 시로 옮겨졌고 장소는 204호 회의실입니다. ' +
      '통화가 끝나면 참석자 모두에게 새 초대장을 바로 보내 드릴게요.',
  },
  {
    name: 'ko-short-clause',
    language: 'ko',
    note: 'three-word first sentence, then a long one (the gap a short first sentence leaves)',
    reply:
      '네, 바로 확인했습니다. 치과 예약을 화요일 오전에서 목요일 오후 네 시로 옮겨 두었고 ' +
      '하루 전날 문자로 알림을 보내 드릴게요. 더 필요하신 건 없으세요?',
  },
  {
    name: 'ko-long-first',
    language: 'ko',
    note: 'long first sentence without commas',
    reply:
      '이번 분기 보고서를 보면 새로운 구독 요금제가 예상보다 많은 소상공인 고객을 끌어들이면서 ' +
      '매출이 작년 같은 기간보다 십이 퍼센트 늘어난 것을 확인할 수 있습니다. 다음 분기에도 이 흐름이 이어질 것으로 보고 있어요.',
  },
  {
    name: 'ko-list',
    language: 'ko',
    note: 'numbered list on separate lines',
    reply:
      '요금제 변경은 이렇게 하시면 돼요.\n1. 설정 화면을 엽니다.\n2. 결제 탭에서 새 요금제를 고릅니다.\n' +
      '3. 비밀번호를 입력해 변경을 확인합니다.\n새 요금은 다음 청구서부터 적용됩니다.',
  },
  {
    name: 'ko-numbers',
    language: 'ko',
    note: 'amounts, decimals, percentages, dates',
    reply:
      '현재 잔액은 1,250,000원이고, 다음 결제 금액 89,000원은 3월 3일에 빠져나갑니다. ' +
      '이자율은 2026년까지 4.5%로 유지됩니다. 미리 갚으셔도 수수료는 없어요.',
  },
  {
    name: 'ko-six-sentences',
    language: 'ko',
    note: 'six sentences with clauses',
    reply:
      '좋은 질문이에요, 하나씩 설명해 드릴게요. 매장은 평일 오전 아홉 시에 문을 엽니다. ' +
      '토요일에는 한 시간 늦은 열 시에 열어요. 일요일과 공휴일에는 쉽니다. ' +
      '안내 데스크에서 주차권을 확인받으시면 처음 두 시간은 주차가 무료예요. 길 안내가 필요하시면 말씀해 주세요.',
  },
];
