/**
 * Raw per-turn events → the report: stage stamps in ms since the user turn was injected, one
 * entry per TTS request (send, first byte, playback) and the played audio with its gaps.
 */
import type { RecordedSegment } from '../audio/recording-output.js';
import type { RawTurn } from './turn-recorder.js';

export const STAMP_ORDER = [
  'userTurn',
  'llmFirstToken',
  'firstChunk',
  'firstSend',
  'ttsFirstByte',
  'ttsFirstFrame',
  'firstAudioPlayed',
] as const;

export type StampName = (typeof STAMP_ORDER)[number];

export const STAMP_LABELS: Record<StampName, string> = {
  userTurn: 'user turn injected',
  llmFirstToken: 'LLM first token',
  firstChunk: 'first chunk released to TTS',
  firstSend: 'first TTS request sent',
  ttsFirstByte: 'TTS first byte',
  ttsFirstFrame: 'TTS first frame to session',
  firstAudioPlayed: 'first audio played',
};

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

export interface TurnReport {
  name: string;
  prompt: string;
  reply: string;
  interrupted: boolean;
  /** Stage stamps (ms since the user turn was injected); a stamp that did not happen is absent. */
  stamps: Partial<Record<StampName, number>>;
  /** Stamps this TTS cannot show (it exposes no timeline). */
  unobservable: StampName[];
  timeToFirstAudioMs?: number;
  llm: { tokenMs: number[]; doneMs?: number };
  chunks: { index: number; text: string; range: [number, number]; reason: string; releasedMs: number }[];
  requests: RequestReport[];
  audio: {
    capturedMs: number;
    playedMs: number;
    /** When playback stopped (ms since injection). */
    endMs?: number;
    gaps: { atMs: number; ms: number }[];
  };
  interruptRequestedMs?: number;
  wav?: string;
}

const TTS_STAMPS: StampName[] = ['firstChunk', 'firstSend', 'ttsFirstByte', 'ttsFirstFrame'];

export function buildTurnReport(turn: RawTurn): TurnReport {
  const rel = (at: number | undefined) => (at === undefined ? undefined : round(at - turn.injectedAt));
  const tts = turn.tts;
  const play = playbackClock(turn.segments);
  const firstSegment = turn.segments.find((s) => s.frames.length > 0);
  const stamps: Partial<Record<StampName, number>> = {
    userTurn: 0,
    llmFirstToken: rel(turn.llm.tokens[0]?.at),
    firstChunk: rel(tts?.chunks[0]?.at),
    firstSend: rel(tts?.sent[0]?.at),
    ttsFirstByte: rel(tts?.firstBytes[0]?.at),
    ttsFirstFrame: rel(tts?.firstFrames[0]?.at),
    firstAudioPlayed: rel(firstSegment?.startedAt),
  };
  for (const key of STAMP_ORDER) if (stamps[key] === undefined) delete stamps[key];

  return {
    name: turn.name,
    prompt: turn.prompt,
    reply: turn.llm.tokens.map((t) => t.text).join(''),
    interrupted: turn.segments.some((s) => s.interrupted),
    stamps,
    unobservable: tts ? [] : TTS_STAMPS,
    timeToFirstAudioMs: stamps.firstAudioPlayed,
    llm: { tokenMs: turn.llm.tokens.map((t) => rel(t.at)!), doneMs: rel(turn.llm.doneAt) },
    chunks: (tts?.chunks ?? []).map((ev) => ({
      index: ev.index,
      text: ev.chunk.text,
      range: [ev.chunk.start, ev.chunk.end],
      reason: String(ev.chunk.reason),
      releasedMs: rel(ev.at)!,
    })),
    requests: tts ? requestReports(turn, play, rel) : [],
    audio: {
      capturedMs: round(sum(turn.segments.map((s) => s.durationMs))),
      playedMs: round(sum(turn.segments.map((s) => s.playedMs))),
      endMs: rel(play.endAt),
      gaps: turn.segments.flatMap((s) => s.gaps.map((g) => ({ atMs: rel(g.at)!, ms: round(g.ms) }))),
    },
    interruptRequestedMs: rel(turn.interruptRequestedAt),
  };
}

/**
 * One row per provider request, in order. The driver plays requests back to back, so each starts
 * where the previous one ended; only each request's length is taken from its `track_done`
 * (a request cut by an interruption has none, and its end is unknown).
 */
function requestReports(turn: RawTurn, play: PlaybackClock, rel: (at: number | undefined) => number | undefined): RequestReport[] {
  const tts = turn.tts!;
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
      const frame = frames.find((f) => offsetMs >= f.from && offsetMs < f.to) ?? (offsetMs >= (frames.at(-1)?.to ?? Infinity) ? frames.at(-1) : undefined);
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
