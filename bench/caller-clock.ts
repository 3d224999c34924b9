/**
 * `npm run bench:caller-clock [-- --turns N]`: does the worker's caller's-clock figure agree with
 * what a caller in a real room measures?
 *
 * Brings up the real stack (livekit-server in its namespace, the production worker, the Cartesia
 * and OpenAI fakes) and takes N spoken turns with the rtc-node caller of the room tests
 * (test/e2e/clients/agent-call.ts). The caller times from when its last voiced frame left its
 * microphone to the agent's first loud frame arriving; the worker logs `firstSoundMs` from when
 * that voice reached it, plus the room's legs (src/latency/media-path.ts). Both run on this host,
 * so their epoch clocks are one. Prints every turn and the spread of the differences.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CallResult, freshRoom, synthesizeSpeech } from '../test/e2e/agent-calls.js';
import { startStack } from '../test/e2e/stack.js';
import { percentile } from './playout.js';

const USER = { text: 'What time does the pharmacy open tomorrow?', language: 'en-us' as const };
const REPLY = 'The pharmacy opens at nine. It closes at six.';
const turnsArg = process.argv.indexOf('--turns');
const TURNS = turnsArg > 0 ? Number(process.argv[turnsArg + 1]) : 6;
/** The caller's "loud" frame: the same RMS the room tests use. */
const LOUD_RMS = 300;

interface WorkerTurnLine {
  atEpochMs: number;
  firstSoundMs?: number;
  stamps: Record<string, number>;
  path?: { inputMs: number; outputMs: number; jitterBufferMs: number; jitterBufferTargetMs: number; roundTripMs: number };
}

const [stack, speech] = await Promise.all([
  startStack({ tts: 'cartesia', web: false, fakeArgs: { cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: 60, firstByteDelayMs: 120 })] } }),
  synthesizeSpeech([USER]),
]);
const rows: Array<{ turn: number; caller: number; worker: number; diff: number; path?: WorkerTurnLine['path'] }> = [];
try {
  for (let turn = 1; turn <= TURNS; turn++) {
    const result = (await stack.client(
      'agent-call',
      [
        '--room', freshRoom('caller-clock'),
        '--agent', stack.state.agentName,
        '--speak', speech.get(USER.text)!.file,
        '--transcripts', JSON.stringify([USER.text]),
        '--openai-script', JSON.stringify([{ match: 'pharmacy', reply: REPLY }]),
      ],
      { timeoutMs: 120_000 },
    )) as CallResult;
    const voicedEndMs = result.speech[0]?.voicedEndMs;
    if (!result.ok || voicedEndMs === undefined) {
      console.log(`turn ${turn}: the call failed (${result.error ?? 'no voiced speech'}); not counted`);
      continue;
    }
    const voicedEnd = result.t0Epoch + voicedEndMs;
    const heard = result.frames.find(([at, level]) => at > voicedEndMs && level > LOUD_RMS);
    const line = readFileSync(join(stack.state.runDir, 'worker.log'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"turn latency"'))
      .map((l) => JSON.parse(l) as WorkerTurnLine)
      .filter((l) => Math.abs(l.atEpochMs - voicedEnd) < 5000)
      .at(-1);
    if (!heard || line?.firstSoundMs === undefined) {
      console.log(`turn ${turn}: ${heard ? 'no worker turn line' : 'nothing heard'}; not counted`);
      continue;
    }
    const caller = Math.round(heard[0] - voicedEndMs);
    const worker = Math.round(line.firstSoundMs);
    rows.push({ turn, caller, worker, diff: caller - worker, path: line.path });
    console.log(
      `turn ${turn}: caller heard the agent ${caller} ms after its last voiced frame; worker logged ${worker} ms ` +
        `(diff ${caller - worker} ms; legs in ${line.path?.inputMs ?? '?'} / out ${line.path?.outputMs ?? '?'} ms, ` +
        `jitter buffer ${line.path?.jitterBufferMs ?? '?'} ms, target ${line.path?.jitterBufferTargetMs ?? '?'} ms)`,
    );
  }
} finally {
  await stack.stop();
}
const off = rows.map((r) => Math.abs(r.diff)).sort((a, b) => a - b);
if (off.length > 0) {
  console.log(
    `\n${rows.length} of ${TURNS} turns: |caller − worker| p50 ${percentile(off, 50)} ms, p90 ${percentile(off, 90)} ms, max ${off.at(-1)} ms; ` +
      `${off.filter((d) => d <= 50).length} within 50 ms`,
  );
}
