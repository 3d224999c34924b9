/**
 * One turn of the caller, as the participant sees it: wait until the agent is idle, queue the
 * transcript, speak the clip, time the first agent frame with speech energy against the clip's
 * last voiced sample, optionally cut in (barge-in), and wait for the reply to end. A turn that
 * goes wrong reports what went wrong instead of a number; nothing is dropped.
 */
import type { Control } from './control.js';
import type { Ear, Heard } from './ear.js';
import type { Mic } from './mic.js';
import { type PitchRun, pitchRuns, replyTones } from './pitch.js';
import type { TurnSpec } from './plan.js';

export interface ClipData {
  samples: Int16Array;
  firstVoiced: number;
  lastVoiced: number;
}

export interface Caller {
  mic: Mic;
  ear: Ear;
  /** The agent participant's `lk.agent.state` attribute. */
  agentState(): string | undefined;
}

export interface TurnResult {
  id: number;
  strategy: string;
  kind: TurnSpec['kind'];
  scenario: string;
  language: string;
  ok: boolean;
  error?: string;
  firstVoicedAt?: number;
  lastVoicedAt?: number;
  /** Arrival of the first agent frame with speech energy (corrected for read lag, see Ear.arrivalOf). */
  firstAudioAt?: number;
  /** How much later than its arrival the caller's event loop read that frame. */
  firstAudioReadLagMs?: number;
  /** Last voiced sample out → first agent frame with speech energy in: the first sound, acknowledgement or reply. */
  callerWaitMs?: number;
  /** Runs of one tone heard after the last voiced sample, until the reply ended or the caller cut in (bench/room/pitch.ts). */
  heard?: PitchRun[];
  /** The tones the Cartesia fake voiced reply text at during the turn. */
  replyTones?: number[];
  replyEndAt?: number;
  /** Agent audio above the threshold in the reply (ms), and silences of 100 ms or more inside it. */
  replyAudioMs?: number;
  gaps?: number;
  gapMs?: number;
  barge?: { startAt: number; silentAt?: number; readLagMs?: number; ms?: number; replied: boolean; error?: string };
  /** Utterances the STT committed during the turn (1 expected, 2 with a barge-in). */
  commits?: number;
  transcriptsLeft?: number;
  micStalls: number;
  maxReadGapMs: number;
  /** 1-minute load average when the turn ended (set by the driver). */
  load1?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const BUSY = new Set(['speaking', 'thinking']);

/** Silences of at least `minMs` between the first and the last loud frame after `from`. */
function gapsIn(frames: readonly Heard[], from: number, until: number, threshold: number, minMs = 100): { gaps: number; gapMs: number; loudMs: number } {
  let gaps = 0;
  let gapMs = 0;
  let loudMs = 0;
  let run = 0;
  let started = false;
  for (const f of frames) {
    if (f.at < from || f.at > until) continue;
    if (f.rms >= threshold) {
      if (started && run >= minMs) (gaps++, (gapMs += run));
      started = true;
      run = 0;
      loudMs += f.ms;
    } else if (started) run += f.ms;
  }
  return { gaps, gapMs, loudMs };
}

export async function runTurn(spec: TurnSpec, caller: Caller, control: Control, clips: Map<string, ClipData>, threshold: number): Promise<TurnResult> {
  const { mic, ear } = caller;
  const result: TurnResult = { id: spec.id, strategy: spec.strategy, kind: spec.kind, scenario: spec.scenario, language: spec.language, ok: false, micStalls: mic.stalls, maxReadGapMs: 0 };
  const fail = (error: string) => ((result.error = error), result);
  ear.maxReadGapMs = 0;

  const idle = await ear.until(
    () => (!mic.busy && ear.quietFor(threshold, 300) && !BUSY.has(caller.agentState() ?? '') ? true : undefined),
    Date.now() + 30_000,
  );
  if (!idle) return fail(`agent not idle before the turn (state ${caller.agentState()}${mic.busy ? ', microphone still busy' : ''})`);
  await sleep(spec.pauseBeforeMs);

  const before = await control.openaiStats();
  // The TTS fake may be the fault under test (npm run soak stops it): the turn goes on without
  // its tones (no first-content figure) rather than failing for the harness's sake.
  const voicedBefore = await control.cartesiaVoicedCount().catch(() => undefined);
  if (voicedBefore !== undefined) await control.cartesiaOptions({ msPerChar: spec.msPerChar }).catch(() => {});
  await control.expect(spec.transcript);
  const clip = clips.get(spec.clip)!;
  const stallsBefore = mic.stalls;
  ear.mark();
  const play = mic.play(clip.samples, clip.firstVoiced, clip.lastVoiced);
  const firstVoicedAt = (result.firstVoicedAt = await play.firstVoicedAt);
  const lastVoicedAt = (result.lastVoicedAt = await play.lastVoicedAt);

  const first = await ear.until(() => ear.firstLoud(firstVoicedAt, threshold), lastVoicedAt + 20_000);
  if (!first) return fail('no agent audio within 20 s of the end of speech');
  if (first.at <= lastVoicedAt) {
    result.firstAudioAt = first.at;
    // A caller stalled past its microphone's lead leaves a silence in its speech that the agent may hear as a pause.
    const stalled = mic.stalls - stallsBefore;
    return fail(`agent audio ${Math.round(lastVoicedAt - first.at)} ms before the caller's last voiced sample (turn split?; the caller's microphone stalled ${stalled} times in its speech)`);
  }
  result.firstAudioAt = first.at;
  result.callerWaitMs = first.at - lastVoicedAt;
  await play.done;

  let replyFrom = first.at;
  let silent: Heard | undefined;
  if (spec.kind === 'barge') {
    await sleep(Math.max(0, first.at + spec.bargeAfterMs! - Date.now()));
    const talking = ear.frames.slice(-15).some((f) => f.rms >= threshold);
    const bargeClip = clips.get(spec.bargeClip!)!;
    await control.expect(spec.bargeTranscript!);
    const barge = mic.play(bargeClip.samples, bargeClip.firstVoiced, bargeClip.lastVoiced);
    const startAt = await barge.firstVoicedAt;
    result.barge = { startAt, replied: false, ...(talking ? {} : { error: 'agent was not talking when the caller cut in' }) };
    silent = await ear.until(() => ear.firstQuietRun(startAt, threshold, 100), startAt + 10_000);
    if (!silent) result.barge.error ??= 'agent still talking 10 s after the caller cut in';
    const bargeLast = await barge.lastVoicedAt;
    await barge.done;
    // The agent answers the barge-in; the turn ends once that answer has.
    const answer = await ear.until(() => ear.firstLoud(bargeLast, threshold), bargeLast + 20_000);
    result.barge.replied = answer !== undefined;
    replyFrom = answer?.at ?? bargeLast;
  }

  const ended = await ear.until(
    () => (ear.frames.at(-1)!.at > replyFrom && ear.quietFor(threshold, 700) && !BUSY.has(caller.agentState() ?? '') ? ear.frames.at(-1)!.at : undefined),
    Date.now() + 90_000,
  );
  const after = await control.openaiStats();
  result.commits = after.utterances.length - before.utterances.length;
  result.transcriptsLeft = after.transcriptsQueued;
  const voiced = voicedBefore === undefined ? undefined : await control.cartesiaVoicedSince(voicedBefore).catch(() => undefined);
  if (voiced) result.replyTones = replyTones(voiced);
  // Up to the cut-in: what came before it is the first reply, the only one timed.
  const heardUntil = result.barge?.startAt ?? ended ?? Date.now();
  result.heard = pitchRuns(ear.frames, lastVoicedAt, heardUntil, threshold, (f) => ear.arrivalOf(f)).slice(0, 40);
  result.micStalls = mic.stalls - result.micStalls;
  result.maxReadGapMs = ear.maxReadGapMs;
  // Arrival times are settled only now that later frames bound them (Ear.arrivalOf).
  result.firstAudioAt = ear.arrivalOf(first);
  result.firstAudioReadLagMs = first.at - result.firstAudioAt;
  result.callerWaitMs = result.firstAudioAt - lastVoicedAt;
  if (result.barge && silent) {
    const silentAt = ear.arrivalOf(silent);
    Object.assign(result.barge, { silentAt, readLagMs: silent.at - silentAt, ms: silentAt - result.barge.startAt });
  }
  if (!ended) return fail(`reply did not end within 90 s (state ${caller.agentState()})`);
  result.replyEndAt = ended;
  if (spec.kind !== 'barge') {
    const { gaps, gapMs, loudMs } = gapsIn(ear.frames, first.at, ended, threshold);
    Object.assign(result, { gaps, gapMs, replyAudioMs: loudMs });
  }
  result.ok = spec.kind !== 'barge' || (result.barge?.ms !== undefined && result.barge.error === undefined);
  if (!result.ok) result.error = result.barge?.error ?? 'barge-in not measured';
  return result;
}
