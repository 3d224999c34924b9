/**
 * Telling the acknowledgement from the reply on the caller's ear. The Cartesia fake's audible
 * voice gives every piece of text it voices the next of its tones and logs which
 * (test/servers/audio-tag.ts AUDIBLE_TONES_HZ, `/_control/voiced`). The cached acknowledgement
 * was voiced when the job process prewarmed; the reply's pieces are voiced during the turn. So the
 * reply's first audio is the first stretch of tone at a pitch voiced for this turn — after the
 * acknowledgement's own stretch when the worker says one played.
 */
import { DEFAULT_ACK_PHRASES, EARLY_ACK_PHRASES } from '../../src/ack/phrases.js';
import type { Heard } from './ear.js';

/** Consecutive loud frames of one tone. */
export interface PitchRun {
  /** Arrival of its first frame (Date.now() ms). */
  at: number;
  ms: number;
  hz: number;
}

/** A frame's tone within this of a run's mean is the same tone (the fake's are 25 Hz apart). */
const SAME_TONE_HZ = 6;
/** Runs shorter than this are onsets, transitions and codec artefacts, not a piece of text. */
const MIN_RUN_FRAMES = 3;

interface OpenRun {
  first: Heard;
  frames: number;
  ms: number;
  /** Mean of the frames whose tone could be read (0 while none could). */
  hz: number;
  toned: number;
  /** It began at a change of tone, not after a quiet frame. */
  contiguous: boolean;
}

/**
 * The runs of tone among the frames that arrived in (`from`, `until`]. A quiet frame ends a run;
 * a loud frame whose tone cannot be read (fewer than two zero crossings) continues it. A run too
 * short to be a piece that runs straight into the next (an onset frame half silence, a frame
 * across two pieces) is counted as the next one's start.
 */
export function pitchRuns(frames: readonly Heard[], from: number, until: number, threshold: number, arrival: (f: Heard) => number = (f) => f.at): PitchRun[] {
  const raw: OpenRun[] = [];
  let open: OpenRun | undefined;
  for (const f of frames) {
    if (f.at <= from || f.at > until) continue;
    if (f.rms < threshold) {
      open = undefined;
      continue;
    }
    const sameTone = open !== undefined && (f.hz <= 0 || open.toned === 0 || Math.abs(f.hz - open.hz) <= SAME_TONE_HZ);
    if (!open || !sameTone) {
      open = { first: f, frames: 0, ms: 0, hz: 0, toned: 0, contiguous: open !== undefined };
      raw.push(open);
    }
    open.frames++;
    open.ms += f.ms;
    if (f.hz > 0) {
      open.hz = (open.hz * open.toned + f.hz) / (open.toned + 1);
      open.toned++;
    }
  }
  const runs: PitchRun[] = [];
  let lead: { first: Heard; ms: number } | undefined;
  raw.forEach((run, i) => {
    if (run.frames < MIN_RUN_FRAMES || run.toned === 0) {
      lead = raw[i + 1]?.contiguous ? { first: lead?.first ?? run.first, ms: (lead?.ms ?? 0) + run.ms } : undefined;
      return;
    }
    runs.push({ at: arrival(lead?.first ?? run.first), ms: run.ms + (lead?.ms ?? 0), hz: Math.round(run.hz) });
    lead = undefined;
  });
  return runs;
}

const ACK_TEXTS = new Set([...Object.values(DEFAULT_ACK_PHRASES), ...Object.values(EARLY_ACK_PHRASES)].flat().map((t) => t.trim()));

/** The tones the fake voiced during a turn for anything but an acknowledgement phrase. */
export function replyTones(voiced: ReadonlyArray<{ transcript: string; hz: number }>): number[] {
  return [...new Set(voiced.filter((v) => v.transcript.trim() !== '' && !ACK_TEXTS.has(v.transcript.trim())).map((v) => v.hz))];
}

/** What the worker's line says about the turn's acknowledgement. */
export interface AckHeard {
  played: boolean;
  /** The clip's length, when it played. */
  durationMs?: number;
}

export type ContentOnEar = { at: number; ackHz?: number } | { why: string };

/** Tones within this of a voiced tone are that tone (the ear reads them to about 1 Hz). */
const TONE_MATCH_HZ = 10;
/** Slack over the acknowledgement's length for jitter buffers stretching it. */
const ACK_STRETCH_MS = 300;

/**
 * When the reply's own audio reached the caller: the first run at one of this turn's reply tones.
 * When the acknowledgement played, its audio is the first run, and runs at its tone within its
 * length (a stutter splits a run) are still it. When its tone is also a reply tone and its run
 * lasts well past its length, the reply followed at the same tone without a pause: that turn's
 * content cannot be told on the ear.
 */
export function contentOnEar(runs: readonly PitchRun[], tones: readonly number[], ack: AckHeard): ContentOnEar {
  if (tones.length === 0) return { why: 'the fake voiced no reply text during the turn' };
  const isReply = (hz: number) => tones.some((t) => Math.abs(t - hz) <= TONE_MATCH_HZ);
  let candidates = runs;
  let ackHz: number | undefined;
  if (ack.played) {
    const first = runs[0];
    if (!first) return { why: 'nothing heard' };
    ackHz = first.hz;
    const ackEnd = first.at + (ack.durationMs ?? 0) + ACK_STRETCH_MS;
    if (isReply(first.hz) && ack.durationMs !== undefined && first.ms > ack.durationMs + ACK_STRETCH_MS) {
      return { why: `the acknowledgement and the reply share the tone ${first.hz} Hz and ran together` };
    }
    candidates = runs.slice(1).filter((r) => !(Math.abs(r.hz - first.hz) <= TONE_MATCH_HZ && r.at <= ackEnd));
  }
  const content = candidates.find((r) => isReply(r.hz));
  if (!content) return { why: `no run at a reply tone (${tones.join(', ')} Hz) among ${runs.map((r) => `${r.hz}`).join(', ') || 'none'}` };
  return ackHz === undefined ? { at: content.at } : { at: content.at, ackHz };
}
