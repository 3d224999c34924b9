/**
 * The benchmark as a picture: hand-written SVG rendered to PNG by resvg with the DejaVu fonts
 * from node_modules (resvg draws no text without font files). One panel of time to first audio
 * per LLM rate (bar = p50, whisker = p90, black tick = floor), and one of underrun silence.
 */
import { Resvg } from '@resvg/resvg-js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type Row, conditionsOf, rowsOf } from './report.js';
import { conditionLabel } from './scenarios.js';
import type { StrategyName } from './strategies.js';

const COLORS: Record<StrategyName, string> = {
  naive: '#9e9e9e',
  sentence: '#8d6e63',
  'livekit-cartesia': '#1e88e5',
  firstword: '#e53935',
  'firstword-eager': '#fb8c00',
  'firstword-min3': '#00897b',
  'livekit-python-cartesia': '#3949ab',
  'livekit-python-resemble': '#5e35b1',
  'pipecat-cartesia': '#43a047',
  'pipecat-resemble': '#7cb342',
};
const LEGEND_PER_LINE = 6;

const WIDTH = 1600;
const PANEL_HEIGHT = 340;
const MARGIN = { left: 70, right: 20, top: 40, bottom: 70 };

export function fontFiles(): string[] {
  const require = createRequire(import.meta.url);
  const dir = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return [join(dir, 'DejaVuSans.ttf'), join(dir, 'DejaVuSans-Bold.ttf')];
}

export const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function text(x: number, y: number, s: string, opts: { size?: number; anchor?: string; bold?: boolean; rotate?: number } = {}): string {
  const transform = opts.rotate ? ` transform="rotate(${opts.rotate} ${x} ${y})"` : '';
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" font-family="DejaVu Sans" font-size="${opts.size ?? 12}" text-anchor="${opts.anchor ?? 'start'}"${opts.bold ? ' font-weight="bold"' : ''}${transform}>${esc(s)}</text>`;
}

export function niceMax(v: number): number {
  const step = v > 2000 ? 500 : v > 1000 ? 250 : v > 400 ? 100 : v > 100 ? 50 : 10;
  return Math.max(step, Math.ceil(v / step) * step);
}

function ttfaPanel(rows: Row[], strategies: readonly StrategyName[], top: number, title: string): string {
  const parts: string[] = [];
  const x0 = MARGIN.left;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const y0 = top + MARGIN.top + plotH;
  const maxV = niceMax(Math.max(...rows.flatMap((r) => strategies.map((s) => r.cells[s]?.ttfaP90Ms ?? 0))));
  const y = (v: number) => y0 - (Math.min(v, maxV) / maxV) * plotH;
  parts.push(text(x0, top + 22, title, { size: 16, bold: true }));
  for (let v = 0; v <= maxV; v += maxV / 5) {
    parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e0e0e0"/>`);
    parts.push(text(x0 - 6, y(v) + 4, `${Math.round(v)}`, { anchor: 'end', size: 11 }));
  }
  parts.push(text(18, top + MARGIN.top + plotH / 2, 'ms', { rotate: -90, anchor: 'middle' }));
  const groupW = plotW / rows.length;
  const barW = (groupW * 0.8) / strategies.length;
  rows.forEach((row, g) => {
    const gx = x0 + g * groupW + groupW * 0.1;
    strategies.forEach((s, k) => {
      const c = row.cells[s];
      if (!c) return;
      const bx = gx + k * barW;
      parts.push(`<rect x="${bx.toFixed(1)}" y="${y(c.ttfaP50Ms).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(y0 - y(c.ttfaP50Ms)).toFixed(1)}" fill="${COLORS[s]}"/>`);
      const cx = bx + (barW - 1) / 2;
      parts.push(`<line x1="${cx.toFixed(1)}" x2="${cx.toFixed(1)}" y1="${y(c.ttfaP50Ms).toFixed(1)}" y2="${y(c.ttfaP90Ms).toFixed(1)}" stroke="#212121"/>`);
      parts.push(`<line x1="${(cx - 3).toFixed(1)}" x2="${(cx + 3).toFixed(1)}" y1="${y(c.ttfaP90Ms).toFixed(1)}" y2="${y(c.ttfaP90Ms).toFixed(1)}" stroke="#212121"/>`);
    });
    const floor = Object.values(row.cells)[0]?.floorMs;
    if (floor !== undefined) {
      parts.push(`<line x1="${gx - 2}" x2="${gx + groupW * 0.8 + 2}" y1="${y(floor)}" y2="${y(floor)}" stroke="#000" stroke-width="2"/>`);
    }
    parts.push(text(gx + groupW * 0.4, y0 + 16, row.scenario, { anchor: 'middle', size: 11 }));
  });
  parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${y0}" y2="${y0}" stroke="#424242"/>`);
  return parts.join('\n');
}

const groupOf = (r: Row) => `${r.provider} ${r.language} @ ${conditionLabel(r)}`;

function underrunPanel(rows: Row[], strategies: readonly StrategyName[], top: number): string {
  const groups = [...new Set(rows.map(groupOf))];
  const parts: string[] = [];
  const x0 = MARGIN.left;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
  const y0 = top + MARGIN.top + plotH;
  const values = groups.map((g) => {
    const mine = rows.filter((r) => groupOf(r) === g);
    return strategies.map((s) => {
      const cells = mine.map((r) => r.cells[s]).filter((c) => c !== undefined);
      return cells.length ? cells.reduce((n, c) => n + c.underrunMs, 0) / cells.length : 0;
    });
  });
  const maxV = niceMax(Math.max(10, ...values.flat()));
  const y = (v: number) => y0 - (v / maxV) * plotH;
  parts.push(text(x0, top + 22, 'Underrun silence per turn, mean over scenarios (ms, real-time playout from the first frame)', { size: 16, bold: true }));
  for (let v = 0; v <= maxV; v += maxV / 5) {
    parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e0e0e0"/>`);
    parts.push(text(x0 - 6, y(v) + 4, `${Math.round(v)}`, { anchor: 'end', size: 11 }));
  }
  const groupW = plotW / groups.length;
  const barW = (groupW * 0.7) / strategies.length;
  groups.forEach((g, gi) => {
    const gx = x0 + gi * groupW + groupW * 0.15;
    strategies.forEach((s, k) => {
      const v = values[gi]![k]!;
      const bx = gx + k * barW;
      parts.push(`<rect x="${bx.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(y0 - y(v)).toFixed(1)}" fill="${COLORS[s]}"/>`);
      parts.push(text(bx + barW / 2, y(v) - 4, v.toFixed(0), { anchor: 'middle', size: 10 }));
    });
    parts.push(text(gx + groupW * 0.35, y0 + 18, g, { anchor: 'middle', size: 10 }));
  });
  parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${y0}" y2="${y0}" stroke="#424242"/>`);
  return parts.join('\n');
}

export function renderChart(rows: Row[], strategies: readonly StrategyName[], subtitle: string): Buffer {
  const panels = [...new Set(rows.map((r) => r.provider))].flatMap((provider) =>
    conditionsOf(rows.filter((r) => r.provider === provider)).map((c) => ({ provider, c, rows: rowsOf(rows, provider, c) })),
  );
  const legendH = 30 + 20 * Math.ceil(strategies.length / LEGEND_PER_LINE);
  const height = legendH + PANEL_HEIGHT * (panels.length + 1);
  const parts: string[] = [`<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`];
  parts.push(text(MARGIN.left, 24, `firstword benchmark: ${subtitle}`, { size: 14 }));
  strategies.forEach((s, i) => {
    const x = MARGIN.left + (i % LEGEND_PER_LINE) * 230;
    const y = 34 + 20 * Math.floor(i / LEGEND_PER_LINE);
    parts.push(`<rect x="${x}" y="${y}" width="14" height="14" fill="${COLORS[s]}"/>`);
    parts.push(text(x + 20, y + 12, s, { size: 13 }));
  });
  parts.push(text(WIDTH - MARGIN.right, 24, 'bar p50, whisker p90, black line = floor', { size: 12, anchor: 'end' }));
  panels.forEach((panel, i) => {
    const title = `${panel.provider}: time to first audio, LLM ${conditionLabel(panel.c)} (ms from the LLM request)`;
    const present = strategies.filter((s) => panel.rows.some((r) => r.cells[s]));
    parts.push(ttfaPanel(panel.rows, present, legendH + i * PANEL_HEIGHT, title));
  });
  parts.push(underrunPanel(rows, strategies, legendH + panels.length * PANEL_HEIGHT));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">\n${parts.join('\n')}\n</svg>`;
  const resvg = new Resvg(svg, { font: { fontFiles: fontFiles(), loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' } });
  return resvg.render().asPng();
}
