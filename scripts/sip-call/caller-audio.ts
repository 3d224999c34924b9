/**
 * What the test phone says, as one headerless 8 kHz µ-law file sipp streams from the ACK on:
 * silence while the agent greets, a question in the project's local voice (eSpeak-NG, offline),
 * then silence while the agent answers. Written once per run to the git-ignored `.lk/`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { renderUtterance, sampleMs } from '../../src/spoken/utterance.js';
import { RUN_DIR } from '../stack/layout.js';
import { encodeMulaw } from './g711.js';

export const PHONE_RATE = 8000;
/** Silence before the question: longer than the built-in greetings take to say. */
export const GREETING_ROOM_MS = 6000;

const QUESTIONS = { en: 'What time do you open tomorrow?', ko: '내일 몇 시에 문을 여나요?' } as const;

export interface CallerAudio {
  file: string;
  durationMs: number;
  /** When the question's voice starts, from the first sample. */
  speechStartMs: number;
}

export async function prepareCallerAudio(language: 'en' | 'ko'): Promise<CallerAudio> {
  const synth = await EspeakSynthesizer.start();
  try {
    const spoken = await renderUtterance(
      synth,
      { language, pieces: [{ text: QUESTIONS[language] }] },
      { sampleRate: PHONE_RATE, leadMs: GREETING_ROOM_MS, tailMs: 1000 },
    );
    const dir = join(RUN_DIR, 'sip-call-audio');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `question-${language}.ul`);
    writeFileSync(file, encodeMulaw(spoken.samples));
    return { file, durationMs: sampleMs(spoken, spoken.samples.length), speechStartMs: sampleMs(spoken, spoken.pieces[0]!.firstVoiced) };
  } finally {
    await synth.close();
  }
}
