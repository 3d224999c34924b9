/**
 * What the waterfall shows, before any drawing: per turn, a title with the turn's first audio
 * (the table's figures), rows of spans and points, and markers, all on one time axis. Spoken turns
 * are on the caller's clock (ms after their last voiced sample), typed turns on the request's.
 * Pure, so what the picture claims can be tested without reading SVG.
 */
import type { RunInfo } from './report-format.js';
import { containsHangul } from '@firstword/agents-plugin-tts/chunking';
import type { DemoTurnReport as TurnReport } from './turn-details.js';

export type SpanKind = 'llm' | 'waiting' | 'pending' | 'playing' | 'ack' | 'other' | 'gap';
export type PointKind = 'token' | 'chunk' | 'sent' | 'firstByte';
export type MarkerKind = 'firstSound' | 'firstContent' | 'bargeIn';

export interface Span {
  kind: SpanKind;
  fromMs: number;
  toMs: number;
}

export interface WaterfallRow {
  label: string;
  bold?: boolean;
  spans: Span[];
  points: { kind: PointKind; atMs: number }[];
}

export interface WaterfallPanel {
  title: string;
  rows: WaterfallRow[];
  markers: { kind: MarkerKind; label: string; atMs: number }[];
}

export interface WaterfallModel {
  title: string;
  subtitles: string[];
  /** `caller`: ms after the caller's last voiced sample (spoken turns); `typed`: after the request. */
  axis: { clock: 'caller' | 'typed'; startMs: number; endMs: number; stepMs: number; label: string };
  panels: WaterfallPanel[];
}

export const TYPED_AXIS_LABEL = 'ms after the typed turn was sent';
export const CALLER_AXIS_LABEL = "ms after the caller's last voiced sample (the caller's clock)";

export function waterfallModel(turns: readonly TurnReport[], info: RunInfo): WaterfallModel {
  const spoken = info.stt !== undefined;
  const panels = turns.map((turn) => turnPanel(turn, spoken));
  const times = panels.flatMap((p) => [
    ...p.rows.flatMap((r) => [...r.spans.flatMap((s) => [s.fromMs, s.toMs]), ...r.points.map((pt) => pt.atMs)]),
    ...p.markers.map((m) => m.atMs),
  ]);
  const earliest = Math.min(0, ...times);
  const latest = Math.max(1000, ...times);
  const stepMs = tickStep(latest - earliest);
  return {
    title: `firstword demo — waterfall of ${turns.length} turn${turns.length === 1 ? '' : 's'} (${info.startedAt})`,
    subtitles: [
      `LLM: ${info.llm}${info.llmReplayed ? ' — replayed' : ''}`,
      `TTS: ${info.tts}, ${info.sampleRate} Hz${info.stt ? `; STT: ${info.stt}` : ''}`,
    ],
    axis: {
      clock: spoken ? 'caller' : 'typed',
      startMs: Math.floor(earliest / stepMs) * stepMs,
      endMs: Math.ceil(latest / stepMs) * stepMs,
      stepMs,
      label: spoken ? CALLER_AXIS_LABEL : TYPED_AXIS_LABEL,
    },
    panels,
  };
}

/** The figures of a turn's title: the same as the table's columns (first sound and first content, or first audio). */
export function firstAudioHeadline(turn: TurnReport, spoken: boolean): string {
  const { soundMs, contentMs } = turn.firstAudio;
  if (!spoken) return contentMs === undefined ? 'no audio' : `first audio ${Math.round(contentMs)} ms`;
  const show = (ms: number | undefined) => (ms === undefined ? 'none' : `${Math.round(ms)} ms`);
  return `first sound ${show(soundMs)} · first content ${show(contentMs)}`;
}

function turnPanel(turn: TurnReport, spoken: boolean): WaterfallPanel {
  const rows: WaterfallRow[] = [];
  if (turn.acks.length > 0) {
    rows.push({ label: 'acknowledgement', spans: turn.acks.map((a) => span('ack', a.startMs, a.endMs)), points: [] });
  }
  rows.push(llmRow(turn));
  turn.requests.forEach((request, i) => rows.push(requestRow(request, i)));
  rows.push(heardRow(turn));
  const markers: WaterfallPanel['markers'] = [];
  const { soundMs, contentMs } = turn.firstAudio;
  if (spoken && soundMs !== undefined && soundMs !== contentMs) markers.push({ kind: 'firstSound', label: 'first sound', atMs: soundMs });
  if (contentMs !== undefined) markers.push({ kind: 'firstContent', label: spoken ? 'first content' : 'first audio', atMs: contentMs });
  if (turn.interruptRequestedMs !== undefined) markers.push({ kind: 'bargeIn', label: 'barge-in', atMs: turn.interruptRequestedMs });
  return {
    title: `turn “${turn.name}” — ${firstAudioHeadline(turn, spoken)}${turn.interrupted ? ' — interrupted' : ''}`,
    rows,
    markers,
  };
}

function llmRow(turn: TurnReport): WaterfallRow {
  const first = turn.llm.tokenMs[0];
  const last = turn.llm.doneMs ?? turn.llm.tokenMs.at(-1);
  return {
    label: 'LLM tokens · chunk releases',
    spans: first !== undefined && last !== undefined ? [span('llm', first, last)] : [],
    points: [...turn.llm.tokenMs.map((atMs) => ({ kind: 'token' as const, atMs })), ...turn.chunks.map((c) => ({ kind: 'chunk' as const, atMs: c.releasedMs }))],
  };
}

function requestRow(request: TurnReport['requests'][number], i: number): WaterfallRow {
  const spans: Span[] = [];
  const points: WaterfallRow['points'] = [{ kind: 'sent', atMs: request.sentMs }];
  const waitEnd = request.firstByteMs ?? request.sentMs;
  spans.push(span('waiting', request.sentMs, waitEnd));
  if (request.firstByteMs !== undefined) points.push({ kind: 'firstByte', atMs: request.firstByteMs });
  if (request.playStartMs !== undefined && request.playEndMs !== undefined) {
    spans.push(span('pending', waitEnd, request.playStartMs), span('playing', request.playStartMs, request.playEndMs));
  }
  return { label: `#${i + 1} ${labelFor(request.text)}`, spans, points };
}

function heardRow(turn: TurnReport): WaterfallRow {
  const spans = [...turn.otherAudio.map((a) => span('other', a.startMs, a.endMs)), ...turn.acks.map((a) => span('ack', a.startMs, a.endMs))];
  const { startMs, endMs } = turn.audio;
  if (startMs !== undefined && endMs !== undefined) spans.push(span('playing', startMs, endMs));
  for (const gap of turn.audio.gaps) spans.push(span('gap', gap.atMs, gap.atMs + gap.ms));
  return { label: 'heard audio · gaps', bold: true, spans, points: [] };
}

/** A span never runs backwards: a later start than end (clock jitter of a few ms) draws as a point. */
function span(kind: SpanKind, fromMs: number, toMs: number): Span {
  return { kind, fromMs, toMs: Math.max(fromMs, toMs) };
}

/** The chart font (DejaVu) has no Hangul glyphs, so Korean request text is summarized (it is in the report). */
function labelFor(requestText: string): string {
  if (containsHangul(requestText)) return `(Korean, ${[...requestText].length} chars)`;
  return requestText.length > 30 ? `${requestText.slice(0, 29)}…` : requestText;
}

function tickStep(rangeMs: number): number {
  return rangeMs <= 4000 ? 250 : rangeMs <= 10_000 ? 500 : 1000;
}
