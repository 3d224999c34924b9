/**
 * One phone call of the benchmark and what it is worth: the e2e SIP caller
 * (test/e2e/clients/agent-call.ts --sip, joining as livekit-sip does) run inside the namespace, its
 * record read on the caller's clock, and the worker's `call start-up` line for the same call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, TSX_BIN } from '../../scripts/stack/layout.js';
import { execCapture } from '../../scripts/stack/exec.js';
import type { StackState } from '../../scripts/stack/state.js';
import type { CallResult } from '../../test/e2e/agent-calls.js';
import { parseClientResult } from '../../test/e2e/stack.js';

/** A 20 ms frame louder than this (RMS of 32767) is speech energy, as the room tests count it. */
const LOUD_RMS = 300;

export interface CallFigures {
  ok: boolean;
  error?: string;
  /** Caller's join (connect returned) → first greeting frame with speech energy. */
  greetingFromJoinMs?: number;
  /** Pick-up (livekit-sip's 200 OK: the agent's track subscribed) → the same frame. */
  greetingFromPickupMs?: number;
  /** End of the caller's first question → first frame of the answer with speech energy. */
  answerMs?: number;
  /** The worker's steps, from the caller's join, on the shared clock. */
  steps?: Record<string, number>;
}

export interface PlacedCall {
  agentName: string;
  number: string;
  questionFile: string;
  question: string;
  reply: string;
}

export async function placeCall(state: StackState, call: PlacedCall): Promise<{ figures: CallFigures; result?: CallResult }> {
  const script = join(REPO_ROOT, 'test', 'e2e', 'clients', 'agent-call.ts');
  const args = [
    script,
    '--sip', call.number,
    '--agent', call.agentName,
    '--speak', call.questionFile,
    '--transcripts', JSON.stringify([call.question]),
    '--openai-script', JSON.stringify([{ match: call.question.split(' ').slice(-2).join(' '), reply: call.reply }]),
    '--tail-ms', '300',
    '--greeting-timeout-ms', '120000',
    '--timeout-ms', '170000',
  ];
  const run = await execCapture(state, TSX_BIN, args, { cwd: REPO_ROOT, timeoutMs: 180_000, env: { RUST_LOG: 'warn' } });
  const result = parseClientResult(run.stdout) as CallResult | undefined;
  if (!result) return { figures: { ok: false, error: `no result line (exit ${run.code ?? run.signal})` } };
  if (!result.ok) return { figures: { ok: false, error: result.error }, result };
  const loudAt = (from: number) => result.frames.find((f) => f[0] >= from && f[1] > LOUD_RMS)?.[0];
  const joined = result.joinedMs as number;
  const answered = result.answeredMs as number;
  const greeting = loudAt(0);
  const question = result.speech[0];
  const answer = question?.voicedEndMs !== undefined ? loudAt(question.voicedEndMs) : undefined;
  return {
    result,
    figures: {
      ok: true,
      greetingFromJoinMs: greeting !== undefined ? greeting - joined : undefined,
      greetingFromPickupMs: greeting !== undefined ? greeting - answered : undefined,
      answerMs: answer !== undefined && question?.voicedEndMs !== undefined ? answer - question.voicedEndMs : undefined,
    },
  };
}

interface StartupLine {
  startup: { roomToEntryMs?: number; greetingAskedMs?: number; connectedMs?: number; participantMs?: number; sessionStartedMs?: number; ttsFirstFrameMs?: number; speakingMs?: number; entryAt: number };
}

/** The worker's `call start-up` lines, oldest first. */
export function startupLines(logFile: string): StartupLine['startup'][] {
  let text = '';
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.includes('"call start-up"'))
    .flatMap((line) => {
      try {
        return [(JSON.parse(line) as StartupLine).startup];
      } catch {
        return [];
      }
    });
}

/**
 * The worker's steps for a call, in ms from the caller's join: the job's entry (dispatch, job
 * assignment to a process), room connected, caller found, session started, the greeting's first
 * TTS frame, its first audio to the room; all on the one machine's clock.
 */
export function stepsFromJoin(result: CallResult, line: StartupLine['startup']): Record<string, number> {
  const join = result.t0Epoch + (result.joinedMs as number);
  const at = (ms: number | undefined) => (ms === undefined ? undefined : line.entryAt + ms - join);
  const steps: Record<string, number | undefined> = {
    entry: line.entryAt - join,
    greetingAsked: at(line.greetingAskedMs),
    connected: at(line.connectedMs),
    participant: at(line.participantMs),
    sessionStarted: at(line.sessionStartedMs),
    ttsFirstFrame: at(line.ttsFirstFrameMs),
    firstAudioOut: at(line.speakingMs),
    pickup: (result.answeredMs as number) - (result.joinedMs as number),
  };
  return Object.fromEntries(Object.entries(steps).filter((e): e is [string, number] => e[1] !== undefined));
}
