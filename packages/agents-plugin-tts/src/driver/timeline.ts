import type { tts } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import type { Chunk } from '../chunking/index.js';
import type { PacingReport } from '../pacing/pacer.js';

/**
 * What the driver observed, as it happened (ms on the `performance.now()` clock). The demo's
 * waterfall, the latency budget and heard-text reconstruction are all built from these.
 */
export interface TimelineEvents {
  chunk: [{ streamId: string; segmentId: string; index: number; chunk: Chunk; at: number }];
  /** The pacer sent a reply's first chunk: when, why then, and what it planned with. */
  pacing: [{ streamId: string; report: PacingReport; at: number }];
  sent: [{ streamId: string; segmentId: string; track: string; text: string; at: number }];
  first_byte: [{ streamId: string; segmentId: string; track: string; at: number }];
  first_frame: [{ streamId: string; segmentId: string; at: number }];
  /** A track finished playing: the raw-reply ranges it voiced and where its audio sits in the segment. */
  track_done: [
    {
      streamId: string;
      segmentId: string;
      track: string;
      chunks: Chunk[];
      startSample: number;
      endSample: number;
      sampleRate: number;
      at: number;
    },
  ];
  interrupted: [{ streamId: string; at: number; staleTracks: number }];
  /**
   * What the listener heard of an interrupted stream, as the chat history keeps it (src/heard):
   * the heard prefix of the reply, and what decided the cut inside the last chunk.
   */
  heard: [
    {
      streamId: string;
      text: string;
      /** Offset in the reply just past the heard text. */
      end: number;
      source: 'nothing' | 'complete' | 'timings' | 'audio' | 'estimate';
      /** Seconds of the reply's audio that played. */
      playbackPosition: number;
      at: number;
    },
  ];
  retry: [{ streamId: string; at: number; error: string; retryable: boolean }];
}

/**
 * One stream's events, on a channel of its own: a listener hears only the stream it subscribed
 * to (`FirstwordTTS.onStream` hands each new stream's). Every event still carries `streamId`,
 * the id that joins it with reports made elsewhere.
 */
export class StreamTimeline extends EventEmitter<TimelineEvents> {
  readonly streamId: string;

  constructor(streamId: string) {
    super();
    this.streamId = streamId;
  }
}

/** Told of each stream a TTS makes (`stream()`, `unitStream()`, `synthesize()`), before its first event. */
export type StreamObserver = (stream: tts.SynthesizeStream | tts.ChunkedStream, timeline: StreamTimeline) => void;

/** The clock of every timeline stamp: monotonic, sub-millisecond (`performance.now()`). */
export const now = (): number => performance.now();
