/**
 * Turns a TTS timeline (src/tts/timeline.ts) into samples for the adaptive first chunk:
 * - LLM rate: characters between chunk cuts over the time between them, summed per reply;
 * - provider first byte: a reply's first send → its first audio byte (later requests may wait
 *   behind earlier ones, so only the first is a clean latency);
 * - speech per character: audio of a finished track over the characters of its chunks;
 * - real-time factor: first byte → end of a track, over its audio, for tracks whose text was all
 *   sent before their audio began and that were not waiting for an earlier track;
 * - later chunk lengths: every chunk after the first, except the rest of a first sentence that
 *   the first chunk cut in two.
 */
import type { EventEmitter } from 'node:events';
import type { ChunkReason } from '../chunking/index.js';
import type { TimelineEvents } from '../tts/timeline.js';

export interface EstimateSink {
  observeLlmRate(charsPerSec: number): void;
  observeSpeech(msPerChar: number): void;
  observeFirstByte(ms: number): void;
  observeRealTimeFactor(rtf: number): void;
  observeLaterChunk(chars: number): void;
}

export interface TimelineObserver {
  /** Commits each reply's LLM rate measured so far (once per reply); call before planning. */
  commit(): void;
  stop(): void;
}

/** Cuts closer together than this came from one delta: their characters belong to the interval before. */
const MIN_INTERVAL_MS = 5;
/** A reply's rate needs this much evidence to be a sample (a one-sentence reply may not have it). */
const MIN_RATE_SPAN_MS = 50;
const MIN_RATE_CHARS = 10;
const MIN_SPEECH_CHARS = 8;
const MIN_RTF_AUDIO_MS = 200;
/** Replies remembered at once; older ones are forgotten (a stream that never finishes must not leak). */
const MAX_TRACKED_STREAMS = 32;

interface ReplyTrace {
  firstReason: ChunkReason;
  anchorEnd: number;
  anchorAt: number;
  rateChars: number;
  rateMs: number;
  rateCommitted: boolean;
  firstTrack: string | undefined;
  firstSentAt: Map<string, number>;
  lastSentAt: Map<string, number>;
  firstByteAt: Map<string, number>;
  lastDoneAt: number;
}

export function observeTimeline(sink: EstimateSink, timeline: EventEmitter<TimelineEvents>): TimelineObserver {
  const replies = new Map<string, ReplyTrace>();

  const onChunk = ({ streamId, index, chunk, at }: TimelineEvents['chunk'][0]): void => {
    if (index === 0) {
      replies.delete(streamId);
      replies.set(streamId, {
        firstReason: chunk.reason,
        anchorEnd: chunk.end,
        anchorAt: at,
        rateChars: 0,
        rateMs: 0,
        rateCommitted: false,
        firstTrack: undefined,
        firstSentAt: new Map(),
        lastSentAt: new Map(),
        firstByteAt: new Map(),
        lastDoneAt: -Infinity,
      });
      if (replies.size > MAX_TRACKED_STREAMS) replies.delete(replies.keys().next().value!);
      return;
    }
    const reply = replies.get(streamId);
    if (!reply) return;
    const restOfFirstSentence = index === 1 && (reply.firstReason === 'clause' || reply.firstReason === 'length');
    if (!restOfFirstSentence) sink.observeLaterChunk(chunk.text.length);
    if (reply.rateCommitted) return;
    const interval = at - reply.anchorAt;
    if (interval < MIN_INTERVAL_MS) {
      // Cut by the same delta as the previous chunk: written within the interval that ended there.
      if (reply.rateMs > 0) reply.rateChars += chunk.end - reply.anchorEnd;
      reply.anchorEnd = chunk.end;
      return;
    }
    reply.rateChars += chunk.end - reply.anchorEnd;
    reply.rateMs += interval;
    reply.anchorEnd = chunk.end;
    reply.anchorAt = at;
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

  return {
    commit: () => {
      for (const reply of replies.values()) {
        if (reply.rateCommitted) continue;
        if (reply.rateMs >= MIN_RATE_SPAN_MS && reply.rateChars >= MIN_RATE_CHARS) {
          sink.observeLlmRate((1000 * reply.rateChars) / reply.rateMs);
          reply.rateCommitted = true;
        }
      }
    },
    stop: () => {
      timeline.off('chunk', onChunk);
      timeline.off('sent', onSent);
      timeline.off('first_byte', onFirstByte);
      timeline.off('track_done', onTrackDone);
      replies.clear();
    },
  };
}
