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

const WARM_UP = [
  ['ko', '안녕하세요, 오늘 날씨가 정말 좋네요. 무엇을 도와드릴까요? 서울은 맑고 기온은 이십삼 도예요.'],
  ['en-us', 'Hello there, the weather is lovely today. How can I help you? It is sunny and twenty degrees.'],
] as const;

/**
 * The first synthesis in each language pays for loading that voice's rules and dictionary, and the
 * first few run before V8 has optimized the WebAssembly (hundreds of ms on a busy machine, against
 * tens once warm). Doing it here keeps that cost out of the first turn's time to first audio.
 */
function warmUp(engine: EspeakNGWorker, current: { language?: VoiceLanguage }): void {
  for (const [language, text] of WARM_UP) {
    engine.set_voice(language);
    engine.synthesize(text, () => false);
    current.language = language;
  }
}

try {
  const engine = await loadEngine();
  const current: { language?: VoiceLanguage } = {};
  warmUp(engine, current);
  port.on('message', (job: SynthesizeJob) => runJob(engine, job, current));
  post({ type: 'ready', sampleRate: engine.get_samplerate() });
} catch (error) {
  post({
    type: 'init-failed',
    missing: isModuleMissing(error),
    message: error instanceof Error ? error.message : String(error),
  });
}
