/**
 * `npm run bench:phone`: how long a phone caller waits for the greeting, through the real SFU, with
 * a caller that joins as livekit-sip does (test/e2e/clients/sip.ts), firstword's TTS against
 * LiveKit's own Cartesia plugin swapped into the same production worker, both on the Cartesia fake
 * (first byte 120 ms). For each: `--cold` calls placed the moment a freshly started worker
 * registered (a new worker each), then `--calls` calls on a warm worker. Per call, on the caller's
 * clock: join → first greeting frame with speech energy, pick-up (200 OK) → the same, and the end
 * of the caller's first question → the answer's first sound; and the worker's steps on the same
 * clock (its `call start-up` line). Prints p50/p90 and writes `<out>/phone.json`.
 *
 *   npm run bench:phone [-- --calls 20 --cold 3 --out out/bench]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadavg } from 'node:os';
import { RUN_DIR } from '../../scripts/stack/layout.js';
import { down, startExtraWorker, up } from '../../scripts/stack/stack.js';
import type { StackState } from '../../scripts/stack/state.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { encodeWav } from '../../src/local-voice/wav.js';
import { speak } from '../../test/servers/openai/test-audio.js';
import { TELEPHONE_RATE, telephoneBand } from '../../test/helpers/g711.js';
import { type CallFigures, placeCall, startupLines, stepsFromJoin } from './calls.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
};
const CALLS = Number(flag('calls', '20'));
const COLD = Number(flag('cold', '3'));
const OUT = resolve(flag('out', 'out/bench'));

const CARTESIA = { firstByteDelayMs: 120, realTimeFactor: 0.5, msPerChar: 60, audio: 'audible' };
const QUESTION = 'What time does the library open';
const REPLY = 'The library opens at nine.';
const STRATEGIES = [
  { name: 'firstword', ttsProvider: 'cartesia', port: 18090 },
  { name: 'livekit-cartesia', ttsProvider: 'cartesia-livekit', port: 18091 },
] as const;

const log = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`  ${line}\n`);

function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const fmt = (ms: number | undefined) => (ms === undefined ? '—' : `${Math.round(ms)}`);

interface Recorded extends CallFigures {
  strategy: string;
  kind: 'cold' | 'warm';
}

async function questionFile(): Promise<string> {
  const synth = await EspeakSynthesizer.start();
  try {
    const spoken = await speak(synth, QUESTION, 'en-us');
    const file = join(RUN_DIR, `bench-phone-${process.pid}.wav`);
    mkdirSync(RUN_DIR, { recursive: true });
    writeFileSync(file, encodeWav(telephoneBand(spoken.samples, spoken.sampleRate), TELEPHONE_RATE));
    return file;
  } finally {
    await synth.close();
  }
}

async function runCall(state: StackState, strategy: string, kind: Recorded['kind'], agentName: string, logFile: string, wav: string, n: number): Promise<Recorded> {
  const before = startupLines(logFile).length;
  const { figures, result } = await placeCall(state, { agentName, number: `+1555${String(1_000_000 + n).slice(1)}`, questionFile: wav, question: QUESTION, reply: REPLY });
  const line = startupLines(logFile)[before];
  if (result && figures.ok && line) figures.steps = stepsFromJoin(result, line);
  const rec = { strategy, kind, ...figures };
  note(`${strategy} ${kind}: ${figures.ok ? `greeting ${fmt(figures.greetingFromJoinMs)} ms after join (${fmt(figures.greetingFromPickupMs)} after pick-up), answer ${fmt(figures.answerMs)} ms; steps ${JSON.stringify(figures.steps ?? {})}` : `FAILED ${figures.error}`}`);
  return rec;
}

async function main(): Promise<number> {
  log(`firstword phone bench — ${CALLS} warm + ${COLD} cold calls per TTS; Cartesia fake first byte ${CARTESIA.firstByteDelayMs} ms; load average ${loadavg().map((v) => v.toFixed(1)).join(' ')}`);
  const wav = await questionFile();
  const state = await up({ owner: 'harness', tts: 'cartesia', worker: false, web: false, fakeArgs: { cartesia: ['--options', JSON.stringify(CARTESIA)] }, progress: note });
  const recorded: Recorded[] = [];
  // Ctrl-C (or a SIGTERM) keeps what was measured and takes the stack down.
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    note('interrupted: writing what was measured and stopping the stack');
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'phone.json'), `${JSON.stringify({ cartesia: CARTESIA, interrupted: true, recorded }, null, 2)}\n`);
    void down(state, note).finally(() => process.exit(130));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let n = 0;
  try {
    for (const s of STRATEGIES) {
      const env = { TTS_PROVIDER: s.ttsProvider, ACK_MODE: 'off' };
      for (let i = 0; i < COLD; i++) {
        const name = `worker-phone-${s.name}-cold${i}`;
        const agentName = `phone-${s.name}-cold${i}`;
        const worker = await startExtraWorker(state, { name, agentName, httpPort: s.port, tts: 'cartesia', env });
        // The call arrives the moment the worker registered.
        recorded.push(await runCall(state, s.name, 'cold', agentName, worker.record.logFile, wav, n++));
        process.kill(worker.record.pid, 'SIGTERM');
        await worker.exited;
      }
      const name = `worker-phone-${s.name}-warm`;
      const agentName = `phone-${s.name}-warm`;
      const worker = await startExtraWorker(state, { name, agentName, httpPort: s.port, tts: 'cartesia', env });
      // One call to warm it (not counted), then the measured ones.
      await runCall(state, s.name, 'warm', agentName, worker.record.logFile, wav, n++);
      for (let i = 0; i < CALLS; i++) recorded.push(await runCall(state, s.name, 'warm', agentName, worker.record.logFile, wav, n++));
      process.kill(worker.record.pid, 'SIGTERM');
      await worker.exited;
    }
  } finally {
    await down(state, note);
  }

  log('');
  log('greeting after the join / after pick-up, and the answer after the question, in ms (p50 / p90; cold: each call)');
  const summary: Record<string, unknown> = {};
  for (const s of STRATEGIES) {
    const warm = recorded.filter((r) => r.strategy === s.name && r.kind === 'warm' && r.ok);
    const cold = recorded.filter((r) => r.strategy === s.name && r.kind === 'cold' && r.ok);
    const failed = recorded.filter((r) => r.strategy === s.name && !r.ok).length;
    const values = (rs: Recorded[], key: keyof CallFigures) => rs.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
    const warmGreeting = percentile(values(warm, 'greetingFromJoinMs'), 50);
    const coldGreeting = percentile(values(cold, 'greetingFromJoinMs'), 50);
    const stepNames = [...new Set(warm.flatMap((r) => Object.keys(r.steps ?? {})))];
    const steps = Object.fromEntries(stepNames.map((k) => [k, percentile(warm.map((r) => r.steps?.[k]).filter((v): v is number => v !== undefined), 50)]));
    const coldSteps = Object.fromEntries(stepNames.map((k) => [k, percentile(cold.map((r) => r.steps?.[k]).filter((v): v is number => v !== undefined), 50)]));
    summary[s.name] = { warm: warm.length, cold: cold.length, failed, warmGreeting, coldGreeting, steps, coldSteps };
    log(
      `${s.name.padEnd(17)} warm (${warm.length}): greeting ${fmt(warmGreeting)} / ${fmt(percentile(values(warm, 'greetingFromJoinMs'), 90))} after join, ` +
        `${fmt(percentile(values(warm, 'greetingFromPickupMs'), 50))} / ${fmt(percentile(values(warm, 'greetingFromPickupMs'), 90))} after pick-up; ` +
        `answer ${fmt(percentile(values(warm, 'answerMs'), 50))} / ${fmt(percentile(values(warm, 'answerMs'), 90))}`,
    );
    log(`${''.padEnd(17)} cold (${cold.length}): greeting ${values(cold, 'greetingFromJoinMs').map(fmt).join(', ')} after join; first call / warm p50 = ${coldGreeting && warmGreeting ? (coldGreeting / warmGreeting).toFixed(2) : '—'}×${failed ? `; ${failed} calls failed` : ''}`);
    log(`${''.padEnd(17)} warm steps from the join (p50): ${Object.entries(steps).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}`);
    log(`${''.padEnd(17)} cold steps from the join (p50): ${Object.entries(coldSteps).map(([k, v]) => `${k} ${fmt(v)}`).join(', ')}`);
  }
  const fw = summary.firstword as { warmGreeting?: number } | undefined;
  const lk = summary['livekit-cartesia'] as { warmGreeting?: number } | undefined;
  if (fw?.warmGreeting && lk?.warmGreeting) log(`firstword / livekit-cartesia warm greeting p50: ${(fw.warmGreeting / lk.warmGreeting).toFixed(2)}×`);
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'phone.json'), `${JSON.stringify({ cartesia: CARTESIA, calls: CALLS, cold: COLD, summary, recorded }, null, 2)}\n`);
  log(`wrote ${join(OUT, 'phone.json')}`);
  return recorded.some((r) => !r.ok) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`bench:phone: ${error.stack ?? error.message}\n`);
    process.exit(1);
  },
);
