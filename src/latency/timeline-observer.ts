/**
 * Turns a TTS timeline (src/tts/timeline.ts) into samples for the pacer's estimates:
 * - provider first byte: a reply's first send → its first audio byte (later requests may wait
 *   behind earlier ones, so only the first is a clean latency);
 * - speech per character: audio of a finished track over the characters of its chunks;
 * - real-time factor: first byte → end of a track, over its audio, for tracks whose text was all
 *   sent before their audio began and that were not waiting for an earlier track;
 * - sentence lengths: characters from one natural cut (a sentence end, the reply's end) to the
 *   next, whatever cuts the pacer made in between.
 * The LLM's pace is not read here: the pacer sees every token and reports it itself.
 */
import type { EventEmitter } from 'node:events';
import type { TimelineEvents } from '../tts/timeline.js';

export interface EstimateSink {
  observeSpeech(msPerChar: number): void;
  observeFirstByte(ms: number): void;
  observeRealTimeFactor(rtf: number): void;
  observeSentence(chars: number): void;
}

const MIN_SPEECH_CHARS = 8;
const MIN_RTF_AUDIO_MS = 200;
/** Replies remembered at once; older ones are forgotten (a stream that never finishes must not leak). */
const MAX_TRACKED_STREAMS = 32;

interface ReplyTrace {
  sentenceChars: number;
  firstTrack: string | undefined;
  firstSentAt: Map<string, number>;
  lastSentAt: Map<string, number>;
  firstByteAt: Map<string, number>;
  lastDoneAt: number;
}

/** Feeds `sink` from `timeline` until the returned function is called. */
export function observeTimeline(sink: EstimateSink, timeline: EventEmitter<TimelineEvents>): () => void {
  const replies = new Map<string, ReplyTrace>();

  const onChunk = ({ streamId, index, chunk }: TimelineEvents['chunk'][0]): void => {
    if (index === 0) {
      replies.delete(streamId);
      replies.set(streamId, {
        sentenceChars: 0,
        firstTrack: undefined,
        firstSentAt: new Map(),
        lastSentAt: new Map(),
        firstByteAt: new Map(),
        lastDoneAt: -Infinity,
      });
      if (replies.size > MAX_TRACKED_STREAMS) replies.delete(replies.keys().next().value!);
    }
    const reply = replies.get(streamId);
    if (!reply) return;
    reply.sentenceChars += chunk.text.length + (reply.sentenceChars > 0 ? 1 : 0);
    if (chunk.reason === 'sentence' || chunk.reason === 'end') {
      sink.observeSentence(reply.sentenceChars);
      reply.sentenceChars = 0;
    }
  };

  const onSent = ({ streamId, track, at }: TimelineEvents['sent'][0]): void => {
    const reply = replies.get(streamId);
    if (!reply) return;
    reply.firstTrack ??= track;
    if (!reply.firstSentAt.has(track)) reply.firstSentAt.set(track, at);
    reply.lastSentAt.set(track, at);
  };

  const onFirstByte = ({ streamId, track, at }: TimelineEvents['first_byte'][0]): void => {
    const reply = replies.get(streamId);
    if (!reply || reply.firstByteAt.has(track)) return;
    reply.firstByteAt.set(track, at);
    const sentAt = reply.firstSentAt.get(track);
    if (track === reply.firstTrack && sentAt !== undefined) sink.observeFirstByte(at - sentAt);
  };

  const onTrackDone = (event: TimelineEvents['track_done'][0]): void => {
    const reply = replies.get(event.streamId);
    const audioMs = ((event.endSample - event.startSample) * 1000) / event.sampleRate;
    const chars = event.chunks.reduce((n, c) => n + c.text.length, 0);
    if (chars >= MIN_SPEECH_CHARS && audioMs > 0) sink.observeSpeech(audioMs / chars);
    if (!reply) return;
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
    replies.clear();
  };
}
