/**
 * Turns one stream's timeline (timeline.ts) into samples for the pacer's estimates:
 * - provider first byte: a reply's first send → its first audio byte (later requests may wait
 *   behind earlier ones, so only the first is a clean latency);
 * - speech per character: audio of a finished track over the characters of its chunks, for tracks
 *   whose text went to the provider as written (spoken-form normalization reads "$1,250.75" as
 *   many more characters: a plan from those would expect plain text to speak longer than it does);
 * - real-time factor: first byte → end of a track, over its audio, for tracks whose text was all
 *   sent before their audio began and that were not waiting for an earlier track.
 * The LLM's pace and the reply's sentences are not read here: the paced chunker sees every token
 * and every sentence and reports them itself.
 */
import type { EventEmitter } from 'node:events';
import type { TimelineEvents } from './timeline.js';

export interface EstimateSink {
  observeSpeech(msPerChar: number): void;
  observeFirstByte(ms: number): void;
  observeRealTimeFactor(rtf: number): void;
}

const MIN_SPEECH_CHARS = 8;
const MIN_RTF_AUDIO_MS = 200;

const nonSpace = (text: string): number => text.replace(/\s+/g, '').length;

/**
 * Feeds `sink` from one stream's `timeline` until the returned function is called (or the
 * stream, and its timeline with it, is gone: nothing is kept anywhere else).
 */
export function observeStream(sink: EstimateSink, timeline: EventEmitter<TimelineEvents>): () => void {
  let reply:
    | {
        firstTrack: string | undefined;
        firstSentAt: Map<string, number>;
        lastSentAt: Map<string, number>;
        /** Characters other than spaces sent on each track. */
        sentChars: Map<string, number>;
        firstByteAt: Map<string, number>;
        lastDoneAt: number;
      }
    | undefined;

  const onChunk = ({ index }: TimelineEvents['chunk'][0]): void => {
    if (index !== 0) return;
    reply = { firstTrack: undefined, firstSentAt: new Map(), lastSentAt: new Map(), sentChars: new Map(), firstByteAt: new Map(), lastDoneAt: -Infinity };
  };

  const onSent = ({ track, text, at }: TimelineEvents['sent'][0]): void => {
    if (!reply) return;
    reply.sentChars.set(track, (reply.sentChars.get(track) ?? 0) + nonSpace(text));
    reply.firstTrack ??= track;
    if (!reply.firstSentAt.has(track)) reply.firstSentAt.set(track, at);
    reply.lastSentAt.set(track, at);
  };

  const onFirstByte = ({ track, at }: TimelineEvents['first_byte'][0]): void => {
    if (!reply || reply.firstByteAt.has(track)) return;
    reply.firstByteAt.set(track, at);
    const sentAt = reply.firstSentAt.get(track);
    if (track === reply.firstTrack && sentAt !== undefined) sink.observeFirstByte(at - sentAt);
  };

  const onTrackDone = (event: TimelineEvents['track_done'][0]): void => {
    const audioMs = ((event.endSample - event.startSample) * 1000) / event.sampleRate;
    const chars = event.chunks.reduce((n, c) => n + c.text.length, 0);
    if (!reply) return;
    const asWritten = reply.sentChars.get(event.track) === event.chunks.reduce((n, c) => n + nonSpace(c.text), 0);
    if (asWritten && chars >= MIN_SPEECH_CHARS && audioMs > 0) sink.observeSpeech(audioMs / chars);
    const firstByteAt = reply.firstByteAt.get(event.track);
    const lastSentAt = reply.lastSentAt.get(event.track);
    const clean =
      firstByteAt !== undefined &&
      lastSentAt !== undefined &&
      lastSentAt <= firstByteAt &&
      reply.lastDoneAt <= firstByteAt &&
      audioMs >= MIN_RTF_AUDIO_MS;
    if (clean) sink.observeRealTimeFactor((event.at - firstByteAt) / audioMs);
    reply.lastDoneAt = event.at;
  };

  timeline.on('chunk', onChunk);
  timeline.on('sent', onSent);
  timeline.on('first_byte', onFirstByte);
  timeline.on('track_done', onTrackDone);

  return () => {
    timeline.off('chunk', onChunk);
    timeline.off('sent', onSent);
    timeline.off('first_byte', onFirstByte);
    timeline.off('track_done', onTrackDone);
    reply = undefined;
  };
}
