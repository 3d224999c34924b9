/**
 * Recorded human turns for bench:turn: a directory of recordings, one turn each, read into the
 * utterances the spoken session plays (src/spoken). Nothing here is committed but this reader: the
 * recordings' licences forbid it.
 *
 * A directory holds `NAME.wav` (16-bit PCM, mono) or `NAME.flac`, at 8–48 kHz, resampled to the
 * session's 16 kHz by the project's one resampler (`resampleClip`). Beside each, optionally:
 * - `NAME.txt`: the words said (what the STT fake returns, see {@link pieceTexts});
 * - `NAME.words.json`: the words with their times (./timed-words.ts), which win over `NAME.txt`;
 * - `NAME.pauses.json`: the pauses, `[[startMs, endMs], ...]` from the file's start;
 * - `NAME.scv`: the TEN-VAD test set's labels, `NAME,start,end,label,...` in seconds, label 1 for
 *   speech and 0 for none; the pauses are its no-speech stretches between speech.
 *
 * The pause rule, when no label is given: 20 ms frames; a frame is voiced when its energy is at
 * least 12 dB over the file's noise floor (the 5th percentile of frame energies) and over -60 dBFS;
 * a pause is a run of unvoiced frames of at least 250 ms between the first and the last voiced
 * frame. Whichever way pauses are found, one shorter than 250 ms is taken as part of the speech
 * (people's stop consonants and breaths are that long). The last voiced sample is the turn's end:
 * every pause before it is one the speaker went on after.
 */
import { audioFramesFromFile } from '@livekit/agents';
import { AudioFrame, AudioResamplerQuality, combineAudioFrames } from '@livekit/rtc-node';
import { resampleClip } from '@firstword/agents-plugin-tts/pcm';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { decodeWav } from '../../src/local-voice/wav.js';
import type { RenderedUtterance, SpokenLanguage } from '../../src/spoken/utterance.js';
import { type TimedWord, readTimedWords, wordsByStretch } from './timed-words.js';

export const SESSION_RATE = 16_000;
export const MIN_PAUSE_MS = 250;
export const FRAME_MS = 20;
/** Over the file's noise floor, a frame is voice. */
export const VOICED_OVER_FLOOR_DB = 12;
/** Below this a frame is never voice, however quiet the room. */
export const VOICED_MIN_DBFS = -60;
/** Recording kept before the first voiced sample and after the last (the rest is cut). */
export const LEAD_MS = 300;
export const TAIL_MS = 200;
/** What the STT fake returns for a turn without a transcript (see {@link pieceTexts}). */
export const NO_TRANSCRIPT = '…';

const RATES = { min: 8_000, max: 48_000 };

/** A stretch of a turn, as sample indexes at {@link SESSION_RATE} (inclusive). */
export interface Stretch {
  first: number;
  last: number;
}

export interface HumanTurn {
  id: string;
  file: string;
  language: SpokenLanguage;
  /** At {@link SESSION_RATE}, from {@link LEAD_MS} before the first voiced sample to {@link TAIL_MS} after the last. */
  samples: Int16Array;
  /** Voiced stretches between pauses; the last one's `last` is the turn's end. */
  stretches: Stretch[];
  /** Each pause's length (ms): between stretch i and i + 1. */
  pausesMs: number[];
  pausesFrom: 'labels' | 'rule';
  transcript?: string;
  /** The transcript's words with their times, when the recording has them. */
  words?: TimedWord[];
}

export class HumanTurnError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'HumanTurnError';
  }
}

/** Every recording of `dir` (sorted by name), as turns of `language`. */
export async function loadHumanTurns(dir: string, language: SpokenLanguage): Promise<HumanTurn[]> {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new HumanTurnError(dir, 'no such directory');
  const files = readdirSync(dir)
    .filter((f) => /\.(wav|flac)$/i.test(f))
    .sort();
  if (files.length === 0) throw new HumanTurnError(dir, 'holds no .wav or .flac recording');
  const turns: HumanTurn[] = [];
  for (const file of files) turns.push(await loadHumanTurn(path.join(dir, file), language));
  return turns;
}

export async function loadHumanTurn(file: string, language: SpokenLanguage): Promise<HumanTurn> {
  const audio = await readAudio(file);
  const base = file.replace(/\.(wav|flac)$/i, '');
  const labelled = readPauseLabels(base);
  const found = labelled?.pauses ?? findPauses(audio);
  const voice = labelled?.speech ?? voicedExtent(audio, base);
  const durationMs = (audio.length * 1000) / SESSION_RATE;
  if (voice.endMs > durationMs + FRAME_MS) throw new HumanTurnError(base, `labels run past the recording's end (${Math.round(durationMs)} ms)`);
  // Pauses are in the file's time; stretches lie between them, inside the voiced extent.
  const pauses = found.filter((p) => p.endMs - p.startMs >= MIN_PAUSE_MS && p.startMs > voice.startMs && p.endMs < voice.endMs);
  const cutFrom = Math.max(0, Math.round(((voice.startMs - LEAD_MS) * SESSION_RATE) / 1000));
  const cutTo = Math.min(audio.length, Math.round(((voice.endMs + TAIL_MS) * SESSION_RATE) / 1000));
  const at = (ms: number) => Math.round((ms * SESSION_RATE) / 1000) - cutFrom;
  const edges = [voice.startMs, ...pauses.flatMap((p) => [p.startMs, p.endMs]), voice.endMs];
  const stretches: Stretch[] = [];
  for (let i = 0; i < edges.length; i += 2) stretches.push({ first: at(edges[i]!), last: at(edges[i + 1]!) - 1 });
  const timed = readTimedWords(base);
  const words = timed?.map((w) => ({ text: w.text, first: at(w.startMs), last: at(w.endMs) - 1 }));
  const transcriptFile = `${base}.txt`;
  const transcript = words
    ? words.map((w) => w.text).join(' ')
    : existsSync(transcriptFile)
      ? readFileSync(transcriptFile, 'utf8').replace(/\s+/g, ' ').trim()
      : undefined;
  return {
    id: path.basename(base),
    file,
    language,
    samples: audio.slice(cutFrom, cutTo),
    stretches,
    pausesMs: pauses.map((p) => Math.round(p.endMs - p.startMs)),
    pausesFrom: labelled ? 'labels' : 'rule',
    ...(transcript ? { transcript } : {}),
    ...(words ? { words } : {}),
  };
}

/** The recording's samples at {@link SESSION_RATE}, mono. */
async function readAudio(file: string): Promise<Int16Array> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new HumanTurnError(file, `cannot be read (${(error as Error).message})`);
  }
  const { rate, samples } = /\.flac$/i.test(file) ? await readFlac(file, bytes) : readWav(file, bytes);
  if (rate < RATES.min || rate > RATES.max) throw new HumanTurnError(file, `sample rate ${rate} Hz is outside ${RATES.min}–${RATES.max} Hz`);
  if (samples.length === 0) throw new HumanTurnError(file, 'holds no audio');
  if (rate === SESSION_RATE) return samples;
  return combineAudioFrames(resampleClip([new AudioFrame(samples, rate, 1, samples.length)], SESSION_RATE, AudioResamplerQuality.HIGH)).data;
}

function readWav(file: string, bytes: Buffer): { rate: number; samples: Int16Array } {
  try {
    const { sampleRate, samples } = decodeWav(bytes);
    return { rate: sampleRate, samples };
  } catch (error) {
    throw new HumanTurnError(file, `${(error as Error).message} (convert it: ffmpeg -i IN -ac 1 -c:a pcm_s16le OUT.wav)`);
  }
}

/** FLAC: its rate from STREAMINFO, decoded to mono at that rate by the framework's decoder. */
async function readFlac(file: string, bytes: Buffer): Promise<{ rate: number; samples: Int16Array }> {
  if (bytes.length < 42 || bytes.toString('ascii', 0, 4) !== 'fLaC') throw new HumanTurnError(file, 'not a FLAC file');
  // STREAMINFO follows the 4-byte block header; the rate is its first 20 bits after 10 bytes.
  const rate = (bytes.readUInt32BE(18) >>> 12) & 0xfffff;
  if (rate < RATES.min || rate > RATES.max) throw new HumanTurnError(file, `sample rate ${rate} Hz is outside ${RATES.min}–${RATES.max} Hz`);
  const parts: Int16Array[] = [];
  try {
    for await (const frame of audioFramesFromFile(file, { sampleRate: rate, numChannels: 1 })) parts.push(frame.data.slice(0, frame.samplesPerChannel));
  } catch (error) {
    throw new HumanTurnError(file, `cannot be decoded (${(error as Error).message})`);
  }
  const samples = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    samples.set(p, offset);
    offset += p.length;
  }
  return { rate, samples };
}

export interface Span {
  startMs: number;
  endMs: number;
}

export interface PauseLabels {
  pauses: Span[];
  /** First to last labelled speech, when the labels say (TEN-VAD's do); else the rule finds it. */
  speech?: Span;
}

/** `NAME.pauses.json` or `NAME.scv` beside the recording; undefined when neither is there. */
export function readPauseLabels(base: string): PauseLabels | undefined {
  const json = `${base}.pauses.json`;
  const scv = `${base}.scv`;
  if (existsSync(json)) return { pauses: parsePauseJson(json, readFileSync(json, 'utf8')) };
  if (existsSync(scv)) return parseScv(scv, readFileSync(scv, 'utf8'));
  return undefined;
}

export function parsePauseJson(file: string, text: string): Span[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HumanTurnError(file, `is not JSON (${(error as Error).message})`);
  }
  const ok = Array.isArray(value) && value.every((p) => Array.isArray(p) && p.length === 2 && p.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0) && p[0] < p[1]);
  if (!ok) throw new HumanTurnError(file, 'must be [[startMs, endMs], ...] with 0 ≤ start < end');
  return sortedDisjoint(file, (value as [number, number][]).map(([startMs, endMs]) => ({ startMs, endMs })));
}

/** TEN-VAD labels: `NAME,start,end,label,start,end,label,...` (seconds; 1 speech, 0 none). */
export function parseScv(file: string, text: string): Required<PauseLabels> {
  const fields = text.trim().split(',');
  const values = fields.slice(1).map(Number);
  if (fields.length < 4 || values.length % 3 !== 0 || values.some((v) => !Number.isFinite(v))) {
    throw new HumanTurnError(file, 'must be NAME followed by start,end,label triples (seconds; label 0 or 1)');
  }
  const spans: Array<Span & { speech: boolean }> = [];
  for (let i = 0; i < values.length; i += 3) {
    const [start, end, label] = [values[i]!, values[i + 1]!, values[i + 2]!];
    if (label !== 0 && label !== 1) throw new HumanTurnError(file, `label ${label} is neither 0 nor 1`);
    spans.push({ startMs: start * 1000, endMs: end * 1000, speech: label === 1 });
  }
  const speech = spans.filter((s) => s.speech);
  if (speech.length === 0) throw new HumanTurnError(file, 'labels no speech');
  const [from, to] = [speech[0]!.startMs, speech.at(-1)!.endMs];
  const pauses = spans.filter((s) => !s.speech && s.startMs >= from && s.endMs <= to).map(({ startMs, endMs }) => ({ startMs, endMs }));
  return { pauses: sortedDisjoint(file, pauses), speech: { startMs: from, endMs: to } };
}

/** Sorted; pauses that touch are one pause (no speech between them); overlapping ones are refused. */
function sortedDisjoint(file: string, spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.startMs - b.startMs);
  const merged: Span[] = [];
  for (const span of sorted) {
    const previous = merged.at(-1);
    if (previous && span.startMs < previous.endMs) throw new HumanTurnError(file, `pauses overlap at ${span.startMs} ms`);
    if (previous && span.startMs === previous.endMs) previous.endMs = span.endMs;
    else merged.push({ ...span });
  }
  return merged;
}

/** Frame energies (dBFS) of 20 ms frames. */
function frameLevels(samples: Int16Array): number[] {
  const size = (SESSION_RATE * FRAME_MS) / 1000;
  const levels: number[] = [];
  for (let start = 0; start + size <= samples.length; start += size) {
    let sum = 0;
    for (let i = start; i < start + size; i++) sum += (samples[i]! / 32768) ** 2;
    levels.push(10 * Math.log10(sum / size + 1e-12));
  }
  return levels;
}

function voicedFrames(samples: Int16Array): boolean[] {
  const levels = frameLevels(samples);
  const sorted = [...levels].sort((a, b) => a - b);
  const floor = sorted[Math.floor(sorted.length * 0.05)] ?? -120;
  const threshold = Math.max(floor + VOICED_OVER_FLOOR_DB, VOICED_MIN_DBFS);
  return levels.map((l) => l >= threshold);
}

/** The pause rule (module doc): runs of at least 250 ms without voice between voiced frames. */
export function findPauses(samples: Int16Array): Span[] {
  const voiced = voicedFrames(samples);
  const pauses: Span[] = [];
  let lastVoiced = -1;
  for (let i = 0; i < voiced.length; i++) {
    if (!voiced[i]) continue;
    if (lastVoiced >= 0 && (i - lastVoiced - 1) * FRAME_MS >= MIN_PAUSE_MS) pauses.push({ startMs: (lastVoiced + 1) * FRAME_MS, endMs: i * FRAME_MS });
    lastVoiced = i;
  }
  return pauses;
}

/** First to last voiced frame by the rule. */
function voicedExtent(samples: Int16Array, base: string): Span {
  const voiced = voicedFrames(samples);
  const first = voiced.indexOf(true);
  const last = voiced.lastIndexOf(true);
  if (first < 0) throw new HumanTurnError(base, 'no voiced frame found (silent recording?)');
  const durationMs = (samples.length * 1000) / SESSION_RATE;
  const startMs = first * FRAME_MS;
  const endMs = Math.min(durationMs, (last + 1) * FRAME_MS);
  return { startMs, endMs };
}

/**
 * The words the STT fake returns for each stretch. With timed words, those said in it
 * (./timed-words.ts). With a transcript only, its words are shared out in
 * proportion to each stretch's voiced length (the recordings carry no word timings), each cut then
 * moved to the nearest clause or sentence end (a word ending in `,` `.` `?` `!` or their CJK
 * forms) within {@link SNAP_WORDS} words: a reader pauses at punctuation, and a cut one word off
 * it would hand the transcript detector "…저기요. 삼계탕만" for a pause that came after "저기요.".
 * A stretch left without a word gets {@link NO_TRANSCRIPT}. Without a transcript every stretch is
 * {@link NO_TRANSCRIPT}: no words, so the transcript detector reads it as neutral (0.5, exactly
 * its threshold) — it neither holds the turn open nor closes it, and the audio signals (Silero,
 * the endpointing delays) decide alone. A filler ("um") would read as unfinished and make every
 * pause look safe; a word would read as finished.
 */
export function pieceTexts(turn: Pick<HumanTurn, 'stretches' | 'transcript' | 'words'>): string[] {
  if (turn.words) return wordsByStretch(turn.words, turn.stretches).map((words) => words.join(' ') || NO_TRANSCRIPT);
  if (!turn.transcript) return turn.stretches.map(() => NO_TRANSCRIPT);
  const words = turn.transcript.split(' ').filter(Boolean);
  const lengths = turn.stretches.map((s) => s.last - s.first + 1);
  const total = lengths.reduce((a, b) => a + b, 0);
  const clauseEnds = words.flatMap((word, i) => (CLAUSE_END.test(word) ? [i + 1] : []));
  let taken = 0;
  let voiced = 0;
  return lengths.map((length, i) => {
    voiced += length;
    const upTo = i === lengths.length - 1 ? words.length : snapToClauseEnd(Math.round((words.length * voiced) / total), taken, clauseEnds);
    const text = words.slice(taken, Math.max(taken, upTo)).join(' ');
    taken = Math.max(taken, upTo);
    return text || NO_TRANSCRIPT;
  });
}

/** How far (in words) a proportional cut may move to a clause end. */
export const SNAP_WORDS = 2;
const CLAUSE_END = /[,.?!…，。？！、]$/u;

/** The clause end nearest `cut` (earlier on a tie), if one lies within {@link SNAP_WORDS} and after `taken`. */
function snapToClauseEnd(cut: number, taken: number, clauseEnds: readonly number[]): number {
  let best = cut;
  let distance = SNAP_WORDS + 1;
  for (const end of clauseEnds) {
    if (end <= taken) continue;
    const d = Math.abs(end - cut);
    if (d < distance) [best, distance] = [end, d];
  }
  return best;
}

/** The turn as an utterance the spoken session plays. */
export function humanUtterance(turn: HumanTurn): RenderedUtterance {
  const texts = pieceTexts(turn);
  return {
    language: turn.language,
    sampleRate: SESSION_RATE,
    samples: turn.samples,
    pieces: turn.stretches.map((s, i) => ({ text: texts[i]!, firstVoiced: s.first, lastVoiced: s.last })),
  };
}
