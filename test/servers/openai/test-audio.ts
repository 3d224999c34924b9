/**
 * Real speech for STT tests, offline: the project's eSpeak-NG voice (src/local-voice) speaks a
 * sentence, which is cut into 20 ms `AudioFrame`s the way a room track delivers them.
 */
import { AudioFrame } from '@livekit/rtc-node';
import { EspeakSynthesizer } from '../../../src/local-voice/synthesizer.js';
import type { VoiceLanguage } from '../../../src/local-voice/worker-messages.js';
import { withTimeout } from '../../helpers/async.js';

export interface Speech {
  samples: Int16Array;
  sampleRate: number;
}

export async function speak(synthesizer: EspeakSynthesizer, text: string, language: VoiceLanguage): Promise<Speech> {
  const blocks: Int16Array[] = [];
  await withTimeout(synthesizer.synthesize(text, language, { onAudio: (samples) => blocks.push(samples) }), 15_000, `speech for "${text}"`);
  const samples = new Int16Array(blocks.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const block of blocks) {
    samples.set(block, offset);
    offset += block.length;
  }
  return { samples, sampleRate: synthesizer.sampleRate };
}

/** Speech, then `silenceMs` of digital silence, in 20 ms frames (the last may be shorter). */
export function framesOf(speech: Speech, { leadMs = 0, silenceMs = 0 }: { leadMs?: number; silenceMs?: number } = {}): AudioFrame[] {
  const rate = speech.sampleRate;
  const lead = Math.round((rate * leadMs) / 1000);
  const tail = Math.round((rate * silenceMs) / 1000);
  const all = new Int16Array(lead + speech.samples.length + tail);
  all.set(speech.samples, lead);
  const step = rate / 50;
  const frames: AudioFrame[] = [];
  for (let offset = 0; offset < all.length; offset += step) {
    const chunk = all.slice(offset, Math.min(all.length, offset + step));
    frames.push(new AudioFrame(chunk, rate, 1, chunk.length));
  }
  return frames;
}

export function durationMs(speech: Speech): number {
  return (speech.samples.length * 1000) / speech.sampleRate;
}

/** RMS (full scale = 1) of the voiced part, to compare with what the server measured. */
export function speechRms(speech: Speech): number {
  let sum = 0;
  for (const s of speech.samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, speech.samples.length)) / 32768;
}
