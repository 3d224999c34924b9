/**
 * What bench:turn reports on recorded human turns, per language and per pause-length band: of the
 * pauses a speaker went on after, how many had a reply start, an acknowledgement play, or any agent
 * sound begin inside them; and at the turn's real end, how long the caller waited.
 *
 * "Inside a pause" is counted as bench:turn counts its false ends (figures.ts `pauseOutcomes`):
 * from the pause's first silent sample until the end of the speech after it — a sound set off by
 * the pause that only starts once the caller has gone on is still the agent taking a turn that
 * was not over.
 */
import type { SpokenTurn } from '../../src/spoken/spoken-session.js';
import { percentile } from '../playout.js';

export interface PauseBand {
  label: string;
  /** Inclusive lower bound, exclusive upper bound (ms). */
  fromMs: number;
  toMs: number;
}

export const PAUSE_BANDS: readonly PauseBand[] = [
  { label: '250–500 ms', fromMs: 250, toMs: 500 },
  { label: '500–800 ms', fromMs: 500, toMs: 800 },
  { label: '800–1200 ms', fromMs: 800, toMs: 1200 },
  { label: '≥ 1200 ms', fromMs: 1200, toMs: Number.POSITIVE_INFINITY },
];

/**
 * What the transcript rules say of the words heard up to a pause (bench/turn/human-run.ts
 * `pauseWords`): a pause after words that read finished can only be held by the voice.
 */
export type PauseWords = 'finished' | 'unfinished' | 'none';

export const PAUSE_WORDS: ReadonlyArray<{ words: PauseWords; label: string }> = [
  { words: 'finished', label: 'words read finished' },
  { words: 'unfinished', label: 'words read unfinished' },
  { words: 'none', label: 'no words' },
];

/** One played human turn: the agent's sound starts (timeline clock) and the turn's pauses. */
export interface PlayedTurn {
  language: string;
  /** Each pause: its length, the window it is judged over (timeline clock), what its words read as. */
  pauses: Array<{ ms: number; from: number; until: number; words: PauseWords }>;
  replyStarts: number[];
  ackStarts: number[];
  firstSoundMs?: number;
  firstContentMs?: number;
}

export interface BandRow {
  band: string;
  pauses: number;
  /** Shares of `pauses` (0–1). */
  replyInside: number;
  ackInside: number;
  anyInside: number;
}

export interface LanguageFigures {
  language: string;
  turns: number;
  bands: BandRow[];
  /** The pauses of `byWordsFromMs` or more, by what their words read as ({@link PAUSE_WORDS}). */
  byWords: BandRow[];
  /** The shortest band's lower bound: shorter pauses are in no band, and not in `byWords`. */
  byWordsFromMs: number;
  /** At the turn's real end (its last voiced sample). */
  firstSoundP50Ms?: number;
  firstContentP50Ms?: number;
  unanswered: number;
}

/** The played turn's pauses and sounds, from what the spoken session recorded. */
export function playedTurn(turn: SpokenTurn, language: string, pausesMs: readonly number[], pauseWords: readonly PauseWords[] = []): PlayedTurn {
  const pieces = turn.utterance.pieces;
  const started = (list: SpokenTurn['segments']) => list.map((s) => s.startedAt).filter((t): t is number => t !== undefined);
  const acks = new Set(turn.ackSegments);
  return {
    language,
    pauses: pieces.slice(0, -1).map((piece, i) => ({ ms: pausesMs[i] ?? Number.NaN, from: piece.lastVoicedAt, until: pieces[i + 1]!.lastVoicedAt, words: pauseWords[i] ?? 'none' })),
    replyStarts: started(turn.segments.filter((s) => !acks.has(s))),
    ackStarts: started(turn.ackSegments),
    ...(turn.firstSoundMs === undefined ? {} : { firstSoundMs: turn.firstSoundMs }),
    ...(turn.firstContentMs === undefined ? {} : { firstContentMs: turn.firstContentMs }),
  };
}

const share = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 1000) / 1000);
const median = (values: number[]) => (values.length === 0 ? undefined : Math.round(percentile(values, 50) * 10) / 10);

export function bandFigures(turns: readonly PlayedTurn[], bands: readonly PauseBand[] = PAUSE_BANDS): LanguageFigures[] {
  const languages = [...new Set(turns.map((t) => t.language))].sort();
  return languages.map((language) => {
    const mine = turns.filter((t) => t.language === language);
    const judged = mine.flatMap((t) =>
      t.pauses.map((p) => {
        const inside = (starts: number[]) => starts.some((s) => s >= p.from && s < p.until);
        return { ms: p.ms, words: p.words, reply: inside(t.replyStarts), ack: inside(t.ackStarts) };
      }),
    );
    const row = (label: string, of: typeof judged): BandRow => {
      const count = (pick: (p: (typeof of)[number]) => boolean) => share(of.filter(pick).length, of.length);
      return { band: label, pauses: of.length, replyInside: count((p) => p.reply), ackInside: count((p) => p.ack), anyInside: count((p) => p.reply || p.ack) };
    };
    const byWordsFromMs = bands[0]?.fromMs ?? 0;
    const counted = judged.filter((p) => p.ms >= byWordsFromMs);
    return {
      language,
      turns: mine.length,
      bands: bands.map((band) => row(band.label, judged.filter((p) => p.ms >= band.fromMs && p.ms < band.toMs))),
      byWords: PAUSE_WORDS.map(({ words, label }) => row(label, counted.filter((p) => p.words === words))),
      byWordsFromMs,
      firstSoundP50Ms: median(mine.map((t) => t.firstSoundMs).filter((v): v is number => v !== undefined)),
      firstContentP50Ms: median(mine.map((t) => t.firstContentMs).filter((v): v is number => v !== undefined)),
      unanswered: mine.filter((t) => t.firstContentMs === undefined).length,
    };
  });
}

/**
 * Markdown: one row per setting, language and band (`by: 'words'`: per what the words before the
 * pause read as), the turn's-end figures on each language's first row.
 */
export function bandTable(rows: ReadonlyArray<{ setting: string; stt: string; figures: LanguageFigures[] }>, by: 'band' | 'words' = 'band'): string {
  const pct = (v: number) => `${(v * 100).toFixed(0)} %`;
  const ms = (v?: number) => (v === undefined ? '–' : `${Math.round(v)} ms`);
  const fromMs = Math.min(...rows.flatMap((r) => r.figures.map((f) => f.byWordsFromMs)));
  const header = ['setting', 'STT', 'lang', by === 'band' ? 'pause band' : `pauses ≥ ${fromMs} ms`, 'pauses', 'reply inside', 'ack inside', 'any sound inside', 'first sound p50', 'first content p50', 'unanswered'];
  const lines = rows.flatMap((r) =>
    r.figures.flatMap((f) =>
      (by === 'band' ? f.bands : f.byWords).map((b, i) => [
        r.setting,
        r.stt,
        f.language,
        b.band,
        String(b.pauses),
        b.pauses === 0 ? '–' : pct(b.replyInside),
        b.pauses === 0 ? '–' : pct(b.ackInside),
        b.pauses === 0 ? '–' : pct(b.anyInside),
        i === 0 ? ms(f.firstSoundP50Ms) : '',
        i === 0 ? ms(f.firstContentP50Ms) : '',
        i === 0 ? `${f.unanswered} of ${f.turns}` : '',
      ]),
    ),
  );
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [row(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(row)].join('\n');
}
