/**
 * The run's waterfall: one panel per turn, all on the same time scale (ms after the user turn),
 * showing the LLM token stream and chunk releases, each TTS request's send → first byte →
 * playback, and the audio as heard with its gaps and any barge-in. Hand-written SVG, rendered to
 * PNG by resvg with the DejaVu fonts (without font files resvg draws no text at all).
 */
import { Resvg } from '@resvg/resvg-js';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RunInfo } from './report-format.js';
import type { DemoTurnReport as TurnReport } from './turn-details.js';

const WIDTH = 1400;
const LABEL_WIDTH = 260;
const RIGHT_MARGIN = 30;
const ROW = 24;
const COLORS = {
  llmBar: '#cfe3ff',
  token: '#1f5fbf',
  chunk: '#f08c00',
  waiting: '#9aa5b1',
  firstByte: '#5f3dc4',
  playing: '#2f9e44',
  gap: '#e03131',
  grid: '#e9ecef',
  text: '#212529',
  muted: '#868e96',
} as const;

export function waterfallSvg(turns: readonly TurnReport[], info: RunInfo): string {
  const plotWidth = WIDTH - LABEL_WIDTH - RIGHT_MARGIN;
  const endMs = niceCeiling(Math.max(1000, ...turns.map(turnEndMs)));
  const x = (t: number) => LABEL_WIDTH + (Math.max(0, t) / endMs) * plotWidth;
  const tickStep = endMs <= 4000 ? 250 : endMs <= 10_000 ? 500 : 1000;
  const parts: string[] = [];
  let y = 30;
  parts.push(text(20, y, `firstword demo — waterfall of ${turns.length} turn${turns.length === 1 ? '' : 's'} (${info.startedAt})`, { size: 16, weight: 'bold' }));
  y += 20;
  parts.push(text(20, y, `LLM: ${info.llm}${info.llmReplayed ? ' — replayed' : ''}`, { size: 12, color: COLORS.muted }));
  y += 16;
  parts.push(text(20, y, `TTS: ${info.tts}, ${info.sampleRate} Hz`, { size: 12, color: COLORS.muted }));
  y += 24;
  parts.push(legend(20, y));
  y += 20;
  const gridTop = y;
  const panels: string[] = [];
  for (const [i, turn] of turns.entries()) {
    if (i > 0) panels.push(`<line x1="20" y1="${y + 4}" x2="${WIDTH - RIGHT_MARGIN}" y2="${y + 4}" stroke="#dee2e6"/>`);
    y += 14;
    const ttfa = turn.firstContentMs === undefined ? 'no audio' : `first audio ${Math.round(turn.firstContentMs)} ms`;
    panels.push(text(20, y + 4, `turn “${turn.name}” — ${ttfa}${turn.interrupted ? ' — interrupted' : ''}`, { size: 14, weight: 'bold' }));
    y += 12;
    panels.push(...llmRow(turn, y, x));
    y += ROW;
    turn.requests.forEach((request, i) => {
      panels.push(...requestRow(request, i, y, x));
      y += ROW;
    });
    panels.push(...playbackRow(turn, y, x));
    y += ROW;
    if (turn.firstContentMs !== undefined) {
      const fx = x(turn.firstContentMs);
      panels.push(`<line x1="${fx}" y1="${y - ROW * (turn.requests.length + 2) - 6}" x2="${fx}" y2="${y}" stroke="${COLORS.playing}" stroke-dasharray="4 3"/>`);
    }
  }
  y += 10;
  const grid: string[] = [];
  for (let t = 0; t <= endMs; t += tickStep) {
    grid.push(`<line x1="${x(t)}" y1="${gridTop}" x2="${x(t)}" y2="${y}" stroke="${COLORS.grid}"/>`);
    grid.push(text(x(t), y + 16, `${t}`, { size: 11, anchor: 'middle', color: COLORS.muted }));
  }
  grid.push(text(LABEL_WIDTH + plotWidth / 2, y + 34, 'ms after the typed turn was sent', { size: 12, anchor: 'middle', color: COLORS.muted }));
  const height = y + 48;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="DejaVu Sans">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...grid,
    ...parts,
    ...panels,
    '</svg>',
  ].join('\n');
}

export function renderPng(svg: string): Buffer {
  const fontDir = path.join(path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  const resvg = new Resvg(svg, {
    font: {
      fontFiles: ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => path.join(fontDir, f)),
      loadSystemFonts: false,
      defaultFontFamily: 'DejaVu Sans',
    },
  });
  return resvg.render().asPng();
}

function llmRow(turn: TurnReport, y: number, x: (t: number) => number): string[] {
  const out = [text(20, y + 15, 'LLM tokens · chunk releases', { size: 12 })];
  const first = turn.llm.tokenMs[0];
  const last = turn.llm.doneMs ?? turn.llm.tokenMs.at(-1);
  if (first !== undefined && last !== undefined) {
    out.push(rect(x(first), y + 4, x(last) - x(first), ROW - 8, COLORS.llmBar));
  }
  for (const t of turn.llm.tokenMs) out.push(`<line x1="${x(t)}" y1="${y + 5}" x2="${x(t)}" y2="${y + ROW - 5}" stroke="${COLORS.token}" stroke-width="1"/>`);
  for (const chunk of turn.chunks) {
    const cx = x(chunk.releasedMs);
    const cy = y + ROW / 2;
    out.push(`<path d="M ${cx} ${cy - 6} L ${cx + 6} ${cy} L ${cx} ${cy + 6} L ${cx - 6} ${cy} Z" fill="${COLORS.chunk}" stroke="#ffffff"/>`);
  }
  return out;
}

function requestRow(request: TurnReport['requests'][number], i: number, y: number, x: (t: number) => number): string[] {
  const out = [text(20, y + 15, `#${i + 1} ${labelFor(request.text)}`, { size: 12 })];
  const mid = y + ROW / 2;
  const waitEnd = request.firstByteMs ?? request.sentMs;
  out.push(`<line x1="${x(request.sentMs)}" y1="${mid}" x2="${x(waitEnd)}" y2="${mid}" stroke="${COLORS.waiting}" stroke-width="3"/>`);
  out.push(`<circle cx="${x(request.sentMs)}" cy="${mid}" r="3" fill="${COLORS.waiting}"/>`);
  if (request.firstByteMs !== undefined) out.push(`<circle cx="${x(request.firstByteMs)}" cy="${mid}" r="4" fill="${COLORS.firstByte}"/>`);
  if (request.playStartMs !== undefined && request.playEndMs !== undefined) {
    out.push(`<line x1="${x(waitEnd)}" y1="${mid}" x2="${x(request.playStartMs)}" y2="${mid}" stroke="${COLORS.waiting}" stroke-dasharray="2 3"/>`);
    out.push(rect(x(request.playStartMs), y + 5, x(request.playEndMs) - x(request.playStartMs), ROW - 10, COLORS.playing));
  }
  return out;
}

function playbackRow(turn: TurnReport, y: number, x: (t: number) => number): string[] {
  const out = [text(20, y + 15, 'heard audio · gaps', { size: 12, weight: 'bold' })];
  const start = turn.stamps.playbackStarted;
  const end = turn.audio.endMs;
  if (start !== undefined && end !== undefined) {
    out.push(rect(x(start), y + 4, x(end) - x(start), ROW - 8, COLORS.playing));
    for (const gap of turn.audio.gaps) out.push(rect(x(gap.atMs), y + 2, Math.max(2, x(gap.atMs + gap.ms) - x(gap.atMs)), ROW - 4, COLORS.gap));
  }
  if (turn.interruptRequestedMs !== undefined) {
    const ix = x(turn.interruptRequestedMs);
    out.push(`<line x1="${ix}" y1="${y - 4}" x2="${ix}" y2="${y + ROW}" stroke="${COLORS.gap}" stroke-width="2"/>`);
    out.push(text(ix + 4, y - 6, 'barge-in', { size: 11, color: COLORS.gap }));
  }
  return out;
}

function legend(x0: number, y: number): string {
  const items: [string, string][] = [
    [COLORS.token, 'LLM token'],
    [COLORS.chunk, 'chunk released'],
    [COLORS.waiting, 'request sent → waiting'],
    [COLORS.firstByte, 'first byte'],
    [COLORS.playing, 'playing'],
    [COLORS.gap, 'gap / barge-in'],
  ];
  let x = x0;
  const out: string[] = [];
  for (const [color, label] of items) {
    out.push(rect(x, y - 10, 12, 12, color), text(x + 17, y, label, { size: 12 }));
    x += 40 + label.length * 7;
  }
  return out.join('\n');
}

/** DejaVu has no Hangul glyphs, so Korean request text is summarized (it is in the report). */
function labelFor(requestText: string): string {
  if (/[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/u.test(requestText)) return `(Korean, ${[...requestText].length} chars)`;
  return requestText.length > 30 ? `${requestText.slice(0, 29)}…` : requestText;
}

function turnEndMs(turn: TurnReport): number {
  return Math.max(
    turn.audio.endMs ?? 0,
    turn.llm.doneMs ?? 0,
    turn.interruptRequestedMs ?? 0,
    ...turn.requests.map((r) => r.playEndMs ?? r.firstByteMs ?? r.sentMs),
  );
}

function niceCeiling(ms: number): number {
  const step = ms <= 4000 ? 250 : ms <= 10_000 ? 500 : 1000;
  return Math.ceil(ms / step) * step;
}

function rect(x: number, y: number, width: number, height: number, fill: string): string {
  return `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(1, width).toFixed(1)}" height="${height}" rx="2" fill="${fill}"/>`;
}

function text(
  x: number,
  y: number,
  content: string,
  style: { size: number; weight?: 'bold'; anchor?: 'middle'; color?: string },
): string {
  const attrs = [
    `x="${x.toFixed(1)}"`,
    `y="${y}"`,
    `font-size="${style.size}"`,
    `fill="${style.color ?? COLORS.text}"`,
    style.weight ? `font-weight="${style.weight}"` : '',
    style.anchor ? `text-anchor="${style.anchor}"` : '',
  ].filter(Boolean);
  return `<text ${attrs.join(' ')}>${escapeXml(content)}</text>`;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
