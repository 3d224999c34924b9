/**
 * The combined decision's sweep as a picture (vega-lite compiled to vega, rendered to SVG headless):
 * one chart per set and language, two panels. Left: replies started inside a pause against the
 * take p50 after the caller's last sound (first content's proxy); right: acknowledgements inside
 * a pause against the ack p50 (first sound's proxy). Every policy of the grid faint, the take
 * front's policies joined, the knee, today's default and the reference rules marked and named.
 */
import { View, parse } from 'vega';
import { type TopLevelSpec, compile } from 'vega-lite';

export interface PlotPoint {
  /** grid: any policy; front: one on the take front; marked: knee, today's default, a reference rule. */
  kind: 'grid' | 'front' | 'marked';
  label?: string;
  repliesPct: number;
  takeP50Ms: number;
  acksPct?: number;
  ackP50Ms?: number;
}

const MARKED_COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e'];

function panel(x: { field: string; title: string }, y: { field: string; title: string }, labels: string[]): NonNullable<Extract<TopLevelSpec, { hconcat: unknown }>['hconcat']>[number] {
  const enc = { x: { field: x.field, type: 'quantitative' as const, title: x.title, scale: { zero: true } }, y: { field: y.field, type: 'quantitative' as const, title: y.title, scale: { zero: false } } };
  const color = { field: 'label', type: 'nominal' as const, title: null, scale: { domain: labels, range: MARKED_COLORS.slice(0, labels.length) }, legend: { orient: 'bottom' as const, columns: 1, labelLimit: 0 } };
  const present = { field: y.field, valid: true };
  return {
    width: 420,
    height: 320,
    layer: [
      { transform: [{ filter: "datum.kind === 'grid'" }, { filter: present }], mark: { type: 'point', color: '#888', opacity: 0.35, size: 18 }, encoding: enc },
      { transform: [{ filter: "datum.kind === 'front'" }, { filter: present }], mark: { type: 'line', color: '#333', point: { color: '#333', size: 22 }, strokeWidth: 1.2 }, encoding: { ...enc, order: { field: x.field, type: 'quantitative' } } },
      { transform: [{ filter: "datum.kind === 'marked'" }, { filter: present }], mark: { type: 'point', filled: true, size: 140, opacity: 0.9 }, encoding: { ...enc, color, shape: { field: 'label', type: 'nominal', title: null } } },
      // One text layer per marked point, each a line lower: points that coincide keep readable names.
      ...labels.map((label, row) => ({
        transform: [{ filter: { field: 'label', equal: label } }, { filter: present }],
        mark: { type: 'text' as const, align: 'left' as const, dx: 9, dy: row * 12 - 12, fontSize: 10 },
        encoding: { ...enc, text: { field: 'short' }, color },
      })),
    ],
  };
}

/** The chart as SVG text. `marked` points' labels name them in the legend; `short` names them on the chart. */
export async function sweepChart(title: string, points: readonly PlotPoint[]): Promise<string> {
  const labels = [...new Set(points.filter((p) => p.kind === 'marked').map((p) => p.label!))];
  const values = points.map((p) => ({ ...p, short: p.label?.split(':')[0] }));
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, anchor: 'start', fontSize: 13 },
    data: { values },
    hconcat: [
      panel({ field: 'repliesPct', title: 'replies started inside a pause (% of pauses)' }, { field: 'takeP50Ms', title: 'take p50 after the last sound (ms)' }, labels),
      panel({ field: 'acksPct', title: 'acknowledgements inside a pause (% of pauses)' }, { field: 'ackP50Ms', title: 'ack p50 after the last sound (ms)' }, labels),
    ],
    resolve: { scale: { color: 'shared', shape: 'shared' } },
    config: { font: 'DejaVu Sans, sans-serif', background: 'white' },
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
