import type { ReplayEntry } from './replay-llm.js';
import { containsHangul } from '@firstword/agents-plugin-tts/chunking';

export interface DemoTurn {
  /** Short name used in file names and the report. */
  name: string;
  prompt: string;
  /** Interrupt the answer this long after its first audio starts playing (a barge-in). */
  interruptAfterMs?: number;
}

/** The built-in turns: Korean, English, and one answer cut off mid-sentence. */
export const SAMPLE_TURNS: readonly DemoTurn[] = [
  { name: 'ko', prompt: '서울에서 가볼 만한 곳 하나만 추천해 줄래요?' },
  { name: 'en', prompt: "What's a good way to start learning Korean?" },
  { name: 'barge-in', prompt: 'Tell me the history of the Korean alphabet.', interruptAfterMs: 1800 },
];

/** What the replay model answers to each sample prompt. */
export const SAMPLE_REPLIES: readonly ReplayEntry[] = [
  {
    prompt: SAMPLE_TURNS[0]!.prompt,
    reply:
      '물론이죠, 경복궁을 추천해요. 조선 시대의 궁궐인데, 한복을 입고 가면 입장료가 무료예요. ' +
      '오후에는 근처 북촌 한옥마을도 함께 걸어 보세요.',
  },
  {
    prompt: SAMPLE_TURNS[1]!.prompt,
    reply:
      'Start with Hangul, the Korean alphabet: most people can read it after a weekend of practice. ' +
      'Then learn a handful of polite everyday phrases, and listen to short dialogues every day.',
  },
  {
    prompt: SAMPLE_TURNS[2]!.prompt,
    reply:
      'Hangul was created in 1443 by King Sejong the Great and a group of scholars. ' +
      'Before that, Koreans wrote with Chinese characters, which only a small educated class could read. ' +
      'Sejong wanted an alphabet that anyone could learn in a few days, so each consonant was shaped ' +
      'after the position of the mouth and tongue that makes its sound. ' +
      'The new script was announced in 1446 in a document called the Hunminjeongeum.',
  },
];

/** The replay model's answer to anything it has no reply for: plain about what it is. */
export function replayFallback(prompt: string): string {
  return containsHangul(prompt)
    ? '저는 미리 준비된 답변만 재생하는 데모 모델이라서, 이 질문에는 제대로 답할 수 없어요. 실제 답변을 들으려면 OPENAI_API_KEY를 설정해 주세요.'
    : "I'm the demo's replay model, so I can only play back prepared answers and can't really answer that. Set OPENAI_API_KEY to hear a real reply.";
}
