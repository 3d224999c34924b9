/**
 * The room benchmark as a picture, drawn like bench/chart.ts (hand-written SVG, resvg, DejaVu
 * fonts): the caller's first sound and first content per language, where it goes stage by stage, and barge-in.
 */
import { Resvg } from '@resvg/resvg-js';
import { fontFiles, niceMax, text } from '../chart.js';
import { STAGE_KEYS, STAGE_LABELS, type StageKey } from './join.js';
import type { Dist, Summary } from './summary.js';

const COLORS: Record<string, string> = { firstword: '#e53935', 'livekit-cartesia': '#1e88e5' };
const WIDTH = 1400;
const LEFT = 80;
const RIGHT = 30;
const PLOT_W = WIDTH - LEFT - RIGHT;

const rect = (x: number, y: number, w: number, h: number, fill: string) =>
  `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(0, w).toFixed(1)}" height="${Math.max(0, h).toFixed(1)}" fill="${fill}"/>`;
const line = (x1: number, y1: number, x2: number, y2: number, stroke = '#212121', width = 1) =>
  `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${stroke}" stroke-width="${width}"/>`;
const r = (v: number | null | undefined) => (v === null || v === undefined ? '-' : String(Math.round(v)));

/** Vertical bars: groups of one bar per strategy, bar = p50, whisker = p90, values on top. */
function barsPanel(top: number, height: number, title: string, groups: Array<{ label: string; sub?: string; bars: Array<{ name: string; d: Dist }> }>): string {
  const parts: string[] = [text(LEFT, top + 20, title, { size: 16, bold: true })];
  const plotTop = top + 40;
  const plotH = height - 95;
  const y0 = plotTop + plotH;
  const maxV = niceMax(Math.max(100, ...groups.flatMap((g) => g.bars.map((b) => b.d.p90Ms ?? 0))));
  const y = (v: number) => y0 - (Math.min(v, maxV) / maxV) * plotH;
  for (let v = 0; v <= maxV + 1e-9; v += maxV / 5) {
    parts.push(line(LEFT, y(v), LEFT + PLOT_W, y(v), '#e0e0e0'));
    parts.push(text(LEFT - 8, y(v) + 4, `${Math.round(v)}`, { anchor: 'end', size: 11 }));
  }
  parts.push(text(20, plotTop + plotH / 2, 'ms', { rotate: -90, anchor: 'middle' }));
  const groupW = PLOT_W / groups.length;
  groups.forEach((g, gi) => {
    const barW = Math.min(110, (groupW * 0.6) / g.bars.length);
    const gx = LEFT + gi * groupW + (groupW - barW * g.bars.length) / 2;
    g.bars.forEach((b, k) => {
      const bx = gx + k * barW;
      const cx = bx + barW / 2;
      if (b.d.p50Ms === null) return;
      parts.push(rect(bx + 4, y(b.d.p50Ms), barW - 8, y0 - y(b.d.p50Ms), COLORS[b.name] ?? '#757575'));
      if (b.d.p90Ms !== null) {
        parts.push(line(cx, y(b.d.p50Ms), cx, y(b.d.p90Ms)));
        parts.push(line(cx - 6, y(b.d.p90Ms), cx + 6, y(b.d.p90Ms)));
      }
      parts.push(text(cx, y(b.d.p90Ms ?? b.d.p50Ms) - 6, `${r(b.d.p50Ms)} / ${r(b.d.p90Ms)}`, { anchor: 'middle', size: 11 }));
    });
    parts.push(text(LEFT + gi * groupW + groupW / 2, y0 + 20, g.label, { anchor: 'middle', size: 13, bold: true }));
    if (g.sub) parts.push(text(LEFT + gi * groupW + groupW / 2, y0 + 38, g.sub, { anchor: 'middle', size: 12 }));
  });
  parts.push(line(LEFT, y0, LEFT + PLOT_W, y0, '#424242'));
  return parts.join('\n');
}

/** Horizontal bars per stage: ms after the last voiced sample (p50 bar, p90 whisker). */
function stagesPanel(top: number, s: Summary, keys: ReadonlyArray<StageKey | 'transport'>): { svg: string; height: number } {
  const rowH = 34;
  const labelW = 270;
  const x0 = LEFT + labelW;
  const plotW = PLOT_W - labelW - 60;
  const all = s.groups.filter((g) => g.language === 'all');
  const stagesOf = (key: StageKey | 'transport') => all.map((g) => ({ name: g.name, d: g.stages[key] }));
  const values = keys.flatMap((k) => stagesOf(k).flatMap((b) => [b.d.p90Ms ?? 0, b.d.p50Ms ?? 0]));
  const minV = Math.min(0, ...values);
  const maxV = niceMax(Math.max(100, ...values));
  const x = (v: number) => x0 + ((v - minV) / (maxV - minV)) * plotW;
  const height = 60 + rowH * keys.length + 30;
  const parts: string[] = [text(LEFT, top + 20, 'Where the wait goes: each stage in ms after the last voiced sample (all turns; bar p50, whisker p90)', { size: 16, bold: true })];
  const plotTop = top + 40;
  const plotBottom = plotTop + rowH * keys.length;
  const step = maxV - minV > 2000 ? 500 : 250;
  for (let v = Math.ceil(minV / step) * step; v <= maxV; v += step) {
    parts.push(line(x(v), plotTop, x(v), plotBottom, v === 0 ? '#424242' : '#e0e0e0'));
    parts.push(text(x(v), plotBottom + 16, `${v}`, { anchor: 'middle', size: 11 }));
  }
  keys.forEach((key, i) => {
    const y = plotTop + i * rowH;
    const label = key === 'transport' ? 'published -> received (SFU, duration)' : STAGE_LABELS[key];
    parts.push(text(x0 - 10, y + rowH / 2 + 4, label, { anchor: 'end', size: 12 }));
    stagesOf(key).forEach((b, k) => {
      const by = y + 5 + k * 12;
      if (b.d.p50Ms === null) {
        parts.push(text(x(0) + 4, by + 9, `${b.name}: not observed`, { size: 10 }));
        return;
      }
      parts.push(rect(Math.min(x(0), x(b.d.p50Ms)), by, Math.abs(x(b.d.p50Ms) - x(0)), 10, COLORS[b.name] ?? '#757575'));
      if (b.d.p90Ms !== null) parts.push(line(x(b.d.p50Ms), by + 5, x(b.d.p90Ms), by + 5), line(x(b.d.p90Ms), by + 1, x(b.d.p90Ms), by + 9));
      parts.push(text(Math.max(x(b.d.p50Ms), x(b.d.p90Ms ?? b.d.p50Ms)) + 5, by + 9, `${r(b.d.p50Ms)} / ${r(b.d.p90Ms)}`, { size: 10 }));
    });
  });
  return { svg: parts.join('\n'), height };
}

export function renderRoomChart(s: Summary, subtitle: string): Buffer {
  const parts: string[] = [];
  parts.push(text(LEFT, 26, 'firstword vs LiveKit Cartesia plugin through a real LiveKit SFU (same worker, same fakes, same token traces)', { size: 17, bold: true }));
  parts.push(text(LEFT, 46, subtitle, { size: 12 }));
  s.strategies.forEach((name, i) => {
    const lx = LEFT + i * 200;
    parts.push(rect(lx, 58, 14, 14, COLORS[name] ?? '#757575'));
    parts.push(text(lx + 20, 70, name, { size: 13 }));
  });
  parts.push(text(LEFT + s.strategies.length * 200, 70, 'labels: p50 / p90 ms', { size: 12 }));
  let top = 85;
  const group = (language: string) => s.strategies.map((name) => s.groups.find((g) => g.name === name && g.language === language)!);
  const waitGroups = (figure: 'firstSound' | 'firstContent') =>
    ['ko', 'en', 'all']
      .filter((language) => s.groups.some((g) => g.language === language && g.turns > 0))
      .map((language) => {
        const ratio = s.ratios.find((q) => q.language === language)?.[figure];
        const gs = group(language);
        return {
          label: `${language === 'all' ? 'both languages' : language === 'ko' ? 'Korean' : 'English'} (${gs.map((g) => `${g[figure].n}/${g.planned}`).join(', ')} turns)`,
          sub: ratio?.p50 != null ? `firstword / official: p50 x${ratio.p50.toFixed(2)}, p90 x${ratio.p90?.toFixed(2) ?? '-'}` : undefined,
          bars: gs.map((g) => ({ name: g.name, d: g[figure] })),
        };
      });
  parts.push(barsPanel(top, 360, 'First sound: last voiced sample published -> first agent frame with speech energy received (the acknowledgement or the reply)', waitGroups('firstSound')));
  top += 370;
  parts.push(barsPanel(top, 360, "First content: last voiced sample published -> the reply's first frame received (told from the acknowledgement by its tone)", waitGroups('firstContent')));
  top += 370;
  const stages = stagesPanel(top, s, [...STAGE_KEYS, 'transport']);
  parts.push(stages.svg);
  top += stages.height + 10;
  if (s.barge.length) {
    const languages = ['ko', 'en', 'all'].filter((language) => s.barge.some((b) => b.language === language));
    const bargeGroups = languages.map((language) => ({
      label: language === 'all' ? 'both languages' : language === 'ko' ? 'Korean' : 'English',
      sub: s.barge.filter((b) => b.language === language).map((b) => `${b.measured}/${b.planned}`).join(', ') + ' measured',
      bars: s.barge.filter((b) => b.language === language).map((b) => ({ name: b.name, d: { n: b.measured, p50Ms: b.p50Ms, p90Ms: b.p90Ms } })),
    }));
    parts.push(barsPanel(top, 300, 'Barge-in: caller starts talking -> agent track silent (>= 100 ms below the threshold)', bargeGroups));
    top += 310;
  }
  const height = top + 10;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">\n<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>\n${parts.join('\n')}\n</svg>`;
  const resvg = new Resvg(svg, { font: { fontFiles: fontFiles(), loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' } });
  return resvg.render().asPng();
}
