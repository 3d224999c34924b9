import { describe, expect, it } from 'vitest';
import { RESUME_GREETINGS, resumeGreetingFor, spokenLanguage } from '../../src/recovery/greeting.js';

describe('what a resumed call\'s agent says first', () => {
  it('speaks the language the caller last spoke', () => {
    const korean = [
      { role: 'user' as const, text: 'Hello' },
      { role: 'assistant' as const, text: 'Hi!' },
      { role: 'user' as const, text: '약국 몇 시에 열어요?' },
      { role: 'assistant' as const, text: 'It opens at nine.' },
    ];
    expect(resumeGreetingFor(korean, 'en')).toEqual({ language: 'ko', text: RESUME_GREETINGS.ko });
    expect(resumeGreetingFor([{ role: 'user', text: 'When does it open?' }], 'ko-KR')).toEqual({ language: 'en', text: 'Sorry — where were we?' });
  });

  it('falls back to the configured call language, then to English', () => {
    expect(resumeGreetingFor([], 'ko-KR').language).toBe('ko');
    expect(resumeGreetingFor([{ role: 'user', text: '12:30?' }], 'ko').language).toBe('ko');
    expect(resumeGreetingFor([], 'ja').language).toBe('en');
    expect(resumeGreetingFor([], undefined).language).toBe('en');
    expect(spokenLanguage([{ role: 'assistant', text: '안녕하세요' }])).toBeUndefined();
  });
});
