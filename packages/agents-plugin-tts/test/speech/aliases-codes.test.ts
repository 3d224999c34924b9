import { describe, expect, it } from 'vitest';
import { DEFAULT_KOREAN_ALIASES, normalizeForSpeech } from '../../src/chunking/speech/index.js';

describe('aliases', () => {
  it.each([
    ['AI를 활용한 API 설계', '에이아이를 활용한 에이피아이 설계'],
    ['API와 AI', '에이피아이와 에이아이'],
    ['우리 AI는', '우리 에이아이는'],
    ['GPT로 만든 TTS', '지피티로 만든 티티에스'],
    ['(AI)가', '(에이아이)가'],
  ])('applies default Korean aliases in Korean context: %s', (written, spoken) => {
    expect(normalizeForSpeech(written)).toBe(spoken);
  });

  it('matches only whole words: OpenAI, AIR, MAIL and said are untouched', () => {
    expect(normalizeForSpeech('OpenAI의 AIR 모델과 MAIL 기능')).toBe('OpenAI의 AIR 모델과 MAIL 기능');
  });

  it('is case-sensitive: ai and Api stay as written', () => {
    expect(normalizeForSpeech('ai와 Api')).toBe('ai와 Api');
  });

  it('lets caller aliases override a default and apply in any language', () => {
    const aliases = { AI: '인공지능', LiveKit: '라이브킷' };
    // Particles stay as written: they were chosen for the original word.
    expect(normalizeForSpeech('AI를 LiveKit으로', { aliases })).toBe('인공지능를 라이브킷으로');
    expect(normalizeForSpeech('We use LiveKit.', { aliases })).toBe('We use 라이브킷.');
  });

  it('switches a default off when the caller maps it to itself', () => {
    expect(normalizeForSpeech('AI를 쓴다', { aliases: { AI: 'AI' } })).toBe('AI를 쓴다');
  });

  it('applies no Korean default when language is forced to English', () => {
    expect(normalizeForSpeech('AI를 쓴다', { language: 'en' })).toBe('AI를 쓴다');
  });

  it('prefers an alias over the number inside it', () => {
    expect(normalizeForSpeech('GPT-4o를 써요', { aliases: { 'GPT-4o': '지피티 포오' } })).toBe('지피티 포오를 써요');
  });

  it('escapes regex characters in alias keys', () => {
    expect(normalizeForSpeech('C++ 코드와 C 코드', { aliases: { 'C++': '씨플플' } })).toBe('씨플플 코드와 C 코드');
  });

  it('exports the default set frozen so it cannot be changed behind the cache', () => {
    expect(Object.isFrozen(DEFAULT_KOREAN_ALIASES)).toBe(true);
    expect(DEFAULT_KOREAN_ALIASES.API).toBe('에이피아이');
  });
});

describe('codes', () => {
  it('leaves mixed letter/digit words alone by default', () => {
    expect(normalizeForSpeech('코드는 A1B2입니다')).toBe('코드는 A1B2입니다');
  });

  it.each([
    ['A1B2', 'A 1 B 2'],
    ['코드는 A1B2입니다', '코드는 A 1 B 2입니다'],
    ['Your ref is X9Y8Z7.', 'Your ref is X 9 Y 8 Z 7.'],
    ['AB-12', 'A B 1 2'],
    ['2FA', '2 F A'],
  ])('spells %s when spellCodes is set', (written, spoken) => {
    expect(normalizeForSpeech(written, { spellCodes: true })).toBe(spoken);
  });

  it('still reads units, ordinals and times normally with spellCodes', () => {
    expect(normalizeForSpeech('3km, 1st, 3pm', { spellCodes: true, language: 'en' })).toBe('three kilometers, first, three p m');
  });

  it('does not spell words without digits', () => {
    expect(normalizeForSpeech('ABC and xyz', { spellCodes: true })).toBe('ABC and xyz');
  });
});
