/**
 * The false-end corpus: what callers say to a voice assistant, with the pauses of someone who has
 * not finished. Korean and English in equal measure, each pause length (300, 500, 700, 1,000 ms)
 * several times in each language, and many complete turns of every length — the turns where the
 * agent should answer fast.
 *
 * Pieces hold what the caller says between pauses, which is also what a streaming STT finalises
 * (one final per piece). Commas stay at the ends of pieces: inside a piece the local voice pauses
 * at a comma for ~160 ms, an unlabelled pause the bench would take for speech.
 */
import type { SpokenLanguage } from '../../src/spoken/utterance.js';
import type { CorpusKind, CorpusPiece, CorpusUtterance } from './corpus-types.js';

/** A piece after which the words so far are not yet a turn. */
function piece(text: string, pauseAfterMs?: number): CorpusPiece {
  return pauseAfterMs === undefined ? { text } : { text, pauseAfterMs };
}

/** A piece after which the words so far already read as a whole turn (see {@link CorpusPiece}). */
function whole(text: string, pauseAfterMs: number): CorpusPiece {
  return { text, pauseAfterMs, completeSoFar: true };
}

function utterance(id: `${SpokenLanguage}-${CorpusKind}-${number}`, ...pieces: CorpusPiece[]): CorpusUtterance {
  const [language, kind] = id.split('-') as [SpokenLanguage, CorpusKind];
  return { id, language, kind, pieces };
}

const ENGLISH: readonly CorpusUtterance[] = [
  utterance('en-complete-1', piece('Yes.')),
  utterance('en-complete-2', piece('No thanks.')),
  utterance('en-complete-3', piece('Sounds good.')),
  utterance('en-complete-4', piece('Cancel my order.')),
  utterance('en-complete-5', piece("What's the weather today?")),
  utterance('en-complete-6', piece('Is it going to rain tomorrow?')),
  utterance('en-complete-7', piece('Book a table for two at seven.')),
  utterance('en-complete-8', piece('Can you check my account balance?')),
  utterance('en-complete-9', piece("I'd like to change my delivery address.")),
  utterance('en-complete-10', piece('Where is my package right now?')),
  utterance('en-complete-11', piece('Please send the receipt to my email address.')),
  utterance('en-complete-12', piece('What time does the pharmacy on Main Street close tonight?')),
  utterance('en-complete-13', piece('I ordered a blue jacket last week and it still has not arrived.')),
  utterance('en-complete-14', piece('Could you tell me how much I owe on my credit card this month?')),

  utterance('en-pause-1', piece("I'd like to book a table for", 300), piece('four people tonight.')),
  utterance('en-pause-2', piece('Will it be sunny this weekend in', 500), piece('Busan?')),
  utterance('en-pause-3', piece('Can you move my appointment to', 700), piece('next Tuesday afternoon?')),
  utterance('en-pause-4', piece('Send the invoice to my', 1000), piece('work email please.')),
  utterance('en-pause-5', whole('I need a table.', 700), piece('For four people.')),
  utterance('en-pause-6', whole('My password does not work', 500), piece('since this morning.')),
  utterance('en-pause-7', piece('How long does delivery take to', 300), piece('Jeju Island?')),
  utterance('en-pause-8', whole('I want to cancel the order I placed', 1000), piece('yesterday evening.')),
  utterance('en-pause-9', piece('Is the store on', 500), piece('Main Street open on Sundays?')),

  utterance('en-filler-1', piece("I'd like to order um", 500), piece('a large pepperoni pizza.')),
  utterance('en-filler-2', piece('So…', 700), piece("what's the weather like tomorrow?")),
  utterance('en-filler-3', piece('Uh', 300), piece('can you check my last order?')),
  utterance('en-filler-4', piece('My account number is uh', 1000), piece('four four seven two.')),
  utterance('en-filler-5', piece('I was wondering um', 300), piece('if you have a room for Friday night.')),
  utterance('en-filler-6', piece('Can I change the um', 700), piece('the pickup time?')),

  utterance('en-list-1', piece('My phone number is five five five', 500), piece('zero one two three.')),
  utterance('en-list-2', whole("I'd like items two,", 300), piece('three,', 300), piece('and five.')),
  utterance('en-list-3', whole('Add milk,', 500), piece('eggs,', 500), piece('and bread to my list.')),
  utterance('en-list-4', piece('Call me back at two one two', 700), piece('five five five', 700), piece('zero one nine eight.')),
  utterance('en-list-5', whole('I need Monday,', 1000), piece('Wednesday,', 300), piece('and Friday off.')),
  utterance('en-list-6', whole('Two large pizzas,', 500), piece('one salad,', 500), piece('and a coke.')),

  utterance('en-trailing-1', piece('What about the um…', 700), piece('the other one?')),
  utterance('en-trailing-2', piece('I was going to ask about…', 1000), piece('my refund.')),
  utterance('en-trailing-3', piece('Is there a way to…', 500), piece('pause my subscription?')),
  utterance('en-trailing-4', piece('Can you remind me when the…', 300), piece('the parcel arrives?')),
  utterance('en-trailing-5', whole("I think that's it…", 1000), piece('oh and one more thing.')),
];

const KOREAN: readonly CorpusUtterance[] = [
  utterance('ko-complete-1', piece('네.')),
  utterance('ko-complete-2', piece('아니요.')),
  utterance('ko-complete-3', piece('좋아요.')),
  utterance('ko-complete-4', piece('주문 취소해 주세요.')),
  utterance('ko-complete-5', piece('오늘 날씨 어때요?')),
  utterance('ko-complete-6', piece('내일 비 와요?')),
  utterance('ko-complete-7', piece('일곱 시에 두 명 예약해 주세요.')),
  utterance('ko-complete-8', piece('제 계좌 잔액 좀 확인해 주세요.')),
  utterance('ko-complete-9', piece('배송 주소를 바꾸고 싶어요.')),
  utterance('ko-complete-10', piece('제 택배 지금 어디쯤 있나요?')),
  utterance('ko-complete-11', piece('영수증을 제 이메일로 보내 주시겠어요?')),
  utterance('ko-complete-12', piece('강남역 근처 약국은 오늘 밤 몇 시에 문을 닫나요?')),
  utterance('ko-complete-13', piece('지난주에 파란색 재킷을 주문했는데 아직도 도착하지 않았어요.')),
  utterance('ko-complete-14', piece('이번 달 신용카드 결제 금액이 얼마인지 알려 주실 수 있나요?')),

  utterance('ko-pause-1', piece('오늘 저녁에 네 명으로', 300), piece('예약하고 싶어요.')),
  utterance('ko-pause-2', piece('이번 주말 부산 날씨가', 500), piece('어떨까요?')),
  utterance('ko-pause-3', piece('제 예약을', 700), piece('다음 주 화요일로 옮겨 주세요.')),
  utterance('ko-pause-4', piece('청구서를 제 회사 이메일로', 1000), piece('보내 주세요.')),
  utterance('ko-pause-5', whole('테이블 하나 예약하고 싶어요.', 700), piece('네 명이요.')),
  utterance('ko-pause-6', whole('비밀번호가 안 돼요.', 500), piece('오늘 아침부터요.')),
  utterance('ko-pause-7', piece('제주도까지 배송은', 300), piece('얼마나 걸려요?')),
  utterance('ko-pause-8', whole('어제 주문했는데요', 1000), piece('아직 안 왔어요.')),
  utterance('ko-pause-9', piece('강남역 근처에 있는 매장은', 500), piece('일요일에도 문 열어요?')),

  utterance('ko-filler-1', piece('라지 피자 하나 음…', 500), piece('페퍼로니로 주문할게요.')),
  utterance('ko-filler-2', piece('어…', 700), piece('제 마지막 주문 좀 확인해 주세요.')),
  utterance('ko-filler-3', piece('그러니까', 300), piece('내일 날씨가 어떤지 궁금해요.')),
  utterance('ko-filler-4', piece('제 주문 번호는 음', 1000), piece('칠칠삼오예요.')),
  utterance('ko-filler-5', piece('금요일 밤에 방이 있는지 음', 300), piece('궁금해서요.')),
  utterance('ko-filler-6', piece('픽업 시간을 그', 700), piece('조금 늦출 수 있을까요?')),

  utterance('ko-list-1', piece('제 번호는 공일공', 500), piece('일이삼사', 500), piece('오육칠팔이에요.')),
  utterance('ko-list-2', whole('메뉴 일 번,', 300), piece('삼 번,', 300), piece('그리고 오 번 주세요.')),
  utterance('ko-list-3', whole('우유,', 500), piece('계란,', 500), piece('그리고 빵을 장바구니에 넣어 주세요.')),
  utterance('ko-list-4', piece('콜백 번호는 공이', 700), piece('오오오', 700), piece('공일구팔이에요.')),
  utterance('ko-list-5', whole('월요일,', 1000), piece('수요일,', 300), piece('그리고 금요일에 쉴게요.')),
  utterance('ko-list-6', whole('사과 하나,', 500), piece('배 둘,', 500), piece('그리고 귤 셋 주세요.')),

  utterance('ko-trailing-1', piece('그럼 그 다른 거는…', 700), piece('얼마예요?')),
  utterance('ko-trailing-2', piece('환불 문의를 좀…', 1000), piece('하려고요.')),
  utterance('ko-trailing-3', piece('구독을 잠시…', 500), piece('멈출 수 있나요?')),
  utterance('ko-trailing-4', piece('택배가 언제…', 300), piece('도착하는지 알려 주세요.')),
  utterance('ko-trailing-5', whole('그게 다인 것 같아요…', 1000), piece('아 하나 더 있어요.')),
];

export const TURN_CORPUS: readonly CorpusUtterance[] = [...ENGLISH, ...KOREAN];

/** The STT final of each piece, in order: what a transcript detector has seen at each pause and at the end. */
export function transcriptsSoFar(utterance: Pick<CorpusUtterance, 'pieces'>): string[] {
  return utterance.pieces.map((_, i) =>
    utterance.pieces
      .slice(0, i + 1)
      .map((p) => p.text)
      .join(' '),
  );
}
