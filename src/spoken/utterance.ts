/**
 * A caller's utterance as audio: pieces of text spoken by the local voice (eSpeak-NG, offline),
 * separated by the pauses of someone who has not finished, with natural silence before and after.
 * Each piece's first and last voiced sample is found here once, so that every clock of a spoken
 * turn can start at the caller's real end of speech rather than at a detector's guess of it.
 */
import { AudioFrame, AudioResamplerQuality } from '@livekit/rtc-node';
import { resampleClip } from '@firstword/agents-plugin-tts/pcm';
import type { EspeakSynthesizer } from '../local-voice/synthesizer.js';

export type SpokenLanguage = 'ko' | 'en';

export interface UtterancePiece {
  text: string;
  /** Silence after this piece, before the next one: the caller only paused. Ignored on the last piece. */
  pauseAfterMs?: number;
}

export interface UtteranceSpec {
  language: SpokenLanguage;
  pieces: readonly UtterancePiece[];
}

export interface RenderedPiece {
  text: string;
  /** Sample indexes of the first and last sample at or above {@link VOICED_LEVEL}. */
  firstVoiced: number;
  lastVoiced: number;
}

export interface RenderedUtterance {
  language: SpokenLanguage;
  sampleRate: number;
  samples: Int16Array;
  pieces: RenderedPiece[];
}

/** -40 dBFS: below this eSpeak's tails are inaudible, above it is voice. */
export const VOICED_LEVEL = Math.round(32768 * 10 ** (-40 / 20));

export interface RenderOptions {
  /** @defaultValue 16000 (what Silero and the STT listen at) */
  sampleRate: number;
  /** Silence before the first piece. @defaultValue 300 */
  leadMs: number;
  /** Silence after the last piece (the caller waits for the answer). @defaultValue 0 */
  tailMs: number;
}

const DEFAULT_RENDER_OPTIONS: RenderOptions = { sampleRate: 16_000, leadMs: 300, tailMs: 0 };

export function voicedRange(samples: Int16Array, level = VOICED_LEVEL): { first: number; last: number } | undefined {
  let first = -1;
  let last = -1;
  for (let i = 0; i < samples.length; i++) {
    if (Math.abs(samples[i]!) < level) continue;
    if (first < 0) first = i;
    last = i;
  }
  return first < 0 ? undefined : { first, last };
}

export async function renderUtterance(
  synth: EspeakSynthesizer,
  spec: UtteranceSpec,
  options: Partial<RenderOptions> = {},
): Promise<RenderedUtterance> {
  const { sampleRate, leadMs, tailMs } = { ...DEFAULT_RENDER_OPTIONS, ...options };
  if (spec.pieces.length === 0) throw new Error('an utterance needs at least one piece of text');
  const silence = (ms: number) => new Int16Array(Math.round((sampleRate * ms) / 1000));
  const parts: Int16Array[] = [silence(leadMs)];
  const pieces: RenderedPiece[] = [];
  let at = parts[0]!.length;
  for (const [i, piece] of spec.pieces.entries()) {
    const voiced = trimToVoice(await speak(synth, piece.text, spec.language, sampleRate));
    if (!voiced) throw new Error(`the local voice produced no audible speech for "${piece.text}"`);
    pieces.push({ text: piece.text, firstVoiced: at, lastVoiced: at + voiced.length - 1 });
    parts.push(voiced);
    at += voiced.length;
    const gap = i === spec.pieces.length - 1 ? tailMs : (piece.pauseAfterMs ?? 0);
    const pause = silence(gap);
    parts.push(pause);
    at += pause.length;
  }
  const samples = new Int16Array(at);
  let offset = 0;
  for (const part of parts) {
    samples.set(part, offset);
    offset += part.length;
  }
  return { language: spec.language, sampleRate, samples, pieces };
}

/** The voiced stretch only: pauses are then exactly what the spec says, not eSpeak's own padding. */
function trimToVoice(samples: Int16Array): Int16Array | undefined {
  const range = voicedRange(samples);
  return range ? samples.slice(range.first, range.last + 1) : undefined;
}

async function speak(synth: EspeakSynthesizer, text: string, language: SpokenLanguage, sampleRate: number): Promise<Int16Array> {
  const made: AudioFrame[] = [];
  await synth.synthesize(text, language === 'ko' ? 'ko' : 'en-us', {
    onAudio: (block) => void made.push(new AudioFrame(block, synth.sampleRate, 1, block.length)),
  });
  const blocks = resampleClip(made, sampleRate, AudioResamplerQuality.HIGH).map((f) => f.data.subarray(0, f.samplesPerChannel));
  const all = new Int16Array(blocks.reduce((n, b) => n + b.length, 0));
  let offset = 0;
  for (const block of blocks) {
    all.set(block, offset);
    offset += block.length;
  }
  return all;
}

/** Milliseconds from the utterance's first sample to sample `index`. */
export function sampleMs(utterance: Pick<RenderedUtterance, 'sampleRate'>, index: number): number {
  return (index * 1000) / utterance.sampleRate;
}
