/**
 * bench:turn's `--human` run: which recorded turns are played (bench/turn/human-turns.ts reads
 * them) and what is reported of them per language and pause band (bench/turn/pause-bands.ts).
 */
import type { RenderedUtterance, SpokenLanguage } from '../../src/spoken/utterance.js';
import { predictTurnComplete, turnUnlikelyThreshold } from '../../src/turn/transcript-detector.js';
import { type HumanTurn, MIN_PAUSE_MS, NO_TRANSCRIPT, humanUtterance, loadHumanTurns, pieceTexts } from './human-turns.js';
import { type LanguageFigures, type PauseWords, type PlayedTurn, bandFigures, bandTable } from './pause-bands.js';

export const DEFAULT_HUMAN_LIMIT = 20;

export interface HumanSourceSummary {
  dir: string;
  language: SpokenLanguage;
  recordings: number;
  /** Recordings with at least one pause of {@link MIN_PAUSE_MS} or more. */
  withPauses: number;
  played: number;
  withTranscript: number;
  pausesFrom: { labels: number; rule: number };
}

export interface HumanRun {
  sources: HumanSourceSummary[];
  turns: HumanTurn[];
  utterances: RenderedUtterance[];
}

const LANGUAGES: readonly SpokenLanguage[] = ['ko', 'en'];

/** `--human DIR[,DIR]`, `--language L` (one for all) or `L,L` (one per directory), `--limit N` per directory. */
export function parseHumanArgs(dirs: string, languages: string | undefined, limit: string | undefined): Array<{ dir: string; language: SpokenLanguage; limit: number }> {
  const list = dirs.split(',').filter(Boolean);
  if (list.length === 0) throw new Error('--human needs at least one directory');
  if (!languages) throw new Error(`--human needs --language (${LANGUAGES.join(' or ')}, one for all directories or one per directory)`);
  const langs = languages.split(',');
  if (langs.length !== 1 && langs.length !== list.length) throw new Error(`--language gives ${langs.length} languages for ${list.length} directories`);
  for (const l of langs) if (!LANGUAGES.includes(l as SpokenLanguage)) throw new Error(`--language: "${l}" is not ${LANGUAGES.join(' or ')}`);
  const perDir = limit === undefined ? DEFAULT_HUMAN_LIMIT : Number(limit);
  if (!Number.isInteger(perDir) || perDir < 1) throw new Error(`--limit must be a whole number of turns, not "${limit}"`);
  return list.map((dir, i) => ({ dir, language: (langs[i] ?? langs[0]) as SpokenLanguage, limit: perDir }));
}

export async function loadHumanRun(dirs: string, languages: string | undefined, limit: string | undefined): Promise<HumanRun> {
  const run: HumanRun = { sources: [], turns: [], utterances: [] };
  for (const { dir, language, limit: perDir } of parseHumanArgs(dirs, languages, limit)) {
    const all = await loadHumanTurns(dir, language);
    const withPauses = all.filter((t) => t.pausesMs.length > 0);
    const played = withPauses.slice(0, perDir);
    run.sources.push({
      dir,
      language,
      recordings: all.length,
      withPauses: withPauses.length,
      played: played.length,
      withTranscript: played.filter((t) => t.transcript !== undefined).length,
      pausesFrom: { labels: played.filter((t) => t.pausesFrom === 'labels').length, rule: played.filter((t) => t.pausesFrom === 'rule').length },
    });
    run.turns.push(...played);
    run.utterances.push(...played.map(humanUtterance));
  }
  return run;
}

/**
 * What the transcript rules (the worker's, src/turn/transcript-detector.ts) say of the words heard
 * up to each pause, as the STT fake hands them over: below the detector's threshold the words
 * can hold the turn open; at or above it only the voice can. No words before a pause: 'none'.
 */
export function pauseWords(turn: HumanTurn): PauseWords[] {
  const pieces = pieceTexts(turn);
  const heard: string[] = [];
  return turn.pausesMs.map((_, i) => {
    if (pieces[i] !== NO_TRANSCRIPT) heard.push(pieces[i]!);
    if (heard.length === 0) return 'none';
    return predictTurnComplete(heard.join(' '), turn.language) < turnUnlikelyThreshold(turn.language) ? 'unfinished' : 'finished';
  });
}

export interface HumanBandRun {
  setting: string;
  stt: string;
  played: PlayedTurn[];
}

export interface HumanReport {
  sources: HumanSourceSummary[];
  turns: Array<{ id: string; language: SpokenLanguage; pausesMs: number[]; pausesFrom: string }>;
  runs: Array<{ setting: string; stt: string; figures: LanguageFigures[] }>;
}

export function humanReport(run: HumanRun, runs: readonly HumanBandRun[]): HumanReport {
  return {
    sources: run.sources,
    turns: run.turns.map((t) => ({ id: t.id, language: t.language, pausesMs: t.pausesMs, pausesFrom: t.pausesFrom })),
    runs: runs.map((r) => ({ setting: r.setting, stt: r.stt, figures: bandFigures(r.played) })),
  };
}

export function printHumanReport(report: HumanReport): void {
  console.log('\nRecorded human turns:');
  for (const s of report.sources) {
    console.log(
      `  ${s.language} ${s.dir}: ${s.played} played of ${s.withPauses} with a pause ≥ ${MIN_PAUSE_MS} ms (${s.recordings} recordings); ` +
        `pauses from labels ${s.pausesFrom.labels}, from the energy rule ${s.pausesFrom.rule}; transcripts ${s.withTranscript}`,
    );
  }
  console.log(bandTable(report.runs));
  console.log('\nThe same pauses by what the words heard before them read as:');
  console.log(bandTable(report.runs, 'words'));
}
