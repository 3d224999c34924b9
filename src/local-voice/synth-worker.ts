// Runs eSpeak-NG (WebAssembly, synchronous) in a worker thread so that synthesis never blocks the
// main event loop, where the WebSocket server and the agent session live. The wasm and its 24 MB
// data file load once; jobs run one at a time in arrival order, and each block of samples is
// posted as soon as eSpeak produces it so the first audio leaves long before the sentence ends.
import { parentPort, workerData } from 'node:worker_threads';
import type { EspeakModule, EspeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import type { SynthesizeJob, VoiceLanguage, WorkerInput, WorkerReply } from './worker-messages.js';

const port = parentPort;
if (!port) throw new Error('synth-worker must run inside a worker thread');
const { espeakModule } = workerData as WorkerInput;

function post(reply: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(reply, transfer);
}

function isModuleMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

async function loadEngine(): Promise<EspeakNGWorker> {
  const imported = (await import(espeakModule)) as { default: () => Promise<EspeakModule> };
  const module = await imported.default();
  return new module.eSpeakNGWorker();
}

function runJob(engine: EspeakNGWorker, job: SynthesizeJob, current: { language?: VoiceLanguage }): void {
  try {
    if (current.language !== job.language) {
      const status = engine.set_voice(job.language);
      if (status !== 0) throw new Error(`eSpeak-NG has no voice for '${job.language}' (status ${status})`);
      current.language = job.language;
    }
    engine.synthesize(job.text, (samples) => {
      if (samples && samples.length > 0) {
        post({ type: 'audio', jobId: job.jobId, samples }, [samples.buffer as ArrayBuffer]);
      }
      return false;
    });
    post({ type: 'done', jobId: job.jobId });
  } catch (error) {
    post({ type: 'failed', jobId: job.jobId, message: error instanceof Error ? error.message : String(error) });
  }
}

try {
  const engine = await loadEngine();
  const current: { language?: VoiceLanguage } = {};
  port.on('message', (job: SynthesizeJob) => runJob(engine, job, current));
  post({ type: 'ready', sampleRate: engine.get_samplerate() });
} catch (error) {
  post({
    type: 'init-failed',
    missing: isModuleMissing(error),
    message: error instanceof Error ? error.message : String(error),
  });
}
