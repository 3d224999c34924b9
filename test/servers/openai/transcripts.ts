/**
 * Scripted speech recognition: each utterance (realtime commit or HTTP upload) takes the next
 * queued transcript, else the default. One FIFO for both paths, so a test scripts "what the user
 * said" without caring which path the client takes.
 */
import { languageOf as speechLanguageOf } from '@firstword/agents-plugin-tts/chunking';
import type { QueuedTranscript, TimedTranscript } from './speech-words.js';
import { tokenize } from './tokenize.js';

export class TranscriptQueue {
  #queue: QueuedTranscript[] = [];

  push(transcripts: readonly QueuedTranscript[]): void {
    this.#queue.push(...transcripts);
  }

  next(fallback: string): string {
    return this.nextTimed(fallback).text;
  }

  /** The next transcript with the length of its speech when it was queued with one. */
  nextTimed(fallback: string): TimedTranscript {
    const entry = this.#queue.shift() ?? fallback;
    return typeof entry === 'string' ? { text: entry } : entry;
  }

  get length(): number {
    return this.#queue.length;
  }
}

/** ISO 639-1 code of a transcript, for `languages: [{code}]` when `reportLanguage` is on. */
export function languageOf(transcript: string): string {
  return speechLanguageOf(transcript);
}

/** The transcript cut into `count` deltas along token boundaries (fewer if it has fewer tokens). */
export function transcriptDeltas(transcript: string, count: number): string[] {
  if (count <= 0 || transcript === '') return [];
  const tokens = tokenize(transcript);
  const pieces = Math.min(count, tokens.length);
  const deltas: string[] = [];
  for (let i = 0; i < pieces; i++) {
    const from = Math.floor((i * tokens.length) / pieces);
    const to = Math.floor(((i + 1) * tokens.length) / pieces);
    deltas.push(tokens.slice(from, to).join(''));
  }
  return deltas;
}
