/**
 * The run's waterfall, drawn from its model (waterfall-model.ts): one panel per turn, all on the
 * same time axis, showing the acknowledgement, the LLM token stream and chunk releases, each TTS
 * request's send → first byte → playback, and the audio as heard with its gaps and any barge-in.
 * Hand-written SVG, rendered to PNG by resvg with the DejaVu fonts (without font files resvg draws
 * no text at all).
 */
import { Resvg } from '@resvg/resvg-js';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { RunInfo } from './report-format.js';
import type { DemoTurnReport as TurnReport } from './turn-details.js';
import { type MarkerKind, type SpanKind, type WaterfallModel, type WaterfallRow, waterfallModel } from './waterfall-model.js';

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
  ack: '#0c8599',
  other: '#b2f2bb',
  gap: '#e03131',
  grid: '#e9ecef',
  zero: '#495057',
  text: '#212529',
  muted: '#868e96',
} as const;

const SPAN_COLORS: Record<SpanKind, string> = {
  llm: COLORS.llmBar,
  waiting: COLORS.waiting,
  pending: COLORS.waiting,
  playing: COLORS.playing,
  ack: COLORS.ack,
  other: COLORS.other,
  gap: COLORS.gap,
};
const MARKER_COLORS: Record<MarkerKind, string> = { firstSound: COLORS.ack, firstContent: COLORS.playing, bargeIn: COLORS.gap };

export function waterfallSvg(turns: readonly TurnReport[], info: RunInfo): string {
  return drawModel(waterfallModel(turns, info));
}

function drawModel(model: WaterfallModel): string {
  const plotWidth = WIDTH - LABEL_WIDTH - RIGHT_MARGIN;
  const { startMs, endMs, stepMs } = model.axis;
  const x = (t: number) => LABEL_WIDTH + ((t - startMs) / (endMs - startMs)) * plotWidth;
  const parts: string[] = [];
  let y = 30;
  parts.push(text(20, y, model.title, { size: 16, weight: 'bold' }));
  for (const subtitle of model.subtitles) {
    y += subtitle === model.subtitles[0] ? 20 : 16;
    parts.push(text(20, y, subtitle, { size: 12, color: COLORS.muted }));
  }
  y += 24;
  parts.push(legend(20, y, model.axis.clock === 'caller'));
  y += 20;
  const gridTop = y;
  const panels: string[] = [];
  for (const [i, panel] of model.panels.entries()) {
    if (i > 0) panels.push(`<line x1="20" y1="${y + 4}" x2="${WIDTH - RIGHT_MARGIN}" y2="${y + 4}" stroke="#dee2e6"/>`);
    y += 14;
    panels.push(text(20, y + 4, panel.title, { size: 14, weight: 'bold' }));
    y += 12;
    const rowsTop = y;
    for (const row of panel.rows) {
      panels.push(...drawRow(row, y, x));
      y += ROW;
    }
    for (const marker of panel.markers) {
      const mx = x(marker.atMs);
      const color = MARKER_COLORS[marker.kind];
      const dash = marker.kind === 'bargeIn' ? '' : ' stroke-dasharray="4 3"';
      panels.push(`<line x1="${mx.toFixed(1)}" y1="${rowsTop - 2}" x2="${mx.toFixed(1)}" y2="${y}" stroke="${color}" stroke-width="${marker.kind === 'bargeIn' ? 2 : 1}"${dash}/>`);
      // First sound and first content are in the legend and the title; only a barge-in is named here.
      if (marker.kind === 'bargeIn') panels.push(text(mx + 4, rowsTop + 8, marker.label, { size: 11, color }));
    }
  }
  y += 10;
  const grid: string[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) {
    grid.push(`<line x1="${x(t).toFixed(1)}" y1="${gridTop}" x2="${x(t).toFixed(1)}" y2="${y}" stroke="${t === 0 ? COLORS.zero : COLORS.grid}"/>`);
    grid.push(text(x(t), y + 16, `${t}`, { size: 11, anchor: 'middle', color: COLORS.muted }));
  }
  grid.push(text(LABEL_WIDTH + plotWidth / 2, y + 34, model.axis.label, { size: 12, anchor: 'middle', color: COLORS.muted }));
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

function drawRow(row: WaterfallRow, y: number, x: (t: number) => number): string[] {
  const out = [text(20, y + 15, row.label, { size: 12, ...(row.bold ? { weight: 'bold' as const } : {}) })];
  const mid = y + ROW / 2;
  for (const span of row.spans) {
    const color = SPAN_COLORS[span.kind];
    const from = x(span.fromMs);
    const to = x(span.toMs);
    switch (span.kind) {
      case 'waiting':
        out.push(`<line x1="${from.toFixed(1)}" y1="${mid}" x2="${to.toFixed(1)}" y2="${mid}" stroke="${color}" stroke-width="3"/>`);
        break;
      case 'pending':
        out.push(`<line x1="${from.toFixed(1)}" y1="${mid}" x2="${to.toFixed(1)}" y2="${mid}" stroke="${color}" stroke-dasharray="2 3"/>`);
        break;
      case 'gap':
        out.push(rect(from, y + 2, Math.max(2, to - from), ROW - 4, color));
        break;
      case 'llm':
        out.push(rect(from, y + 4, to - from, ROW - 8, color));
        break;
      default:
        out.push(rect(from, y + 5, to - from, ROW - 10, color));
    }
  }
  for (const point of row.points) {
    const px = x(point.atMs);
    switch (point.kind) {
      case 'token':
        out.push(`<line x1="${px.toFixed(1)}" y1="${y + 5}" x2="${px.toFixed(1)}" y2="${y + ROW - 5}" stroke="${COLORS.token}" stroke-width="1"/>`);
        break;
      case 'chunk':
        out.push(`<path d="M ${px} ${mid - 6} L ${px + 6} ${mid} L ${px} ${mid + 6} L ${px - 6} ${mid} Z" fill="${COLORS.chunk}" stroke="#ffffff"/>`);
        break;
      case 'sent':
        out.push(`<circle cx="${px.toFixed(1)}" cy="${mid}" r="3" fill="${COLORS.waiting}"/>`);
        break;
      case 'firstByte':
        out.push(`<circle cx="${px.toFixed(1)}" cy="${mid}" r="4" fill="${COLORS.firstByte}"/>`);
        break;
    }
  }
  return out;
}

type LegendItem = [color: string, label: string, shape: 'box' | 'dashed'];
const MARKER_LEGEND_SPOKEN: LegendItem[] = [
  [MARKER_COLORS.firstSound, 'first sound', 'dashed'],
  [MARKER_COLORS.firstContent, 'first content', 'dashed'],
];
const MARKER_LEGEND_TYPED: LegendItem[] = [[MARKER_COLORS.firstContent, 'first audio', 'dashed']];

function legend(x0: number, y: number, spoken: boolean): string {
  const items: LegendItem[] = [
    [COLORS.ack, 'acknowledgement', 'box'],
    [COLORS.token, 'LLM token', 'box'],
    [COLORS.chunk, 'chunk released', 'box'],
    [COLORS.waiting, 'request sent → waiting', 'box'],
    [COLORS.firstByte, 'first byte', 'box'],
    [COLORS.playing, 'playing', 'box'],
    [COLORS.other, 'other agent audio', 'box'],
    [COLORS.gap, 'gap / barge-in', 'box'],
    ...(spoken ? MARKER_LEGEND_SPOKEN : MARKER_LEGEND_TYPED),
  ];
  let x = x0;
  const out: string[] = [];
  for (const [color, label, shape] of items) {
    out.push(
      shape === 'box'
        ? rect(x, y - 10, 12, 12, color)
        : `<line x1="${x + 6}" y1="${y - 12}" x2="${x + 6}" y2="${y + 3}" stroke="${color}" stroke-width="2" stroke-dasharray="4 3"/>`,
      text(x + 17, y, label, { size: 12 }),
    );
    x += 34 + label.length * 7;
  }
  return out.join('\n');
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
