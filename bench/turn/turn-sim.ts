/**
 * When the framework commits a turn, replayed analytically on the VAD's real decisions, for one
 * setting of Silero's minSilenceDuration × endpointing minDelay/maxDelay × turn detector.
 *
 * The rule is audio_recognition.ts's: end-of-turn detection runs at the VAD's end of speech
 * (when the turn has a transcript) and at every STT final that arrives while the caller is not
 * speaking; each run replaces the last; it waits `delay + lastSpeakingTime − now` (delay =
 * maxDelay when the detector judges the turn unlikely over, minDelay otherwise, minDelay when it
 * has no answer) and commits unless the VAD hears speech start first. lastSpeakingTime is the
 * VAD's end of speech (now − its silence), moved on by any later window with raw speech.
 *
 * The early acknowledgement is modelled as the lead's design has it: at those same moments, the
 * first time the transcript detector judges the caller's words so far over. It is judged on all
 * the words since the utterance began, whatever the commits did, so that its false ends are its
 * own and not the echo of an earlier false commit.
 */
import type { AckLanguage } from '../../src/ack/phrases.js';
import type { CorpusKind } from './corpus-types.js';
import type { AudioRequest } from './audio-eot.js';
import type { VadTimeline } from './vad-trace.js';

export type DetectorChoice = 'none' | 'transcript' | 'audio' | 'both';

export interface TurnSetting {
  minSilenceMs: number;
  minDelayMs: number;
  maxDelayMs: number;
  detector: DetectorChoice;
}

export interface LabPiece {
  text: string;
  firstVoicedMs: number;
  lastVoicedMs: number;
  pauseAfterMs?: number;
  completeSoFar?: true;
}

export interface LabUtterance {
  id: string;
  language: AckLanguage;
  kind: CorpusKind;
  pieces: LabPiece[];
}

export interface Judges {
  /** The transcript detector's verdict on the caller's words so far. */
  transcriptOver(text: string, language: AckLanguage): boolean;
  audioThreshold(language: AckLanguage): number;
  /** The scripted STT's final for a piece: this long after its last voiced sample. */
  sttFinalAfterMs: number;
}

export interface PauseResult {
  afterPiece: number;
  pauseMs: number;
  completeSoFar: boolean;
  /** The VAD ended speech in this pause (the only way a commit can happen there). */
  vadEnded: boolean;
  falseEnd: boolean;
  falseAck: boolean;
}

export interface UtteranceResult {
  id: string;
  language: AckLanguage;
  kind: CorpusKind;
  pauses: PauseResult[];
  /** VAD end of speech after the last piece, ms after its last voiced sample. */
  vadEndMs: number;
  /** Turn committed, ms after the last voiced sample (NaN if it never was). */
  commitMs: number;
  /** Whether that commit waited minDelay (the turn was judged over). */
  commitOver: boolean;
  /** Early acknowledgement, ms after the last voiced sample; the commit when it never fired early. */
  ackMs: number;
  ackEarly: boolean;
  /** Commits in the middle of a piece: the local voice's own pauses inside a sentence. */
  inPieceCommits: number;
}

type Context = { piece: number; inside: boolean };
type Event =
  | { t: number; order: 0; kind: 'window'; window: number; speechBefore: boolean }
  | { t: number; order: 1; kind: 'start' }
  | { t: number; order: 1; kind: 'end'; speechEndMs: number; context: Context }
  | { t: number; order: 2; kind: 'final'; piece: number };

/** The events of one utterance on one VAD timeline: independent of delays and detector. */
export function turnEvents(u: LabUtterance, timeline: VadTimeline, judges: Judges): Event[] {
  const events: Event[] = [];
  for (const [window, w] of timeline.windows.entries()) events.push({ t: w.atMs, order: 0, kind: 'window', window, speechBefore: w.speechBeforeMs > 0 });
  for (const d of timeline.decisions) {
    if (d.type === 'start') events.push({ t: d.atMs, order: 1, kind: 'start' });
    else events.push({ t: d.atMs, order: 1, kind: 'end', speechEndMs: d.speechEndMs, context: contextOf(u, d.speechEndMs, d.atMs) });
  }
  u.pieces.forEach((p, piece) => events.push({ t: p.lastVoicedMs + judges.sttFinalAfterMs, order: 2, kind: 'final', piece }));
  return events.sort((a, b) => a.t - b.t || a.order - b.order);
}

/** Which piece an end of speech follows, and whether that piece's voice goes on after it. */
function contextOf(u: LabUtterance, speechEndMs: number, atMs: number): Context {
  let piece = 0;
  u.pieces.forEach((p, i) => {
    if (p.firstVoicedMs <= speechEndMs) piece = i;
  });
  return { piece, inside: atMs < u.pieces[piece]!.lastVoicedMs };
}

export function simulateTurn(
  u: LabUtterance,
  events: readonly Event[],
  requests: ReadonlyMap<number, AudioRequest>,
  setting: TurnSetting,
  judges: Judges,
): UtteranceResult {
  const last = u.pieces.length - 1;
  const useText = setting.detector === 'transcript' || setting.detector === 'both';
  const useAudio = setting.detector === 'audio' || setting.detector === 'both';
  const pauses: PauseResult[] = u.pieces.slice(0, -1).map((p, i) => ({
    afterPiece: i,
    pauseMs: p.pauseAfterMs ?? 0,
    completeSoFar: p.completeSoFar === true,
    vadEnded: false,
    falseEnd: false,
    falseAck: false,
  }));
  const lastVoiced = u.pieces[last]!.lastVoicedMs;
  const result: UtteranceResult = { id: u.id, language: u.language, kind: u.kind, pauses, vadEndMs: Number.NaN, commitMs: Number.NaN, commitOver: false, ackMs: Number.NaN, ackEarly: false, inPieceCommits: 0 };

  let turn: number[] = [];
  let speaking = false;
  let lastSpeaking: number | undefined;
  let context: Context | undefined;
  let held: AudioRequest | undefined;
  let pending: { at: number; context: Context; over: boolean } | undefined;
  let heard = 0;
  let acked = false;

  const commit = () => {
    const done = pending!;
    pending = undefined;
    if (done.context.inside) result.inPieceCommits++;
    else if (done.context.piece < last) pauses[done.context.piece]!.falseEnd = true;
    else if (Number.isNaN(result.commitMs)) {
      result.commitMs = done.at - lastVoiced;
      result.commitOver = done.over;
    }
    turn = [];
  };

  const run = (now: number) => {
    if (!context) return;
    const text = turn.map((i) => u.pieces[i]!.text).join(' ');
    const textOver = judges.transcriptOver(text, u.language);
    const audioOver = held === undefined || held.probability >= judges.audioThreshold(u.language);
    const over = (!useText || textOver) && (!useAudio || audioOver);
    const delay = over ? setting.minDelayMs : setting.maxDelayMs;
    const answered = useAudio && held ? held.readyAtMs : now;
    pending = { at: Math.max(now, answered, (lastSpeaking ?? now) + delay), context, over };
    const words = u.pieces.slice(0, heard).map((p) => p.text).join(' ');
    if (!acked && heard > 0 && judges.transcriptOver(words, u.language)) {
      acked = true;
      if (context.inside) return;
      if (context.piece < last) pauses[context.piece]!.falseAck = true;
      else if (Number.isNaN(result.ackMs)) {
        result.ackMs = now - lastVoiced;
        result.ackEarly = true;
      }
    }
  };

  for (const ev of events) {
    if (pending && pending.at <= ev.t) commit();
    switch (ev.kind) {
      case 'window': {
        if (ev.speechBefore) {
          lastSpeaking = ev.t;
          if (speaking) held = undefined;
        }
        const request = requests.get(ev.window);
        if (request && speaking && held === undefined) held = request;
        break;
      }
      case 'start':
        speaking = true;
        held = undefined;
        pending = undefined;
        break;
      case 'end':
        speaking = false;
        lastSpeaking = ev.speechEndMs;
        context = ev.context;
        if (!ev.context.inside && ev.context.piece < last) pauses[ev.context.piece]!.vadEnded = true;
        if (!ev.context.inside && ev.context.piece === last && Number.isNaN(result.vadEndMs)) result.vadEndMs = ev.t - lastVoiced;
        if (turn.length > 0) run(ev.t);
        break;
      case 'final':
        turn.push(ev.piece);
        heard = ev.piece + 1;
        if (!speaking) run(ev.t);
        break;
    }
  }
  if (pending) commit();
  if (!result.ackEarly) result.ackMs = result.commitMs;
  return result;
}
