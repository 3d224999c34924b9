import { STAMP_LABELS } from '../latency/stamps.js';
import { hangulBlockOf } from '@firstword/agents-plugin-tts/chunking';
import { type DemoTurnReport as TurnReport, TYPED_TURN_STAMPS } from './turn-details.js';

export interface RunInfo {
  llm: string;
  llmReplayed: boolean;
  tts: string;
  sampleRate: number;
  startedAt: string;
  /** Spoken turns: what stood in for speech recognition. Unset: typed turns. */
  stt?: string;
}

const COLUMNS: { title: string; value: (t: TurnReport) => string }[] = [
  { title: 'turn', value: (t) => t.name },
  { title: 'first audio', value: (t) => ms(t.firstAudio.contentMs) },
  { title: 'LLM 1st token', value: (t) => ms(t.stamps.llmFirstToken) },
  { title: '1st chunk', value: (t) => ms(t.stamps.ttsFirstChunk) },
  { title: '1st send', value: (t) => ms(t.stamps.ttsFirstSend) },
  { title: 'TTS 1st byte', value: (t) => ms(t.stamps.ttsFirstByte) },
  { title: 'TTS 1st frame', value: (t) => ms(t.stamps.ttsFirstFrame) },
  { title: 'requests', value: (t) => String(t.requests.length) },
  { title: 'audio', value: (t) => seconds(t.audio.capturedMs) },
  { title: 'heard', value: (t) => seconds(t.audio.playedMs) + (t.interrupted ? ' (cut)' : '') },
  { title: 'gaps', value: (t) => (t.audio.gaps.length ? `${t.audio.gaps.length} / ${Math.round(sumGaps(t))} ms` : '0') },
];

/** Spoken turns: every figure on the caller's clock, from the last voiced sample of their speech. */
const SPOKEN_COLUMNS: { title: string; value: (t: TurnReport) => string }[] = [
  { title: 'turn', value: (t) => t.name },
  { title: 'first sound', value: (t) => ms(t.firstAudio.soundMs) },
  { title: 'first content', value: (t) => ms(t.firstAudio.contentMs) },
  { title: 'VAD end', value: (t) => ms(t.spoken?.fromEndOfSpeech.vadEndOfSpeech) },
  { title: 'STT final', value: (t) => ms(t.spoken?.fromEndOfSpeech.sttFinal) },
  { title: 'turn decided', value: (t) => ms(t.spoken?.fromEndOfSpeech.turnDecided) },
  { title: 'LLM request', value: (t) => ms(t.spoken?.fromEndOfSpeech.llmRequest) },
  { title: 'LLM 1st token', value: (t) => ms(t.spoken?.fromEndOfSpeech.llmFirstToken) },
  { title: '1st chunk', value: (t) => ms(t.spoken?.fromEndOfSpeech.ttsFirstChunk) },
  { title: 'TTS 1st byte', value: (t) => ms(t.spoken?.fromEndOfSpeech.ttsFirstByte) },
  { title: 'ack', value: (t) => (t.ack ? `${t.ack.outcome} (${t.ack.reason})` : '—') },
  { title: 'false ends', value: (t) => String(t.spoken?.falseEnds ?? 0) },
  { title: 'heard', value: (t) => seconds(t.audio.playedMs) + (t.interrupted ? ' (cut)' : '') },
];

/** The terminal summary: one row per turn, then each turn's requests. */
export function formatReport(turns: readonly TurnReport[], info: RunInfo): string {
  const columns = info.stt ? SPOKEN_COLUMNS : COLUMNS;
  const rows = [columns.map((c) => c.title), ...turns.map((t) => columns.map((c) => c.value(t)))];
  const widths = columns.map((_, i) => Math.max(...rows.map((r) => displayWidth(r[i]!))));
  const line = (cells: string[]) => cells.map((cell, i) => pad(cell, widths[i]!, i === 0 ? 'left' : 'right')).join('  ');
  const clock = info.stt ? `ms after the caller's last voiced sample; spoken turns, ${info.stt}` : 'ms after the typed turn was sent';
  const out = [
    `Latency per turn (${clock}; LLM: ${info.llm}${info.llmReplayed ? ' — REPLAYED, not a live model' : ''}; TTS: ${info.tts} at ${info.sampleRate} Hz)`,
    line(rows[0]!),
    widths.map((w) => '─'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
  ];
  const missing = new Set(turns.flatMap((t) => t.unobservable));
  if (missing.size > 0) {
    out.push(`Not observable with this TTS: ${[...missing].map((s) => STAMP_LABELS[s]).join(', ')}.`);
  }
  for (const turn of turns) {
    out.push('', `[${turn.name}] ${info.stt ? 'caller said' : 'user'}: ${turn.prompt}`, `  agent${info.llmReplayed ? ' (replayed)' : ''}: ${turn.reply}`);
    for (const [i, r] of turn.requests.entries()) {
      const played = r.playStartMs === undefined ? 'not played' : `played ${ms(r.playStartMs)}–${ms(r.playEndMs)}`;
      out.push(`  #${i + 1} sent ${ms(r.sentMs)}, first byte ${ms(r.firstByteMs)}, ${played}: ${JSON.stringify(r.text)}`);
    }
    for (const ack of turn.acks) out.push(`  acknowledgement played ${ms(ack.startMs)}–${ms(ack.endMs)}`);
    for (const other of turn.otherAudio) out.push(`  other agent audio played ${ms(other.startMs)}–${ms(other.endMs)} (not this reply)`);
    if (turn.interruptRequestedMs !== undefined) out.push(`  interrupted (barge-in) at ${ms(turn.interruptRequestedMs)}`);
    if (turn.wav) out.push(`  audio: ${turn.wav}`);
  }
  return out.join('\n');
}

/** The JSON report: run facts, stamp definitions, and every turn. */
export function reportJson(turns: readonly TurnReport[], info: RunInfo): string {
  const stamps = Object.fromEntries(TYPED_TURN_STAMPS.map((s) => [s, STAMP_LABELS[s]]));
  const units = info.stt
    ? "stamps and stages: ms since the turn was decided (the turn budget's, as in the worker's turn log); every other time, firstAudio and spoken: ms since the caller's last voiced sample"
    : "ms since the typed turn was sent (the turn budget's zero, as in the worker's turn log); firstAudio is the budget's first sound and first content";
  return `${JSON.stringify({ run: info, units, stamps, turns }, null, 2)}\n`;
}

function ms(value: number | undefined): string {
  return value === undefined ? '—' : String(Math.round(value));
}

function seconds(value: number): string {
  return `${(value / 1000).toFixed(2)} s`;
}

function sumGaps(turn: TurnReport): number {
  return turn.audio.gaps.reduce((a, g) => a + g.ms, 0);
}

/** East Asian wide characters other than Hangul (CJK, kana, fullwidth forms). */
const WIDE = /[\u2e80-\ua4cf\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u;

// Hangul (but its halfwidth jamo) and other wide characters take two terminal columns.
function columnsOf(ch: string): number {
  const block = hangulBlockOf(ch.codePointAt(0)!);
  if (block) return block === 'halfwidthJamo' ? 1 : 2;
  return WIDE.test(ch) ? 2 : 1;
}

function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += columnsOf(ch);
  return width;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'left' ? text + fill : fill + text;
}
