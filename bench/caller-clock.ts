/**
 * `npm run bench:caller-clock [-- --turns N] [--stt live,server-vad]`: does the worker's
 * caller's-clock figure agree with what a caller in a real room measures, and how long does the
 * caller wait on each speech-to-text path? One stack per path, side by side in one run: `live`
 * (the worker's default, gpt-realtime-whisper: words 300 ms after their audio, final 150 ms after
 * the commit at Silero's end of speech) and `server-vad` (gpt-4o-transcribe with OpenAI's VAD,
 * final 150 ms after its commit).
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
const sttArg = process.argv.indexOf('--stt');
const PATHS = (sttArg > 0 ? process.argv[sttArg + 1]! : 'live,server-vad').split(',');
const STT_PATHS: Record<string, { model: string; openaiArgs: string[] }> = {
  live: { model: 'gpt-realtime-whisper', openaiArgs: ['--delta-lag-ms', '300', '--final-after-commit-ms', '150'] },
  'server-vad': { model: 'gpt-4o-transcribe', openaiArgs: ['--transcription-delay-ms', '150'] },
};
for (const path of PATHS) if (!STT_PATHS[path]) throw new Error(`--stt: unknown path "${path}" (live, server-vad)`);
/** The caller's "loud" frame: the same RMS the room tests use. */
const LOUD_RMS = 300;

interface WorkerTurnLine {
  atEpochMs: number;
  firstSoundMs?: number;
  firstContentMs?: number;
  stamps: Record<string, number>;
  path?: { inputMs: number; outputMs: number; jitterBufferMs: number; jitterBufferTargetMs: number; roundTripMs: number };
}

type Row = { turn: number; caller: number; worker: number; diff: number; content?: number; path?: WorkerTurnLine['path'] };
const speech = await synthesizeSpeech([USER]);
const byPath = new Map<string, Row[]>();
for (const sttPath of PATHS) {
  const { model, openaiArgs } = STT_PATHS[sttPath]!;
  console.log(`\n${sttPath} (${model}):`);
  const stack = await startStack({
    tts: 'cartesia',
    web: false,
    workerEnv: { OPENAI_STT_MODEL: model },
    fakeArgs: { cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: 60, firstByteDelayMs: 120 })], openai: openaiArgs },
  });
  const rows: Row[] = [];
  byPath.set(sttPath, rows);
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
      // The content on the caller's clock: its first sound plus the worker's own sound → content gap.
      const content = line.firstContentMs === undefined ? undefined : caller + Math.round(line.firstContentMs - line.firstSoundMs);
      rows.push({ turn, caller, worker, diff: caller - worker, content, path: line.path });
      console.log(
        `turn ${turn}: caller heard the agent ${caller} ms after its last voiced frame (content ${content ?? '?'} ms); worker logged ${worker} ms ` +
          `(diff ${caller - worker} ms; legs in ${line.path?.inputMs ?? '?'} / out ${line.path?.outputMs ?? '?'} ms, ` +
          `jitter buffer ${line.path?.jitterBufferMs ?? '?'} ms, target ${line.path?.jitterBufferTargetMs ?? '?'} ms)`,
      );
    }
  } finally {
    await stack.stop();
  }
}
console.log('\n| STT path | turns | first sound p50 / p90 (caller) | first content p50 / p90 (caller) | abs(caller − worker) p50 / p90 / max | within 50 ms |');
console.log('|---|---|---|---|---|---|');
const p = (values: number[], q: number) => (values.length === 0 ? '–' : `${Math.round(percentile([...values].sort((a, b) => a - b), q))}`);
for (const [sttPath, rows] of byPath) {
  const off = rows.map((r) => Math.abs(r.diff)).sort((a, b) => a - b);
  const sound = rows.map((r) => r.caller);
  const content = rows.map((r) => r.content).filter((v): v is number => v !== undefined);
  console.log(
    `| ${sttPath} | ${rows.length} of ${TURNS} | ${p(sound, 50)} / ${p(sound, 90)} ms | ${p(content, 50)} / ${p(content, 90)} ms | ` +
      `${p(off, 50)} / ${p(off, 90)} / ${off.at(-1) ?? '–'} ms | ${off.filter((d) => d <= 50).length} |`,
  );
}
