import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ESPEAK_PACKAGE, LocalVoiceError, voiceNotInstalledError } from './errors.js';
import type { SynthesizeJob, VoiceLanguage, WorkerInput, WorkerReply } from './worker-messages.js';

export interface SynthesisCallbacks {
  /** A block of 16-bit mono samples at {@link EspeakSynthesizer.sampleRate}. */
  onAudio(samples: Int16Array): void;
}

interface PendingJob {
  job: SynthesizeJob;
  callbacks: SynthesisCallbacks;
  signal?: AbortSignal;
  resolve(): void;
  reject(error: Error): void;
}

/**
 * The main-thread side of the eSpeak-NG worker: one worker, one FIFO of jobs. Only one job is in
 * the worker at a time, so a job whose caller went away (aborted) is dropped before it costs
 * anything rather than after.
 */
export class EspeakSynthesizer {
  readonly sampleRate: number;
  #worker: Worker;
  #queue: PendingJob[] = [];
  #running?: PendingJob;
  #nextJobId = 0;
  #closed = false;

  private constructor(worker: Worker, sampleRate: number) {
    this.#worker = worker;
    this.sampleRate = sampleRate;
    worker.on('message', (reply: WorkerReply) => this.#onReply(reply));
    worker.on('error', (error) => this.#failAll(new LocalVoiceError('VOICE_FAILED', `The local voice worker crashed: ${error.message}`)));
    worker.on('exit', () => this.#failAll(new LocalVoiceError('VOICE_FAILED', 'The local voice worker stopped.')));
  }

  /** Starts the worker and waits until the voice is loaded (about 100–300 ms). */
  static async start(options: { espeakModule?: string } = {}): Promise<EspeakSynthesizer> {
    const espeakModule = options.espeakModule ?? ESPEAK_PACKAGE;
    if (espeakModule === ESPEAK_PACKAGE) assertVoiceInstalled();
    const worker = spawnWorker({ espeakModule });
    try {
      const sampleRate = await waitUntilReady(worker);
      return new EspeakSynthesizer(worker, sampleRate);
    } catch (error) {
      await worker.terminate();
      throw error;
    }
  }

  /** Resolves when the whole text has been voiced; audio arrives through `callbacks` before that. */
  synthesize(text: string, language: VoiceLanguage, callbacks: SynthesisCallbacks, signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(new LocalVoiceError('VOICE_FAILED', 'The local voice is closed.'));
    return new Promise<void>((resolve, reject) => {
      const job: SynthesizeJob = { type: 'synthesize', jobId: this.#nextJobId++, text, language };
      this.#queue.push({ job, callbacks, signal, resolve, reject });
      this.#pump();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#worker.removeAllListeners('exit');
    this.#failAll(new LocalVoiceError('VOICE_FAILED', 'The local voice is closed.'));
    await this.#worker.terminate();
  }

  #pump(): void {
    while (!this.#running && this.#queue.length > 0) {
      const next = this.#queue.shift()!;
      if (next.signal?.aborted) {
        next.resolve();
        continue;
      }
      this.#running = next;
      this.#worker.postMessage(next.job);
    }
  }

  #onReply(reply: WorkerReply): void {
    const running = this.#running;
    if (!running || !('jobId' in reply) || reply.jobId !== running.job.jobId) return;
    if (reply.type === 'audio') {
      if (!running.signal?.aborted) running.callbacks.onAudio(reply.samples);
      return;
    }
    this.#running = undefined;
    if (reply.type === 'done') running.resolve();
    else if (reply.type === 'failed') running.reject(new LocalVoiceError('VOICE_FAILED', `eSpeak-NG failed: ${reply.message}`));
    this.#pump();
  }

  #failAll(error: Error): void {
    const pending = [...(this.#running ? [this.#running] : []), ...this.#queue];
    this.#running = undefined;
    this.#queue = [];
    this.#closed = true;
    for (const job of pending) job.reject(error);
  }
}

function assertVoiceInstalled(): void {
  try {
    createRequire(import.meta.url).resolve(ESPEAK_PACKAGE);
  } catch (error) {
    throw voiceNotInstalledError(error);
  }
}

/**
 * Under tsx or vitest this module is TypeScript source. Node 20 does not apply loader hooks passed
 * through a worker's `execArgv` to the worker's entry file, so a TypeScript worker is started
 * through a one-line bootstrap that registers tsx inside the worker first. A compiled build
 * runs the `.js` worker directly.
 */
function spawnWorker(input: WorkerInput): Worker {
  const options = { workerData: input, stdout: false, stderr: false };
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(fileURLToPath(new URL('./synth-worker.js', import.meta.url)), options);
  }
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsxApi = pathToFileURL(path.join(tsxRoot, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./synth-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

function waitUntilReady(worker: Worker): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const cleanup = () => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: WorkerReply) => {
      if (reply.type === 'ready') {
        cleanup();
        resolve(reply.sampleRate);
      } else if (reply.type === 'init-failed') {
        cleanup();
        reject(reply.missing ? voiceNotInstalledError(reply.message) : new LocalVoiceError('VOICE_FAILED', `The local voice could not load: ${reply.message}`));
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(new LocalVoiceError('VOICE_FAILED', `The local voice worker failed to start: ${error.message}`));
    };
    const onExit = (code: number) => {
      cleanup();
      reject(new LocalVoiceError('VOICE_FAILED', `The local voice worker exited during start-up (code ${code}).`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
