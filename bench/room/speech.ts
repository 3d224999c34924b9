/**
 * The caller's voice: each line spoken by the project's eSpeak-NG voice (src/local-voice), the
 * same real speech the STT tests use, resampled to the room's 48 kHz and written as a WAV with
 * silence around it. The first and last voiced samples are found here once, so the participant
 * can timestamp the sample itself rather than the end of the file's trailing silence.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { encodeWav } from '../../src/local-voice/wav.js';
import type { Language } from '../scenarios.js';

export const ROOM_RATE = 48_000;
/** -40 dBFS: below this eSpeak's tails are inaudible, above it is voice. */
export const VOICED_LEVEL = Math.round(32768 * 10 ** (-40 / 20));

export interface Clip {
  file: string;
  text: string;
  language: Language;
  sampleRate: number;
  samples: number;
  /** Index of the first and the last sample at or above {@link VOICED_LEVEL}. */
  firstVoiced: number;
  lastVoiced: number;
}

/**
 * Linear interpolation is enough here: eSpeak's energy sits far below its 11 kHz Nyquist, and the
 * listeners (energy VADs, Silero at 16 kHz) care about level and envelope, not fidelity.
 */
export function resample(input: Int16Array, from: number, to: number): Int16Array {
  const n = Math.floor((input.length * to) / from);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const x = (i * from) / to;
    const i0 = Math.floor(x);
    const a = input[i0] ?? 0;
    const b = input[i0 + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (x - i0));
  }
  return out;
}

export function voicedRange(samples: Int16Array, level = VOICED_LEVEL): { first: number; last: number } {
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i++) {
    if (Math.abs(samples[i]!) < level) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (first < 0) throw new Error('no voiced sample in the clip');
  return { first, last };
}

async function speak(synth: EspeakSynthesizer, text: string, language: Language): Promise<Int16Array> {
  const blocks: Int16Array[] = [];
  const done = synth.synthesize(text, language === 'ko' ? 'ko' : 'en-us', { onAudio: (s) => blocks.push(s) });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`eSpeak took over 15 s for "${text}"`)), 15_000);
  });
  try {
    await Promise.race([done, timeout]);
  } finally {
    clearTimeout(timer);
  }
  const all = new Int16Array(blocks.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const block of blocks) {
    all.set(block, offset);
    offset += block.length;
  }
  return all;
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
      const speech = resample(await speak(synth, text, language), synth.sampleRate, ROOM_RATE);
      const lead = Math.round((ROOM_RATE * leadMs) / 1000);
      const all = new Int16Array(lead + speech.length + Math.round((ROOM_RATE * tailMs) / 1000));
      all.set(speech, lead);
      const { first, last } = voicedRange(all);
      const file = join(dir, `${key}.wav`);
      writeFileSync(file, encodeWav(all, ROOM_RATE));
      clips.set(key, { file, text, language, sampleRate: ROOM_RATE, samples: all.length, firstVoiced: first, lastVoiced: last });
    }
  } finally {
    await synth.close();
  }
  return clips;
}
