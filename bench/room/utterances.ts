/**
 * What the caller says before each of bench/scenarios.ts's replies, and what they say to cut a
 * reply short. Each line is one sentence so that eSpeak's pauses stay inside one utterance: a
 * pause long enough to end the turn early would split it into two turns and two transcripts.
 * Each transcript is also the OpenAI fake's `match` for its reply, so all of them are distinct.
 */
import type { Language } from '../scenarios.js';

export const USER_LINES: Readonly<Record<string, string>> = {
  'en-one-sentence': 'Does seven thirty tomorrow work for you?',
  'en-short-first': 'Was the team meeting moved to another day?',
  'en-short-clause': 'Can you move my dentist appointment to Thursday?',
  'en-long-first': 'How did the quarterly report look this time?',
  'en-list': 'How do I change my subscription plan?',
  'en-numbers': 'What is my current balance and when is it due?',
  'en-six-sentences': 'When is the store open during the week?',
  'ko-one-sentence': '주문 상태 좀 확인해 주시겠어요?',
  'ko-short-first': '팀 회의 시간이 바뀌었나요?',
  'ko-short-clause': '치과 예약을 목요일로 옮겨 주실 수 있나요?',
  'ko-long-first': '이번 분기 실적은 어땠나요?',
  'ko-list': '요금제는 어떻게 바꾸나요?',
  'ko-numbers': '지금 잔액이 얼마이고 언제 빠져나가나요?',
  'ko-six-sentences': '매장은 평일에 언제 여나요?',
};

/** The barge-in: said while the agent talks, then answered with a short reply. */
export const BARGE_IN: Readonly<Record<Language, { line: string; reply: string }>> = {
  en: { line: 'Sorry, wait, hold on a second please.', reply: 'Of course, take your time.' },
  ko: { line: '잠깐만요, 잠시만 기다려 주세요.', reply: '네, 천천히 말씀하세요.' },
};
