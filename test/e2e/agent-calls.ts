/**
 * The test side of calls to the production agent: speech for the caller (eSpeak, as WAV files
 * the `agent-call` client publishes), what that client reports, and how its recording of the
 * agent's track is read — loudness, and, with the Cartesia fake's audible voice, which text each
 * stretch of tone came from (the fake hands each piece it voices the next of its tones and logs
 * which; test/servers/audio-tag.ts AUDIBLE_TONES_HZ).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { RUN_DIR } from '../../scripts/stack/layout.js';
import { BARGE_IN_MESSAGES } from '../../src/audio/barge-in-output.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import type { VoiceLanguage } from '../../src/local-voice/worker-messages.js';
import { encodeWav } from '../../src/local-voice/wav.js';
import type { FinishedContext, VoicedPiece } from '../servers/cartesia/options.js';
import { durationMs, speak } from '../servers/openai/test-audio.js';
import type { ClientResult, E2EStack } from './stack.js';
import { TELEPHONE_RATE, telephoneBand } from '../helpers/g711.js';

/** RMS (of 32767) over which a 20 ms frame of the agent's track counts as sound. */
export const LOUD_RMS = 300;
/** The Cartesia fake's audio per code point (its default, passed explicitly to the stack). */
export const MS_PER_CHAR = 60;
export const FRAME_MS = 20;

/** Room names the production token accepts (src/web/token.ts), unique per call. */
export function freshRoom(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

export const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

export interface Speech {
  text: string;
  file: string;
  durationMs: number;
}

/**
 * eSpeak speaks each text once; the WAVs go to a folder of the run dir (git-ignored `.lk/`).
 * `telephone` texts are what a PCMU phone call carries: 8 kHz, µ-law coded and decoded.
 */
export async function synthesizeSpeech(texts: { text: string; language: VoiceLanguage; telephone?: boolean }[]): Promise<Map<string, Speech>> {
  const dir = join(RUN_DIR, 'e2e-speech');
  mkdirSync(dir, { recursive: true });
  const synthesizer = await EspeakSynthesizer.start();
  const out = new Map<string, Speech>();
  try {
    for (const [i, { text, language, telephone }] of texts.entries()) {
      const spoken = await speak(synthesizer, text, language);
      const speech = telephone ? { samples: telephoneBand(spoken.samples, spoken.sampleRate), sampleRate: TELEPHONE_RATE } : spoken;
      const file = join(dir, `${process.pid}-${i}-${language}${telephone ? '-pcmu' : ''}.wav`);
      writeFileSync(file, encodeWav(speech.samples, speech.sampleRate));
      out.set(text, { text, file, durationMs: durationMs(speech) });
    }
  } finally {
    await synthesizer.close();
  }
  return out;
}

// ---- what agent-call reports ------------------------------------------------------------

/** [ms since t0 when it arrived, RMS, Hz (0 when quiet)] of one 20 ms frame of the agent's track. */
export type Frame = [number, number, number];

export interface Transcript {
  speaker: 'agent' | 'user' | 'other';
  identity: string;
  segment?: string;
  final?: string;
  startMs: number;
  endMs?: number;
  text: string;
}

export interface Utterance {
  file: string;
  startMs?: number;
  endMs?: number;
  voicedStartMs?: number;
  voicedEndMs?: number;
  durationMs: number;
}

export interface CartesiaMessage {
  connectionId: number;
  receivedAt: number;
  message: { context_id?: string; transcript?: string; continue?: boolean; cancel?: boolean };
}

export interface CallResult extends ClientResult {
  t0Epoch: number;
  agent?: { identity: string; attributes: Record<string, string> };
  states: [number, string][];
  transcripts: Transcript[];
  speech: Utterance[];
  frames: Frame[];
  cartesia?: { before?: Record<string, number>; after?: Record<string, number>; messages?: CartesiaMessage[]; voiced?: VoicedPiece[]; finished?: FinishedContext[] };
  cartesiaAtBargeIn?: Record<string, number>;
  openai?: { before?: OpenAIStats; after?: OpenAIStats };
  readyMs?: number;
  chatMs?: number;
  bargeInMs?: number;
  /** When the worker was told to stop (`--sigterm` / `--stop-command`). */
  stopMs?: number;
  repliesDoneMs?: number;
  leftEpoch?: number;
}

export interface OpenAIStats {
  chatRequests: number;
  utterances: { source: string; durationMs: number; rms: number; transcript: string }[];
}

/** Every call's full record goes next to the stack's logs (`<runDir>/call-<room>.json`), for post-mortems. */
export function keepRecord(stack: E2EStack, result: CallResult): void {
  writeFileSync(join(stack.state.runDir, `call-${String(result.room ?? Date.now())}.json`), `${JSON.stringify(result)}\n`);
}

/** A failed call explains itself: the client's error plus what it saw up to then. */
export function expectCallOk(result: CallResult): void {
  if (result.ok) return;
  const seen = {
    error: result.error,
    states: result.states,
    transcripts: result.transcripts?.map((t) => `${t.speaker}: ${t.text}`),
    speech: result.speech,
    loudFrames: result.frames?.filter(loud).length,
  };
  throw new Error(`agent-call failed: ${JSON.stringify(seen, null, 2)}`);
}

/** Everything the agent said on `lk.transcription` (its own streams), in order. */
export const agentTexts = (result: CallResult): string[] => result.transcripts.filter((t) => t.speaker === 'agent').map((t) => squash(t.text));

/** The user's final transcripts, as the agent published them for the caller. */
export const userFinals = (result: CallResult): string[] =>
  result.transcripts.filter((t) => t.speaker === 'user' && t.final === 'true').map((t) => squash(t.text));

// ---- loudness ------------------------------------------------------------------------------

export const loud = (frame: Frame): boolean => frame[1] > LOUD_RMS;

export interface Span {
  firstMs: number;
  lastMs: number;
  /** From the first loud frame's start to the last one's end. */
  spanMs: number;
  /** Loud frames × 20 ms. */
  loudMs: number;
  maxRms: number;
}

export function loudSpan(frames: Frame[], fromMs = -Infinity, toMs = Infinity): Span | undefined {
  const within = frames.filter((f) => loud(f) && f[0] >= fromMs && f[0] <= toMs);
  if (within.length === 0) return undefined;
  const firstMs = within[0]![0];
  const lastMs = within.at(-1)![0];
  return { firstMs, lastMs, spanMs: lastMs - firstMs + FRAME_MS, loudMs: within.length * FRAME_MS, maxRms: Math.max(...within.map((f) => f[1])) };
}

/** The start of the first stretch of at least `ms` without a loud frame, at or after `fromMs`. */
export function quietFrom(frames: Frame[], fromMs: number, ms: number): number {
  let quietSince: number | undefined;
  for (const frame of frames) {
    if (frame[0] < fromMs) continue;
    if (loud(frame)) quietSince = undefined;
    else {
      quietSince ??= frame[0];
      if (frame[0] + FRAME_MS - quietSince >= ms) return quietSince;
    }
  }
  return Infinity;
}

// ---- the audible Cartesia voice ---------------------------------------------------------------

/** RMS of the fake's audible tone (a sine at 0.25 of full scale). */
const TONE_RMS = (0.25 * 32767) / Math.SQRT2;

/**
 * How much tone `frames` carry, in ms: each frame's energy over a full frame of the tone's, so a
 * frame the tone only begins in counts for part of its 20 ms.
 */
export const toneMs = (frames: Frame[]): number => frames.reduce((n, [, level]) => n + Math.min(1, (level / TONE_RMS) ** 2) * FRAME_MS, 0);

/**
 * Where the talk spurt that is sounding at `ms` began: back from `ms` over loud frames and over
 * quiet stretches of at most `maxGapMs`. A spurt's first ~100–200 ms often arrive broken up and
 * distorted (seen on every reply after a silence, and at the start of a track), so its onset
 * is not where its first clean tone is.
 */
export function soundStart(frames: Frame[], ms: number, maxGapMs = 100): number {
  let start = ms;
  let gap = 0;
  for (let i = frames.findIndex((f) => f[0] >= ms) - 1; i >= 0; i--) {
    const frame = frames[i]!;
    if (loud(frame)) {
      start = frame[0];
      gap = 0;
    } else if ((gap += FRAME_MS) > maxGapMs) break;
  }
  return start;
}

export const expectedMs = (transcript: string): number => Math.max(1, [...transcript].length) * MS_PER_CHAR;

export interface Context {
  contextId: string;
  connectionId: number;
  /** Transcript pieces exactly as the worker sent them. */
  texts: string[];
  /** The pieces the fake voiced, in order, each with its tone (a cancelled context's are a prefix). */
  voiced: Voiced[];
  firstAt: number;
  /** Epoch ms of a `cancel` for this context, if one came. */
  cancelledAt?: number;
  /** Epoch ms at which the fake had generated all of this context's audio, if it did. */
  finishedAt?: number;
}

export interface Voiced {
  text: string;
  hz: number;
}

/** The Cartesia contexts of a call, in the order they began, with what the fake voiced of each. */
export function contextsOf(cartesia: CallResult['cartesia']): Context[] {
  const contexts = new Map<string, Context>();
  for (const { connectionId, receivedAt, message } of cartesia?.messages ?? []) {
    const id = message.context_id;
    if (!id) continue;
    let context = contexts.get(id);
    if (!context) contexts.set(id, (context = { contextId: id, connectionId, texts: [], voiced: [], firstAt: receivedAt }));
    if (message.cancel) context.cancelledAt ??= receivedAt;
    else if (message.transcript) context.texts.push(message.transcript);
  }
  for (const { contextId, transcript, hz } of cartesia?.voiced ?? []) contexts.get(contextId)?.voiced.push({ text: transcript, hz });
  for (const { contextId, at } of cartesia?.finished ?? []) {
    const context = contexts.get(contextId);
    if (context) context.finishedAt ??= at;
  }
  return foldContinuations([...contexts.values()]);
}

/**
 * A reply whose context expired while the LLM paused (the fake expires one 1 s after its last
 * audio; a starved LLM stream paused 2.4 s in CI) goes on in a new context that carries the rest
 * of its text again: that context is the same reply, folded into the one it continues.
 */
function foldContinuations(contexts: Context[]): Context[] {
  const replies: Context[] = [];
  for (const context of contexts) {
    const previous = replies.at(-1);
    const rest = context.texts.length;
    const continues =
      previous !== undefined && rest > 0 && rest < previous.texts.length && previous.texts.slice(-rest).every((text, i) => text === context.texts[i]);
    if (!continues) {
      replies.push(context);
      continue;
    }
    previous.voiced.push(...context.voiced);
    previous.cancelledAt = context.cancelledAt;
    previous.finishedAt = context.finishedAt;
  }
  return replies;
}

/**
 * Epoch ms of the worker's first log line `msg` at or after `sinceEpoch` (its `atEpochMs`): the
 * barge-in's "reply paused: the caller talks over it" and "paused reply dropped: the caller barged
 * in" (the interruption confirmed).
 */
export function workerLineAt(workerLog: string, msg: string, sinceEpoch: number): number | undefined {
  for (const line of workerLog.split('\n')) {
    if (!line.includes(`"msg":"${msg}"`)) continue;
    const { atEpochMs } = JSON.parse(line) as { atEpochMs?: number };
    if (atEpochMs !== undefined && atEpochMs >= sinceEpoch) return atEpochMs;
  }
  return undefined;
}

export const REPLY_PAUSED = BARGE_IN_MESSAGES.paused;
export const REPLY_DROPPED = BARGE_IN_MESSAGES.dropped;

/**
 * A barge-in cancels the interrupted context at the provider, unless the provider had already
 * generated all of it when the interruption was confirmed (a starved host's VAD and STT can take
 * seconds): then there is nothing left to cancel. A pause alone cancels nothing (the reply may
 * resume).
 */
export function expectCancelledIfStillGenerating(context: Context, interruptedAt: number | undefined, what: string): void {
  const stillGenerating = context.finishedAt === undefined || interruptedAt === undefined || context.finishedAt > interruptedAt;
  const when = `finished ${context.finishedAt ?? 'never'}, interrupted ${interruptedAt ?? 'never'}, cancelled ${context.cancelledAt ?? 'never'} (epoch ms)`;
  expect(context.cancelledAt !== undefined || !stillGenerating, `${what} was never cancelled while still generating: ${when}`).toBe(true);
}

export interface PitchRun {
  startMs: number;
  endMs: number;
  frames: number;
  hz: number;
}

/** Consecutive loud frames of one pitch (±6 Hz of the run's mean). A quiet frame ends a run. */
export function pitchRuns(frames: Frame[], fromMs = -Infinity, toMs = Infinity): PitchRun[] {
  const runs: PitchRun[] = [];
  let run: PitchRun | undefined;
  for (const [t, , hz] of frames) {
    if (t < fromMs || t > toMs) continue;
    if (hz <= 0) {
      run = undefined;
      continue;
    }
    if (run && Math.abs(hz - run.hz) <= 6) {
      run.hz = (run.hz * run.frames + hz) / (run.frames + 1);
      run.frames++;
      run.endMs = t + FRAME_MS;
    } else {
      run = { startMs: t, endMs: t + FRAME_MS, frames: 1, hz };
      runs.push(run);
    }
  }
  return runs;
}

export interface Heard {
  text: string;
  hz: number;
  startMs: number;
  endMs: number;
  /** Frames at this text's pitch × 20 ms. */
  ms: number;
}

/**
 * Which voiced pieces the runs are, in order: a run of at least `minFrames` frames within
 * `toleranceHz` of a piece's tone is that piece (the nearest); consecutive runs of one piece merge
 * (a stutter in delivery splits a run but not a piece). Shorter or unmatched runs are transitions
 * and codec artefacts, returned apart.
 */
export function heardTexts(runs: PitchRun[], voiced: Voiced[], { minFrames = 3, toleranceHz = 10 } = {}): { heard: Heard[]; unmatched: PitchRun[] } {
  const heard: Heard[] = [];
  const unmatched: PitchRun[] = [];
  for (const run of runs) {
    const nearest = voiced
      .map((piece) => ({ piece, off: Math.abs(piece.hz - run.hz) }))
      .sort((a, b) => a.off - b.off)[0];
    if (run.frames < minFrames || !nearest || nearest.off > toleranceHz) {
      unmatched.push(run);
      continue;
    }
    const last = heard.at(-1);
    if (last && last.hz === nearest.piece.hz) {
      last.endMs = run.endMs;
      last.ms += run.frames * FRAME_MS;
    } else {
      heard.push({ ...nearest.piece, startMs: run.startMs, endMs: run.endMs, ms: run.frames * FRAME_MS });
    }
  }
  return { heard, unmatched };
}

/**
 * Fails unless every piece voiced has its own tone, ≥ `minHz` from the others: the fake's tones go
 * round in turn, so only more pieces in one call than it has tones could break this.
 */
export function expectDistinctTones(voiced: Voiced[], minHz = 25): void {
  const close = voiced.flatMap((x, i) => voiced.slice(i + 1).filter((y) => Math.abs(x.hz - y.hz) < minHz).map((y) => `${JSON.stringify(x.text)} ${x.hz} Hz ~ ${JSON.stringify(y.text)} ${y.hz} Hz`));
  expect(close, 'pieces whose tones cannot be told apart (more pieces than the fake has tones)').toEqual([]);
}

/** The context voiced every piece it was sent (whitespace-only pieces make no audio), in order. */
export function expectAllVoiced(context: Context): void {
  expect(context.voiced.map((v) => v.text)).toEqual(context.texts.filter((t) => t.trim().length > 0));
}

/** A text's tone lasted as long as the fake made it (±30% + 120 ms: jitter buffers stretch audio). */
export function expectFullLength(heard: Heard): void {
  const expected = expectedMs(heard.text);
  expect(heard.ms, `${JSON.stringify(heard.text)} heard for ${heard.ms} ms of ${expected} ms`).toBeGreaterThanOrEqual(expected * 0.7 - 120);
  expect(heard.ms, `${JSON.stringify(heard.text)} heard for ${heard.ms} ms of ${expected} ms`).toBeLessThanOrEqual(expected * 1.3 + 120);
}

/**
 * A worker told to stop mid-reply (at `result.stopMs`) let the reply finish: every text heard in
 * order, at least two of them begun after the stop and each heard in full, as much sound as the
 * fake made, and the transcript whole. Returns the figures worth printing.
 */
export function expectReplyFinishedAfterStop(result: CallResult, reply: Context, replyText: string): { afterStopMs: number; loudMs: number; madeMs: number; spanMs: number } {
  const stop = result.stopMs!;
  const runs = pitchRuns(result.frames, result.chatMs);
  const picture = `stopped at ${stop} ms; runs (ms:Hz): ${describeRuns(runs)}`;
  expectAllVoiced(reply);
  const { heard } = heardTexts(runs, reply.voiced);
  expect(heard.map((h) => h.text), picture).toEqual(reply.voiced.map((v) => v.text));
  const after = heard.filter((h) => h.startMs > stop);
  expect(after.length, `the stop was not mid-reply; ${picture}`).toBeGreaterThanOrEqual(2);
  after.forEach(expectFullLength);
  // Sound time, not first-to-last (a CPU-starved worker stutters without losing audio).
  const madeMs = reply.texts.reduce((n, t) => n + expectedMs(t), 0);
  const span = loudSpan(result.frames, result.chatMs)!;
  expect(span.loudMs, picture).toBeGreaterThan(madeMs * 0.85 - 100);
  expect(span.loudMs, picture).toBeLessThan(madeMs * 1.15 + 300);
  expect(agentTexts(result)).toEqual([squash(replyText)]);
  return { afterStopMs: loudSpan(result.frames, stop)?.loudMs ?? 0, loudMs: span.loudMs, madeMs, spanMs: span.spanMs };
}

/** Polls `probe` until it returns a value, every `intervalMs`, for at most `timeoutMs`; the error says what was awaited. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A compact picture of the track for failure messages: runs as `start-end:Hz`. */
export const describeRuns = (runs: PitchRun[]): string => runs.map((r) => `${r.startMs}-${r.endMs}:${Math.round(r.hz)}`).join(' ');
