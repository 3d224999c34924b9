/**
 * What one Smart Turn answer costs a worker (TURN_DETECTOR=combined), per pause: asked of the
 * worker's inference process as a call asks it (front end, model, and the whole ask with its IPC
 * and base64), and, for comparison, in the asking process as the offline tools run it. Also the
 * memory the model takes in a process that already runs Silero (as a job process does), which a
 * job process no longer pays.
 *
 *   npx tsx bench/turn/smart-turn-cost.ts [--asks 20]
 *
 * Sequential asks, one at a time: the cost of a pause, not a load test. Needs
 * models/smart-turn-v3.2-cpu.onnx (`bash scripts/peers/ensure-smart-turn.sh`).
 */
import { initializeLogger } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { now } from '../../src/latency/clock.js';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, type SmartTurnScore, floatToPcm, pcmToFloat } from '../../src/turn/smart-turn.js';
import { registerSmartTurnRunner, smartTurnRequest } from '../../src/turn/smart-turn-executor.js';
import { SMART_TURN_ANSWER, SMART_TURN_METHOD } from '../../src/turn/smart-turn-runner.js';
import { SAMPLE_RATE } from '../../src/turn/whisper-features.js';
import { WORKER_TEST_ENV } from '../../test/helpers/config.js';
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

interface Costs {
  features: number[];
  model: number[];
  ask: number[];
}

/** `asks` answers after one that warms the session up (not counted). */
async function measure(answer: () => Promise<SmartTurnScore>): Promise<Costs> {
  const costs: Costs = { features: [], model: [], ask: [] };
  for (let i = 0; i <= asks; i++) {
    const askedAt = now();
    const score = await answer();
    if (i === 0) continue;
    costs.ask.push(now() - askedAt);
    costs.features.push(score.featuresMs);
    costs.model.push(score.inferenceMs);
  }
  return costs;
}

console.log(`| where | speech | features p50 / p90 ms | model p50 / p90 ms | whole ask p50 / p90 ms |\n|---|---|---|---|---|`);
const rss: string[] = [];

// The inference process reads the worker's configuration from its environment (TURN_AUDIO_MODEL).
for (const [name, value] of Object.entries(WORKER_TEST_ENV)) process.env[name] ??= value;
registerSmartTurnRunner('combined');
const proc = await startInferenceProcess();
try {
  rss.push(`inference process with Smart Turn loaded: ${rssMb(proc.pid).toFixed(0)} MB RSS`);
  for (const { name, speech } of cases) {
    const request = smartTurnRequest(speech);
    const costs = await measure(async () => {
      const answer = SMART_TURN_ANSWER.parse(await proc.doInference(SMART_TURN_METHOD, request));
      if ('error' in answer) throw new Error(answer.error);
      return answer;
    });
    console.log(`| inference process | ${name} | ${p(costs.features)} | ${p(costs.model)} | ${p(costs.ask)} |`);
  }
  rss.push(`inference process after its answers: ${rssMb(proc.pid).toFixed(0)} MB RSS`);
} finally {
  await proc.close();
}

// A job process already runs Silero through onnxruntime: what Smart Turn adds is measured on top.
const vad = await silero.VAD.load();
const before = rssMb('self');
const local = await SmartTurnModel.load(DEFAULT_SMART_TURN_MODEL);
const loaded = rssMb('self');
try {
  for (const { name, speech } of cases) {
    const costs = await measure(() => local.score(speech));
    console.log(`| this process (its event loop) | ${name} | ${p(costs.features)} | ${p(costs.model)} | ${p(costs.ask)} |`);
  }
  rss.push(`this process, Silero loaded: ${before.toFixed(0)} MB RSS; Smart Turn loaded: ${loaded.toFixed(0)} MB; after its answers: ${rssMb('self').toFixed(0)} MB`);
} finally {
  await local.close();
  await vad.close();
}
console.log(`\n${rss.join('\n')}`);
