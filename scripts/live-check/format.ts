/** Markdown pieces of the report: frames quoted verbatim (audio elided), tables, firstword's reading. */
import type { ProviderEvent } from '@firstword/agents-plugin-tts/protocol';
import type { Frame } from './probe-socket.js';

const QUOTE_LIMIT = 700;
/** Fields that carry audio: shown as their decoded size, never as base64. */
const AUDIO_FIELDS = new Set(['audio_content', 'data']);

/** A frame (or message) as inline code: exact JSON, audio replaced by its size, long text cut. */
export function quote(value: Frame | Record<string, unknown> | string): string {
  let text: string;
  if (typeof value === 'string') text = value;
  else if ('raw' in value && Buffer.isBuffer(value.raw)) {
    const frame = value as Frame;
    text = frame.binary ? `<binary frame, ${frame.raw.length} bytes>` : frame.json ? elided(frame.json) : frame.raw.toString('utf8');
  } else text = elided(value as Record<string, unknown>);
  if (text.length > QUOTE_LIMIT) text = `${text.slice(0, QUOTE_LIMIT)}… (${text.length} chars)`;
  return `\`${text.replace(/`/g, "'").replace(/\s*\n\s*/g, ' ')}\``;
}

function elided(json: Record<string, unknown>): string {
  return JSON.stringify(json, (key, v: unknown) =>
    AUDIO_FIELDS.has(key) && typeof v === 'string' && v.length > 32 ? `<${Buffer.from(v, 'base64').length} bytes>` : v,
  );
}

export function cell(text: string | number | undefined): string {
  return String(text ?? '—').replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function table(headers: string[], rows: Array<Array<string | number | undefined>>): string[] {
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
}

export const ms = (value: number): string => `${Math.round(value)} ms`;

export const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** What firstword's codec makes of one frame: the events the driver would act on. */
export function reading(events: ProviderEvent[]): string {
  if (events.length === 0) return 'ignored (no event)';
  return events
    .filter((e) => e.type !== 'audio' || events.length === 1)
    .map((e) => {
      switch (e.type) {
        case 'audio':
          return 'audio';
        case 'timings':
          return `timings (${e.timings.length} words)`;
        case 'end':
          return 'end: the track is complete, quietly';
        case 'drained':
          return 'drained: voiced so far, the track stays open';
        case 'lost': {
          return `lost: unvoiced text continues on a new context; a track whose close was sent fails the turn (${describeError(e.error)})`;
        }
        case 'error':
          return `error${e.track === undefined ? ' for the whole socket' : ''}: ${describeError(e.error)}${e.closesSocket ? ', closes the socket' : ''}`;
      }
    })
    .join('; ');
}

function describeError(error: { message: string; retryable?: boolean }): string {
  return `${error.retryable ? 'retryable' : 'not retryable'}, "${error.message}"`;
}
