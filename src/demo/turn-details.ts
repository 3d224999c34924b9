/**
 * The demo's report of a turn: the turn budget's report (src/latency — the same stamps the worker
 * logs) extended with what only the demo draws: the LLM's token times, each chunk and provider
 * request with its send, first byte and play range, and the audio as heard with its gaps.
 */
import type { voice } from '@livekit/agents';
import type { EventEmitter } from 'node:events';
import type { RecordedSegment } from '../audio/recording-output.js';
import type { StampName, TurnReport } from '../latency/stamps.js';
import { observeAgentTurns } from '../latency/turn-signals.js';
import type { FirstwordTTS, TimelineEvents } from '@firstword/agents-plugin-tts';

type Payload<K extends keyof TimelineEvents> = TimelineEvents[K][0];

/** What the timeline and the turn signals showed of one turn (`performance.now()` times). */
export interface TurnEvents {
  tokens: { at: number; text: string }[];
  llmDoneAt?: number;
  /** Undefined when the TTS exposes no timeline: those stamps and rows cannot be observed. */
  tts?: {
    chunks: Payload<'chunk'>[];
    sent: Payload<'sent'>[];
    firstBytes: Payload<'first_byte'>[];
    tracksDone: Payload<'track_done'>[];
  };
}

export interface RequestReport {
  track: string;
  text: string;
  sentMs: number;
  firstByteMs?: number;
  /** Where the request's audio sits in the turn's audio (ms); the end is unknown if it was cut. */
  audioOffsetMs: [number, number | undefined];
  playStartMs?: number;
  playEndMs?: number;
}

/**
 * The demo's own times (tokens, chunks, requests, acknowledgements, audio, barge-in) are ms from
 * the turn's zero: the typed turn's request, or on a spoken turn the caller's last voiced sample
 * (the caller's clock, as the table). `stamps` stay the turn budget's, as the worker logs them.
 */
export interface DemoTurnReport extends TurnReport {
  name: string;
  prompt: string;
  reply: string;
  /** Stamps this TTS cannot show (it exposes no timeline). */
  unobservable: StampName[];
  llm: { tokenMs: number[]; doneMs?: number };
  chunks: { index: number; text: string; range: [number, number]; reason: string; releasedMs: number }[];
  requests: RequestReport[];
  /** The acknowledgements the caller heard, each from its first to its last played sample. */
  acks: { startMs: number; endMs: number }[];
  /**
   * Other agent audio heard during the turn, neither acknowledgement nor this reply: an earlier
   * reply still playing, or one started while the caller only paused.
   */
  otherAudio: { startMs: number; endMs: number }[];
  /**
   * The turn's first audio, the one figure the title, the table and the text all show: first
   * sound (acknowledgement or reply) and first content (the reply). Spoken turns: measured on
   * the recording from the caller's last voiced sample; typed turns: the turn budget's figures.
   */
  firstAudio: { soundMs?: number; contentMs?: number };
  audio: {
    capturedMs: number;
    playedMs: number;
    /** When the reply started playing. */
    startMs?: number;
    /** When playback stopped. */
    endMs?: number;
    gaps: { atMs: number; ms: number }[];
  };
  interruptRequestedMs?: number;
  wav?: string;
  /** A spoken turn: the caller's clock, from the last voiced sample of the caller's audio. */
  spoken?: SpokenTimes;
}

export interface SpokenTimes {
  /** The scripted STT's final came this long after the last voiced sample. */
  sttFinalAfterMs: number;
  firstSoundMs?: number;
  firstContentMs?: number;
  /** Agent sounds that began while the caller had only paused. */
  falseEnds: number;
  /** Every stamp of the turn, ms after the caller's last voiced sample. */
  fromEndOfSpeech: Partial<Record<StampName, number>>;
}

/** The report's stamps re-read from the caller's real end of speech (`endOfSpeechAt`, timeline clock). */
export function fromEndOfSpeech(report: TurnReport, endOfSpeechAt: number): Partial<Record<StampName, number>> {
  const out: Partial<Record<StampName, number>> = {};
  for (const [name, at] of Object.entries(report.stamps) as [StampName, number][]) out[name] = round(report.at + at - endOfSpeechAt);
  return out;
}

const TTS_STAMPS: StampName[] = ['ttsFirstChunk', 'ttsFirstSend', 'ttsFirstByte', 'ttsFirstFrame'];

/** The stamps a typed turn passes, in pipeline order (the request is the zero). */
export const TYPED_TURN_STAMPS: readonly StampName[] = ['turnDecided', 'llmRequest', 'llmFirstToken', ...TTS_STAMPS, 'playbackStarted'];

/** Collects token and timeline events as they happen, to join them with each turn's report. */
export class TurnDetails {
  readonly #tokens = new Map<number, { at: number; text: string }[]>();
  readonly #llmDone = new Map<number, number>();
  readonly #streams = new Map<string, NonNullable<TurnEvents['tts']>>();
  readonly #observed: boolean;
  readonly #detach: Array<() => void> = [];

  /** `tts` undefined: a TTS without stream timelines, whose stamps and rows cannot be observed. */
  constructor(agent: voice.Agent, tts: Pick<FirstwordTTS, 'onStream'> | undefined) {
    this.#observed = tts !== undefined;
    const signals = observeAgentTurns(agent);
    this.#listen(signals, 'llm_text', (generation, token) => this.#push(this.#tokens, generation.id, token));
    this.#listen(signals, 'llm_end', (generation) => {
      if (generation.endedAt !== undefined) this.#llmDone.set(generation.id, generation.endedAt);
    });
    if (tts) {
      // Each stream's events go to its own record, kept under its id for the report to find.
      const stop = tts.onStream((_, timeline) => {
        const events = this.#stream(timeline.streamId);
        // Listeners on the stream's own timeline go when the stream does: nothing to detach.
        timeline.on('chunk', (ev) => events.chunks.push(ev));
        timeline.on('sent', (ev) => events.sent.push(ev));
        timeline.on('first_byte', (ev) => events.firstBytes.push(ev));
        timeline.on('track_done', (ev) => events.tracksDone.push(ev));
      });
      this.#detach.push(stop);
    }
  }

  /** The events of `report`'s LLM generation and TTS stream. */
  eventsFor(report: TurnReport): TurnEvents {
    const id = report.generationId;
    const empty = { chunks: [], sent: [], firstBytes: [], tracksDone: [] };
    return {
      tokens: id === undefined ? [] : (this.#tokens.get(id) ?? []),
      llmDoneAt: id === undefined ? undefined : this.#llmDone.get(id),
      tts: this.#observed ? (report.streamId === undefined ? empty : (this.#streams.get(report.streamId) ?? empty)) : undefined,
    };
  }

  dispose(): void {
    for (const detach of this.#detach.splice(0)) detach();
  }

  #stream(streamId: string): NonNullable<TurnEvents['tts']> {
    let events = this.#streams.get(streamId);
    if (!events) this.#streams.set(streamId, (events = { chunks: [], sent: [], firstBytes: [], tracksDone: [] }));
    return events;
  }

  #push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  }

  #listen<E extends Record<keyof E, unknown[]>, K extends keyof E & string>(
    emitter: EventEmitter<E>,
    event: K,
    listener: (...args: E[K]) => void,
  ): void {
    const target = emitter as unknown as EventEmitter;
    const handler = listener as unknown as (...args: unknown[]) => void;
    target.on(event, handler);
    this.#detach.push(() => target.off(event, handler));
  }
}

/** A spoken turn as the caller heard it (src/spoken): its zero and which audio was an acknowledgement. */
export interface CallerHeard {
  /** The caller's last voiced sample (timeline clock): the zero of the demo's times. */
  endOfSpeechAt: number;
  /** The turn's segments that were acknowledgements; the rest is the reply. */
  ackSegments: readonly RecordedSegment[];
  spoken: SpokenTimes;
}

/**
 * The budget's report of a demo turn, extended with its detail. `segments` is everything the
 * caller heard in the turn; on a spoken turn `caller` says which of it was an acknowledgement.
 */
export function demoTurnReport(
  report: TurnReport,
  turn: { name: string; prompt: string; interruptRequestedAt?: number },
  events: TurnEvents,
  segments: readonly RecordedSegment[],
  caller?: CallerHeard,
): DemoTurnReport {
  const zero = caller?.endOfSpeechAt ?? report.at;
  const rel = (at: number | undefined) => (at === undefined ? undefined : round(at - zero));
  const isAck = (segment: RecordedSegment) => caller?.ackSegments.includes(segment) ?? false;
  // Requests are laid out over the reply's audio only: neither an acknowledgement nor audio that
  // began before the reply's first frame existed (an earlier reply still playing when the caller
  // spoke again) is theirs.
  const replyFrame = report.stamps.ttsFirstFrame ?? report.stamps.playbackStarted;
  const replyFrom = replyFrame === undefined ? Number.NEGATIVE_INFINITY : report.at + replyFrame - FRAME_CLOCK_SLACK_MS;
  const isReply = (segment: RecordedSegment) => !isAck(segment) && (segment.startedAt ?? Number.POSITIVE_INFINITY) >= replyFrom;
  const reply = segments.filter(isReply);
  const play = playbackClock(reply);
  const tts = events.tts;
  return {
    ...report,
    name: turn.name,
    prompt: turn.prompt,
    reply: events.tokens.map((t) => t.text).join(''),
    unobservable: tts ? [] : TTS_STAMPS,
    llm: { tokenMs: events.tokens.map((t) => rel(t.at)!), doneMs: rel(events.llmDoneAt) },
    chunks: (tts?.chunks ?? []).map((ev) => ({
      index: ev.index,
      text: ev.chunk.text,
      range: [ev.chunk.start, ev.chunk.end],
      reason: String(ev.chunk.reason),
      releasedMs: rel(ev.at)!,
    })),
    requests: tts ? requestReports(tts, play, rel) : [],
    acks: spansOf(segments.filter(isAck), rel),
    otherAudio: spansOf(
      segments.filter((s) => !isAck(s) && !isReply(s)),
      rel,
    ),
    firstAudio: caller
      ? { soundMs: caller.spoken.firstSoundMs, contentMs: caller.spoken.firstContentMs }
      : { soundMs: report.firstSoundMs ?? report.firstContentMs, contentMs: report.firstContentMs },
    audio: {
      capturedMs: round(sum(segments.map((s) => s.durationMs))),
      playedMs: round(sum(segments.map((s) => s.playedMs))),
      startMs: rel(reply.find((s) => s.startedAt !== undefined)?.startedAt),
      endMs: rel(play.endAt),
      gaps: segments.flatMap((s) => s.gaps.map((g) => ({ atMs: rel(g.at)!, ms: round(g.ms) }))),
    },
    interruptRequestedMs: rel(turn.interruptRequestedAt),
    ...(caller ? { spoken: caller.spoken } : {}),
  };
}

/** A stamp and a segment's start are both read from the timeline clock, a moment apart at most. */
const FRAME_CLOCK_SLACK_MS = 5;

function spansOf(segments: readonly RecordedSegment[], rel: (at: number | undefined) => number | undefined): { startMs: number; endMs: number }[] {
  return segments.flatMap((s) => {
    const span = playedSpan(s);
    return span ? [{ startMs: rel(span.from)!, endMs: rel(span.to)! }] : [];
  });
}

/** When a segment's first sample played and its last played one ended (cut short by a barge-in). */
function playedSpan(segment: RecordedSegment): { from: number; to: number } | undefined {
  const first = segment.frames[0];
  const last = segment.frames.at(-1);
  if (!first || !last) return undefined;
  const end = last.playAt + last.durationMs;
  return { from: first.playAt, to: segment.interrupted && segment.finishedAt !== undefined ? Math.min(end, segment.finishedAt) : end };
}

/**
 * One row per provider request, in order. The driver plays requests back to back, so each starts
 * where the previous one ended; only each request's length is taken from its `track_done`
 * (a request cut by an interruption has none, and its end is unknown).
 */
function requestReports(
  tts: NonNullable<TurnEvents['tts']>,
  play: PlaybackClock,
  rel: (at: number | undefined) => number | undefined,
): RequestReport[] {
  const order: string[] = [];
  const texts = new Map<string, string[]>();
  const sentAt = new Map<string, number>();
  for (const ev of tts.sent) {
    if (!texts.has(ev.track)) {
      order.push(ev.track);
      texts.set(ev.track, []);
      sentAt.set(ev.track, ev.at);
    }
    texts.get(ev.track)!.push(ev.text);
  }
  const firstByte = new Map(tts.firstBytes.map((ev) => [ev.track, ev.at]));
  const done = new Map(tts.tracksDone.map((ev) => [ev.track, ev]));
  let offsetMs = 0;
  return order.map((track) => {
    const finished = done.get(track);
    const startMs = offsetMs;
    const endMs = finished ? startMs + ((finished.endSample - finished.startSample) / finished.sampleRate) * 1000 : undefined;
    if (endMs !== undefined) offsetMs = endMs;
    const started = firstByte.has(track) && startMs < play.heardMs;
    return {
      track,
      text: texts.get(track)!.join(' '),
      sentMs: rel(sentAt.get(track))!,
      audioOffsetMs: [round(startMs), endMs === undefined ? undefined : round(endMs)],
      firstByteMs: rel(firstByte.get(track)),
      playStartMs: started ? rel(play.at(startMs)) : undefined,
      playEndMs: started ? rel(play.at(Math.min(endMs ?? play.heardMs, play.heardMs))) : undefined,
    };
  });
}

interface PlaybackClock {
  /** Wall time at which the audio `offsetMs` into the turn was played. */
  at(offsetMs: number): number | undefined;
  heardMs: number;
  endAt?: number;
}

/** Maps an offset in the turn's audio to when the simulated speaker played it. */
function playbackClock(segments: readonly RecordedSegment[]): PlaybackClock {
  const frames: { from: number; to: number; playAt: number }[] = [];
  let base = 0;
  for (const segment of segments) {
    for (const frame of segment.frames) {
      frames.push({ from: base + frame.offsetMs, to: base + frame.offsetMs + frame.durationMs, playAt: frame.playAt });
    }
    base += segment.durationMs;
  }
  const heardMs = sum(segments.map((s) => s.playedMs));
  const last = segments.filter((s) => s.frames.length > 0).at(-1);
  const lastFrame = last?.frames.at(-1);
  const endAt = last?.interrupted ? last.finishedAt : lastFrame ? lastFrame.playAt + lastFrame.durationMs : undefined;
  return {
    heardMs,
    endAt,
    at(offsetMs) {
      const frame =
        frames.find((f) => offsetMs >= f.from && offsetMs < f.to) ?? (offsetMs >= (frames.at(-1)?.to ?? Infinity) ? frames.at(-1) : undefined);
      if (!frame) return undefined;
      return frame.playAt + Math.min(offsetMs, frame.to) - frame.from;
    },
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
