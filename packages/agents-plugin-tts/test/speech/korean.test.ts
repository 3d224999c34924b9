import { describe, expect, it } from 'vitest';
import { normalizeForSpeech } from '../../src/chunking/speech/index.js';

/** [written, spoken] — read with Hangul context, i.e. what a Korean reply actually contains. */
const NATIVE_COUNTERS: [string, string][] = [
  ['3시', '세 시'],
  ['2명', '두 명'],
  ['20살', '스무 살'],
  ['21살', '스물한 살'],
  ['24시간', '스물네 시간'],
  ['1시간', '한 시간'],
  ['4마리', '네 마리'],
  ['5잔', '다섯 잔'],
  ['3권', '세 권'],
  ['2병', '두 병'],
  ['1대', '한 대'],
  ['3장', '세 장'],
  ['2그릇', '두 그릇'],
  ['3번 했어요', '세 번 했어요'],
  ['2배', '두 배'],
  ['12시', '열두 시'],
  ['11개', '열한 개'],
  ['99명', '아흔아홉 명'],
  ['30개', '서른 개'],
  ['45명', '마흔다섯 명'],
];

const NATIVE_FALLBACKS: [string, string][] = [
  ['100명', '백 명'],
  ['100살', '백 살'],
  ['150개', '백오십 개'],
  ['0개', '영 개'],
  ['0시', '영 시'],
  ['09시', '아홉 시'],
  ['3.5시간', '삼 점 오 시간'],
  ['1.5배', '일 점 오 배'],
];

const SINO: [string, string][] = [
  ['1500000원', '백오십만 원'],
  ['1,500원', '천오백 원'],
  ['10000원', '만 원'],
  ['1,500,000,000원', '십오억 원'],
  ['100000000원', '일억 원'],
  ['1234567원', '백이십삼만 사천오백육십칠 원'],
  ['2026년 11월 29일', '이천이십육 년 십일월 이십구 일'],
  ['3시 30분', '세 시 삼십 분'],
  ['1시간 30분', '한 시간 삼십 분'],
  ['3분 30초', '삼 분 삼십 초'],
  ['10개월', '십 개월'],
  ['6월', '유월'],
  ['10월', '시월'],
  ['1월', '일월'],
  ['12월', '십이월'],
  ['3층', '삼 층'],
  ['301호', '삼백일 호'],
  ['1등', '일 등'],
  ['3회', '삼 회'],
  ['20세', '이십 세'],
  ['2주', '이 주'],
  ['5페이지', '오 페이지'],
  ['2인분', '이 인분'],
  ['1990년대', '천구백구십 년대'],
  ['3번 출구', '삼 번 출구'],
  ['20대 여성', '이십 대 여성'],
  ['3대 2로 이겼다', '삼 대 이로 이겼다'],
];

const DECIMALS_AND_UNITS: [string, string][] = [
  ['3.14를', '삼 점 일사를'],
  ['0.5초', '영 점 오 초'],
  ['3.05점', '삼 점 영오 점'],
  ['3.5km를 달렸다', '삼 점 오 킬로미터를 달렸다'],
  ['10kg 감량', '십 킬로그램 감량'],
  ['5GB 남았어요', '오 기가바이트 남았어요'],
  ['시속 100km/h로', '시속 백 킬로미터로'],
  ['100km/h로 달린다', '시속 백 킬로미터로 달린다'],
  ['15% 할인', '십오 퍼센트 할인'],
  ['3.5% 인상', '삼 점 오 퍼센트 인상'],
  ['30°C 넘는 날', '삼십 도 넘는 날'],
  ['25℃입니다', '이십오 도입니다'],
];

const SPECIAL_FORMS: [string, string][] = [
  ['제1회', '제일 회'],
  ['제2차 세계대전', '제이 차 세계대전'],
  ['제3조에 따라', '제삼 조에 따라'],
  ['1번째', '첫 번째'],
  ['2번째', '두 번째'],
  ['20번째', '스무 번째'],
  ['21번째', '스물한 번째'],
  ['5천만 원', '오천만 원'],
  ['1억 5천만원', '일억 오천만 원'],
  ['1만 원', '만 원'],
  ['1천 원', '천 원'],
  ['3억', '삼억'],
  ['3~5개', '셋에서 다섯 개'],
  ['2~3시간', '둘에서 세 시간'],
  ['10~20% 할인', '십에서 이십 퍼센트 할인'],
  ['3~5월', '삼월에서 오월'],
];

const NEGATIVE: [string, string][] = [
  ['-5도', '영하 오 도'],
  ['기온은 -5도입니다', '기온은 영하 오 도입니다'],
  ['영하 -3℃', '영하 삼 도'],
  ['-5°C까지', '영하 오 도까지'],
  ['수익률 -3.5%', '수익률 마이너스 삼 점 오 퍼센트'],
  ['-10 더하기', '마이너스 십 더하기'],
  ['+3 더하기', '플러스 삼 더하기'],
];

const DIGIT_BY_DIGIT: [string, string][] = [
  ['010-1234-5678로 전화', '공일공 일이삼사 오육칠팔로 전화'],
  ['02-123-4567번', '공이 일이삼 사오육칠번'],
  ['대표번호 1588-1234', '대표번호 일오팔팔 일이삼사'],
  ['+82 10-1234-5678로', '플러스 팔이 일공 일이삼사 오육칠팔로'],
  ['주문번호 1234입니다', '주문번호 일이삼사입니다'],
  ['인증 코드는 4821이에요', '인증 코드는 사팔이일이에요'],
  ['비밀번호 0420', '비밀번호 공사이공'],
  ['007 요원', '공공칠 요원'],
];

const TIMES_DATES_MONEY: [string, string][] = [
  ['오후 3:30에', '오후 세 시 삼십 분에'],
  ['14:05까지', '열네 시 오 분까지'],
  ['9:00에 시작', '아홉 시에 시작'],
  ['3pm에', '오후 세 시에'],
  ['10:30 am에', '오전 열 시 삼십 분에'],
  ['2026-11-29에', '이천이십육 년 십일월 이십구 일에'],
  ['2026.11.29 기준', '이천이십육 년 십일월 이십구 일 기준'],
  ['2026. 3. 1. 시행', '이천이십육 년 삼월 일 일. 시행'],
  ['$3.50입니다', '삼 달러 오십 센트입니다'],
  ['$100 정도', '백 달러 정도'],
  ['$1.5M 규모', '백오십만 달러 규모'],
  ['₩1,500입니다', '천오백 원입니다'],
  ['€20 정도', '이십 유로 정도'],
];

const MIXED: [string, string][] = [
  [
    '회의는 2026년 3월 5일 오후 3:30에 시작하고, 참석자는 12명, 예산은 1,500만 원입니다.',
    '회의는 이천이십육 년 삼월 오 일 오후 세 시 삼십 분에 시작하고, 참석자는 열두 명, 예산은 천오백만 원입니다.',
  ],
  [
    '사과 3개와 배 2개를 사고 10,000원을 냈어요.',
    '사과 세 개와 배 두 개를 사고 만 원을 냈어요.',
  ],
  [
    '매일 1시간 30분씩 걷고, 한 달에 3.5kg을 뺐어요.',
    '매일 한 시간 삼십 분씩 걷고, 한 달에 삼 점 오 킬로그램을 뺐어요.',
  ],
  [
    '문의는 010-1234-5678 또는 AI 상담원에게 하세요.',
    '문의는 공일공 일이삼사 오육칠팔 또는 에이아이 상담원에게 하세요.',
  ],
  ['3과 4를 더하면 7이에요.', '삼과 사를 더하면 칠이에요.'],
  ['20대의 30%가 하루 2번 커피를 마셔요.', '이십 대의 삼십 퍼센트가 하루 두 번 커피를 마셔요.'],
];

describe('normalizeForSpeech — Korean', () => {
  const groups: Record<string, [string, string][]> = {
    'native numbers with counters': NATIVE_COUNTERS,
    'native numbers fall back to Sino-Korean': NATIVE_FALLBACKS,
    'Sino-Korean amounts, dates, minutes, units': SINO,
    'decimals, units, percentages, degrees': DECIMALS_AND_UNITS,
    '제, 번째, magnitude words, ranges': SPECIAL_FORMS,
    'negative numbers (영하 for temperatures, 마이너스 otherwise)': NEGATIVE,
    'phone numbers and codes digit by digit': DIGIT_BY_DIGIT,
    'times, dates and money': TIMES_DATES_MONEY,
    'mixed sentences': MIXED,
  };
  for (const [name, cases] of Object.entries(groups)) {
    describe(name, () => {
      it.each(cases)('%s → %s', (written, spoken) => {
        expect(normalizeForSpeech(written)).toBe(spoken);
      });
    });
  }

  it('reads a bare number in Korean when language is forced, and in English without Hangul', () => {
    expect(normalizeForSpeech('15%', { language: 'ko' })).toBe('십오 퍼센트');
    expect(normalizeForSpeech('3.14', { language: 'ko' })).toBe('삼 점 일사');
    expect(normalizeForSpeech('15%')).toBe('fifteen percent');
  });

  it('keeps a particle glued to the number when no counter follows', () => {
    expect(normalizeForSpeech('답은 42입니다')).toBe('답은 사십이입니다');
  });

  it('reads numbers past the 경 unit digit by digit instead of inventing units', () => {
    expect(normalizeForSpeech('12345678901234567890123456원')).toBe('일이삼사오육칠팔구영일이삼사오육칠팔구영일이삼사오육 원');
  });

  it('uses Sino-Korean above 99 for native counters and for labels after 번', () => {
    expect(normalizeForSpeech('3번 버스')).toBe('삼 번 버스');
    expect(normalizeForSpeech('120명')).toBe('백이십 명');
  });
});
