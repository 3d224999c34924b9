/**
 * The caller's voice: each line spoken by the project's eSpeak-NG voice (src/local-voice), the
 * same real speech the STT tests use, rendered at the room's 48 kHz by src/spoken/utterance.ts (rtc-node's resampler) and written as a WAV with
 * silence around it. The first and last voiced samples are found here once, so the participant
 * can timestamp the sample itself rather than the end of the file's trailing silence.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { encodeWav } from '../../src/local-voice/wav.js';
import { renderUtterance } from '../../src/spoken/utterance.js';
import type { Language } from '../scenarios.js';

export const ROOM_RATE = 48_000;

export interface Clip {
  file: string;
  text: string;
  language: Language;
  sampleRate: number;
  samples: number;
  /** Index of the first and the last voiced sample (src/spoken/utterance.ts's VOICED_LEVEL). */
  firstVoiced: number;
  lastVoiced: number;
}

/** Speaks every line once and writes `<dir>/<key>.wav`: `leadMs` of silence, the speech, `tailMs` of silence. */
export async function prepareClips(
  lines: ReadonlyArray<{ key: string; text: string; language: Language }>,
  dir: string,
  { leadMs = 200, tailMs = 600 }: { leadMs?: number; tailMs?: number } = {},
): Promise<Map<string, Clip>> {
  mkdirSync(dir, { recursive: true });
  const synth = await EspeakSynthesizer.start();
  const clips = new Map<string, Clip>();
  try {
    for (const { key, text, language } of lines) {
      const spoken = await renderUtterance(synth, { language, pieces: [{ text }] }, { sampleRate: ROOM_RATE, leadMs, tailMs });
      const file = join(dir, `${key}.wav`);
      writeFileSync(file, encodeWav(spoken.samples, ROOM_RATE));
      const piece = spoken.pieces[0]!;
      clips.set(key, { file, text, language, sampleRate: ROOM_RATE, samples: spoken.samples.length, firstVoiced: piece.firstVoiced, lastVoiced: piece.lastVoiced });
    }
  } finally {
    await synth.close();
  }
  return clips;
}
