/**
 * The calls of `npm run test:sip` (scripts/sip-call/main.ts decides whether they can run): the
 * stack with the bridge, `sip:setup`, then one sipp call after another, each captured and checked.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from '../../bench/playout.js';
import { execCapture } from '../stack/exec.js';
import { NETWORK, REPO_ROOT, TSX_BIN } from '../stack/layout.js';
import { SIP_RTP_PORTS } from '../stack/sip-bridge.js';
import { down, up } from '../stack/stack.js';
import type { StackState } from '../stack/state.js';
import { type CallFigures, analyzeCall } from './call-analysis.js';
import { startCapture } from './capture.js';
import { type CallerAudio, prepareCallerAudio } from './caller-audio.js';
import { readPcap } from './pcap.js';
import { uacScenario } from './scenario.js';

/** The number the trunk answers (E.164, a fictional range) and the caller's own. */
const DIALED = '+15550100';
const CALLER = '+15550123456';
/** The phone sits on the veth end the bridge does not use. */
const CALLER_IP = NETWORK.addresses[1].split('/')[0]!;
const CALLER_SIP_PORT = 5070;
const CALLER_RTP_PORT = 6000;
/** After the question: time for the agent's answer before the caller hangs up. */
const ANSWER_WINDOW_MS = 8000;

const say = (line: string) => process.stderr.write(`test:sip: ${line}\n`);

async function sipSetup(state: StackState): Promise<void> {
  const result = await execCapture(state, TSX_BIN, ['scripts/sip-setup.ts'], {
    cwd: REPO_ROOT,
    env: { SIP_NUMBERS: DIALED },
    timeoutMs: 60_000,
  });
  if (result.code !== 0) throw new Error(`sip:setup failed (${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
  for (const line of result.stdout.trim().split('\n')) say(line);
}

async function placeCall(state: StackState, audio: CallerAudio, index: number): Promise<CallFigures> {
  const dir = join(state.runDir, 'sip-calls');
  mkdirSync(dir, { recursive: true });
  const scenario = join(dir, `call-${index}.xml`);
  const holdMs = audio.durationMs + ANSWER_WINDOW_MS;
  writeFileSync(scenario, uacScenario({ audioFile: audio.file, holdMs, callerNumber: CALLER }));
  const pcap = join(dir, `call-${index}.pcap`);
  const filter = `udp and (port ${state.sip!.port} or portrange ${CALLER_RTP_PORT}-${CALLER_RTP_PORT + 99} or portrange ${SIP_RTP_PORTS.start}-${SIP_RTP_PORTS.end})`;
  const capture = await startCapture(state.namespace, pcap, filter);
  try {
    // sipp writes its error log to the folder it runs in.
    const sipp = await execCapture(
      state,
      'sipp',
      [
        `${state.sip!.host}:${state.sip!.port}`, '-sf', scenario, '-s', DIALED, '-m', '1', '-nostdin',
        '-i', CALLER_IP, '-p', String(CALLER_SIP_PORT), '-mi', CALLER_IP, '-mp', String(CALLER_RTP_PORT),
        '-timeout', `${Math.ceil(holdMs / 1000) + 60}s`, '-timeout_error', '-trace_err',
      ],
      { cwd: dir, timeoutMs: holdMs + 90_000 },
    );
    if (sipp.code !== 0) say(`call ${index}: sipp exited ${sipp.code ?? sipp.signal} (errors: ${dir}/call-${index}_*_errors.log)`);
  } finally {
    await capture.stop();
  }
  return analyzeCall(readPcap(readFileSync(pcap)), { sipPort: state.sip!.port });
}

const fmt = (ms: number | undefined) => (ms === undefined ? '—' : `${Math.round(ms)} ms`);

/** bench/playout's nearest rank; no greeting at all is a missing figure, not NaN. */
const rank = (values: number[], p: number): number | undefined => (values.length === 0 ? undefined : percentile(values, p));

/** Lines of the worker's log that say the machine starved it: the likeliest cause of a missed greeting. */
function starvation(state: StackState): string {
  const log = readFileSync(join(state.runDir, 'worker.log'), 'utf8');
  const count = (text: string) => log.split(text).length - 1;
  const timedOut = count('runner initialization timed out');
  const slowVad = count('VAD inference is slower than realtime');
  return timedOut + slowVad === 0 ? '' : `; the worker logged ${timedOut} job-process start timeouts and ${slowVad} slow-VAD warnings (CPU starvation)`;
}

/** The worker's own log (framework lines included) must never hold the caller's number in clear. */
function numberLeaks(state: StackState): number {
  const digits = CALLER.replace('+', '');
  return readFileSync(join(state.runDir, 'worker.log'), 'utf8').split('\n').filter((line) => line.includes(digits)).length;
}

export interface RunOptions {
  binary: string;
  calls: number;
  language: 'en' | 'ko';
}

/** Exit status: 0 when every call passed every check and the number never leaked. */
export async function runCalls({ binary, calls, language }: RunOptions): Promise<number> {
  const audio = await prepareCallerAudio(language);
  say(`caller audio: ${audio.file} (${Math.round(audio.durationMs)} ms, the question at ${Math.round(audio.speechStartMs)} ms)`);
  const state = await up({ owner: 'harness', sipBinary: binary, web: false, progress: (line) => say(`stack: ${line}`) });
  const results: CallFigures[] = [];
  try {
    await sipSetup(state);
    for (let i = 1; i <= calls; i++) {
      const figures = await placeCall(state, audio, i);
      results.push(figures);
      say(
        `call ${i}: 200 OK after ${fmt(figures.answeredAfterMs)}, greeting ${fmt(figures.greetingMs)} after the 200 OK ` +
          `(${figures.greetingSoundMs} ms of sound), answer ${fmt(figures.answerMs)} after the caller's speech, ` +
          `BYE ${figures.byeCompleted ? 'completed' : 'NOT completed'}${figures.failures.length ? ` — FAILED: ${figures.failures.join('; ')}` : ''}`,
      );
    }
    const leaks = numberLeaks(state);
    const greetings = results.flatMap((r) => (r.greetingMs === undefined ? [] : [r.greetingMs]));
    const failed = results.filter((r) => r.failures.length > 0).length;
    process.stdout.write(
      `test:sip: ${calls - failed}/${calls} calls passed with ${binary}; greeting after the 200 OK p50 ${fmt(rank(greetings, 50))}, ` +
        `max ${fmt(rank(greetings, 100))}; answered ${results.filter((r) => r.answerMs !== undefined).length}/${calls}; ` +
        `BYE ${results.filter((r) => r.byeCompleted).length}/${calls}; caller's number in clear in the worker's log: ${leaks} lines` +
        `${failed > 0 ? starvation(state) : ''}\n`,
    );
    return failed === 0 && leaks === 0 ? 0 : 1;
  } finally {
    await down(state, (line) => say(`stack: ${line}`));
    say(`logs and captures: ${state.runDir}`);
  }
}

