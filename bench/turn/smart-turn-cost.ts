/**
 * What one Smart Turn answer costs a worker (TURN_DETECTOR=combined), per pause: asked of the
 * worker's inference process as a call asks it (front end, model, and the whole ask with its IPC
 * and base64), and, for comparison, in the asking process as the offline tools run it. Also the
 * memory the model takes in a process that loads it, which a job process no longer pays.
 *
 *   npx tsx bench/turn/smart-turn-cost.ts [--asks 20]
 *
 * Sequential asks, one at a time: the cost of a pause, not a load test. Needs
 * models/smart-turn-v3.2-cpu.onnx (`bash scripts/peers/ensure-smart-turn.sh`).
 */
import { initializeLogger } from '@livekit/agents';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { now } from '../../src/latency/clock.js';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, floatToPcm, pcmToFloat } from '../../src/turn/smart-turn.js';
import { registerSmartTurnRunner, smartTurnRequest } from '../../src/turn/smart-turn-executor.js';
import { SMART_TURN_ANSWER, SMART_TURN_METHOD } from '../../src/turn/smart-turn-runner.js';
import { SAMPLE_RATE } from '../../src/turn/whisper-features.js';
import { startInferenceProcess } from '../../test/helpers/inference-process.js';
import { referenceSignal } from '../../test/turn/smart-turn-signal.js';
import { percentile } from '../playout.js';

const { values } = parseArgs({ options: { asks: { type: 'string', default: '20' } } });
const asks = Number(values.asks);
if (!Number.isInteger(asks) || asks < 1) throw new Error(`--asks must be a whole number ≥ 1 (got ${values.asks})`);

initializeLogger({ pretty: false, level: 'warn' });

/** The reference turn (1.6 s) and that turn repeated to the model's full 8 s window. */
const turn = pcmToFloat(floatToPcm(referenceSignal()));
const window = new Float32Array(8 * SAMPLE_RATE).map((_, i) => turn[i % turn.length]!);
const cases = [
  { name: '1.6 s turn', speech: turn },
  { name: '8 s window', speech: window },
];

const rssMb = (pid: number | 'self'): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const p = (values: number[]): string => `${percentile(values, 50).toFixed(1)} / ${percentile(values, 90).toFixed(1)}`;

registerSmartTurnRunner('combined');
const proc = await startInferenceProcess();
console.log(`inference process (Smart Turn loaded): ${rssMb(proc.pid).toFixed(0)} MB RSS`);
console.log(`\n| where | speech | features p50 / p90 ms | model p50 / p90 ms | whole ask p50 / p90 ms |\n|---|---|---|---|---|`);
for (const { name, speech } of cases) {
  const request = smartTurnRequest(speech);
  const features: number[] = [];
  const model: number[] = [];
  const ask: number[] = [];
  for (let i = 0; i <= asks; i++) {
    const askedAt = now();
    const answer = SMART_TURN_ANSWER.parse(await proc.doInference(SMART_TURN_METHOD, request));
    if ('error' in answer) throw new Error(answer.error);
    // The first ask warms the session up: not counted.
    if (i === 0) continue;
    ask.push(now() - askedAt);
    features.push(answer.featuresMs);
    model.push(answer.inferenceMs);
  }
  console.log(`| inference process | ${name} | ${p(features)} | ${p(model)} | ${p(ask)} |`);
}
console.log(`inference process after the asks: ${rssMb(proc.pid).toFixed(0)} MB RSS`);
await proc.close();

const before = rssMb('self');
const local = await SmartTurnModel.load(DEFAULT_SMART_TURN_MODEL);
for (const { name, speech } of cases) {
  const features: number[] = [];
  const model: number[] = [];
  for (let i = 0; i <= asks; i++) {
    const score = await local.score(speech);
    if (i === 0) continue;
    features.push(score.featuresMs);
    model.push(score.inferenceMs);
  }
  console.log(`| in process (event loop) | ${name} | ${p(features)} | ${p(model)} | — |`);
}
console.log(`\nthis process: ${before.toFixed(0)} MB RSS before loading Smart Turn, ${rssMb('self').toFixed(0)} MB after its asks`);
await local.close();
