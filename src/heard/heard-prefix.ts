/**
 * What the listener heard of a reply, cut at a word boundary.
 *
 * Pure and synchronous: the inputs are the reply, the stretches of audio that voiced each part of
 * it (from the TTS driver's chunk ranges and track sample ranges), how much audio actually played,
 * and — when the provider gives them — word timings. A word counts as heard only once its last
 * character has been played: the history must never claim the agent said something it did not.
 */
import type { Chunk } from '@firstword/agents-plugin-tts/chunking';
import {
  backToSpace,
  codePoints,
  hangulShare,
  isSpace,
  nonSpaceCount,
  rawOffsetAfter,
  wordEndAtOrBefore,
} from './text.js';

/** A stretch of a segment's audio and the chunks of the reply it voices. */
export interface VoicedSpan {
  /** In reply order; several when one provider context carries many chunks (Cartesia). */
  readonly chunks: readonly Pick<Chunk, 'text' | 'start' | 'end'>[];
  /** Where the span's audio starts in the segment. */
  readonly startSample: number;
  /** Where it ends; undefined while its audio is still arriving. */
  readonly endSample?: number;
}

/** A provider word timing, in seconds from the start of the segment's audio (a `TimedString`). */
export interface WordTiming {
  readonly text: string;
  readonly startTime?: number;
  readonly endTime?: number;
}

export interface HeardInput {
  /** The reply exactly as the TTS received it; chunk offsets point into it. */
  reply: string;
  spans: readonly VoicedSpan[];
  /** Samples of the segment that were played (the audio output's playback position). */
  playedSamples: number;
  sampleRate: number;
  timings?: readonly WordTiming[];
  /**
   * Speaking rate (code points per second, spaces included) for audio whose length is not known
   * yet, used when no span of this reply is complete to measure it on (e.g. the voice's rate
   * learned on earlier replies). Unset: a per-language default.
   */
  charsPerSecond?: number;
}

export type HeardSource = 'nothing' | 'complete' | 'timings' | 'audio' | 'estimate';

export interface Heard {
  /** The heard prefix of the reply, without trailing whitespace. */
  text: string;
  /** Offset in the reply just past the heard text (before trimming). */
  end: number;
  /** What decided the cut inside the last span: word timings, the span's audio length, or a rate. */
  source: HeardSource;
}

/** Typical TTS speaking rates in code points per second, spaces included. */
export const DEFAULT_CHARS_PER_SECOND = { english: 14, korean: 8 } as const;

const EPSILON = 1e-6;

export function heardPrefix(input: HeardInput): Heard {
  const { reply, playedSamples, sampleRate } = input;
  const spans = [...input.spans].filter((s) => s.chunks.length > 0).sort((a, b) => a.startSample - b.startSample);
  let end = 0;
  let source: HeardSource = 'nothing';
  for (const span of spans) {
    if (playedSamples <= span.startSample) break;
    if (span.endSample !== undefined && playedSamples >= span.endSample) {
      end = span.chunks[span.chunks.length - 1]!.end;
      source = 'complete';
      continue;
    }
    const partial = heardInSpan(span, input, spans);
    if (partial.nonSpace > 0) end = replyOffset(reply, span.chunks, partial.nonSpace);
    source = partial.source;
    break;
  }
  const text = reply.slice(0, end).trimEnd();
  return { text, end, source };
}

/** The spoken text of a span: its chunks as the provider received them, one space apart. */
const spokenText = (span: VoicedSpan): string => span.chunks.map((c) => c.text).join(' ');

/** Non-space characters of the span's spoken text that were heard, cut back to a word end. */
function heardInSpan(
  span: VoicedSpan,
  input: HeardInput,
  spans: readonly VoicedSpan[],
): { nonSpace: number; source: HeardSource } {
  const spoken = spokenText(span);
  const playedInSpan = input.playedSamples - span.startSample;
  const fromTimings = heardByTimings(span, spoken, input);
  if (fromTimings !== undefined) return { nonSpace: wordEndAtOrBefore(spoken, fromTimings), source: 'timings' };

  const chars = codePoints(spoken);
  let heardChars: number;
  let source: HeardSource;
  if (span.endSample !== undefined && span.endSample > span.startSample) {
    heardChars = (playedInSpan / (span.endSample - span.startSample)) * chars.length;
    source = 'audio';
  } else {
    heardChars = (playedInSpan / input.sampleRate) * charsPerSecond(input, spans, spoken);
    source = 'estimate';
  }
  // Character i is heard once the audio has passed its end.
  const fully = Math.min(chars.length, Math.floor(heardChars + EPSILON));
  const heardNonSpace = chars.slice(0, fully).filter((c) => !isSpace(c)).length;
  return { nonSpace: wordEndAtOrBefore(spoken, heardNonSpace), source };
}

/**
 * Heard non-space characters according to the provider's word timings inside this span, or
 * undefined when the span has none. When the provider voiced a different spelling (numbers read
 * out, say), its words are matched to the chunk's words one for one if the counts agree, else its
 * character count is scaled onto the chunk text.
 */
function heardByTimings(span: VoicedSpan, spoken: string, input: HeardInput): number | undefined {
  if (!input.timings?.length) return undefined;
  const startSec = span.startSample / input.sampleRate;
  const endSec = span.endSample === undefined ? Number.POSITIVE_INFINITY : span.endSample / input.sampleRate;
  const inSpan = input.timings.filter((t) => {
    const at = t.startTime ?? t.endTime;
    return at !== undefined && at >= startSec - EPSILON && at < endSec - EPSILON && t.text.trim() !== '';
  });
  if (inSpan.length === 0) return undefined;
  const playedSec = input.playedSamples / input.sampleRate;
  let heardWords = 0;
  let heardChars = 0;
  for (const t of inSpan) {
    const endTime = t.endTime ?? t.startTime!;
    if (endTime > playedSec + EPSILON) break;
    heardWords++;
    heardChars += nonSpaceCount(t.text);
  }
  const expected = nonSpaceCount(spoken);
  const total = inSpan.reduce((n, t) => n + nonSpaceCount(t.text), 0);
  if (span.endSample === undefined || total === expected) return Math.min(heardChars, expected);
  const words = spoken.split(/\s+/u).filter(Boolean);
  if (words.length === inSpan.length) return nonSpaceCount(words.slice(0, heardWords).join(''));
  return Math.floor((heardChars * expected) / total);
}

/** Rate measured on this reply's complete spans, else the caller's hint, else a language default. */
function charsPerSecond(input: HeardInput, spans: readonly VoicedSpan[], spoken: string): number {
  const measured = measuredCharsPerSecond(spans, input.sampleRate);
  if (measured !== undefined) return measured;
  if (input.charsPerSecond !== undefined && input.charsPerSecond > 0) return input.charsPerSecond;
  return hangulShare(spoken) > 0.5 ? DEFAULT_CHARS_PER_SECOND.korean : DEFAULT_CHARS_PER_SECOND.english;
}

/** Code points per second over the spans whose audio is complete; undefined when there are none. */
export function measuredCharsPerSecond(spans: readonly VoicedSpan[], sampleRate: number): number | undefined {
  let chars = 0;
  let samples = 0;
  for (const s of spans) {
    if (s.endSample === undefined || s.endSample <= s.startSample || s.chunks.length === 0) continue;
    chars += codePoints(spokenText(s)).length;
    samples += s.endSample - s.startSample;
  }
  return chars > 0 && samples > 0 ? chars / (samples / sampleRate) : undefined;
}

/**
 * The reply offset just past the first `nonSpace` non-space characters of the chunks' spoken text
 * (with any markup glued to the last of them). Completing a chunk takes its whole range.
 */
export function replyOffset(reply: string, chunks: VoicedSpan['chunks'], nonSpace: number): number {
  if (nonSpace <= 0) return chunks[0]?.start ?? 0;
  let left = nonSpace;
  for (const chunk of chunks) {
    const inChunk = nonSpaceCount(chunk.text);
    if (left >= inChunk) {
      left -= inChunk;
      if (left === 0) return chunk.end;
      continue;
    }
    const aligned = rawOffsetAfter(reply, chunk.start, chunk.end, chunk.text, left);
    if (aligned !== undefined) return aligned;
    // The chunk text is not a subsequence of its range (should not happen): cut proportionally.
    const guess = chunk.start + Math.floor((left / inChunk) * (chunk.end - chunk.start));
    return backToSpace(reply, chunk.start, guess);
  }
  return chunks[chunks.length - 1]?.end ?? 0;
}
