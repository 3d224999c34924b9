/**
 * The worker's Silero VAD, with onnxruntime's optimized graph kept on disk for the next process.
 *
 * Every call's job process loads Silero in its prewarm. onnxruntime then spends about half of the
 * load (70–100 ms of CPU on a 2-core machine, docs/benchmarks/2026-12-07-vad-graph.md) optimizing
 * the same graph again. The first process saves the graph it optimized into the directory the
 * worker hands its job processes for compiled code (`NODE_COMPILE_CACHE`, ../lifecycle/compile-cache.ts);
 * the ones after it load that graph as it is.
 *
 * Saved at onnxruntime's `extended` level, not `all`: `all` adds layout changes for this machine's
 * CPU, and an operator's `NODE_COMPILE_CACHE` may be shared by machines. Per window the two run
 * alike here.
 */
import { log } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { InferenceSession, env as onnxEnv } from 'onnxruntime-node';

/**
 * `@livekit/agents-plugin-silero` 1.9's options for `VAD.load()` (its `defaultVADOptions`, not
 * exported): the VAD is built from its constructor here, so they are repeated.
 * test/stt/silero-vad.test.ts checks that this VAD says what `VAD.load()`'s says, event for event.
 */
const PLUGIN_DEFAULTS: ConstructorParameters<typeof silero.VAD>[1] = {
  minSpeechDuration: 50,
  minSilenceDuration: 550,
  prefixPaddingDuration: 500,
  maxBufferedSpeech: 60_000,
  activationThreshold: 0.5,
  sampleRate: 16_000,
  forceCPU: true,
};

/** The plugin's session options (its onnx_model.ts `newInferenceSession`, forceCPU). */
const PLUGIN_SESSION: InferenceSession.SessionOptions = {
  interOpNumThreads: 1,
  intraOpNumThreads: 1,
  executionMode: 'sequential',
  executionProviders: [{ name: 'cpu' }],
};

const SAVED_LEVEL = 'extended';

/** The model file the plugin ships beside its code. */
export const SILERO_MODEL = join(dirname(createRequire(import.meta.url).resolve('@livekit/agents-plugin-silero')), 'silero_vad.onnx');

export interface SileroVadOptions {
  minSilenceDuration: number;
  /** Where optimized graphs are kept between processes; without it, each load optimizes its own. */
  cacheDir?: string;
}

/**
 * The saved graph's file: named by onnxruntime's version and the model's size, so neither an
 * upgrade of onnxruntime nor another model is ever served an older graph.
 */
export function optimizedGraphPath(cacheDir: string, model = SILERO_MODEL): string {
  return join(cacheDir, 'onnxruntime', `silero_vad-${onnxEnv.versions.node ?? onnxEnv.versions.common}-${statSync(model).size}-${SAVED_LEVEL}.onnx`);
}

/** Silero as `silero.VAD.load()` makes it, its graph optimized once per `cacheDir`. */
export async function loadSileroVad({ minSilenceDuration, cacheDir }: SileroVadOptions): Promise<silero.VAD> {
  const session = cacheDir === undefined ? await InferenceSession.create(SILERO_MODEL, PLUGIN_SESSION) : await cachedSession(cacheDir);
  return new silero.VAD(session, { ...PLUGIN_DEFAULTS, minSilenceDuration });
}

async function cachedSession(cacheDir: string): Promise<InferenceSession> {
  const saved = optimizedGraphPath(cacheDir);
  if (existsSync(saved)) {
    try {
      return await InferenceSession.create(saved, { ...PLUGIN_SESSION, graphOptimizationLevel: 'disabled' });
    } catch (error) {
      // A file cut short by a full disk, say: this process optimizes again and replaces it.
      log().warn({ file: saved, error: (error as Error).message }, 'the saved VAD graph does not load; optimizing the model again');
      rmSync(saved, { force: true });
    }
  }
  // Written under a name of its own, then renamed: a process starting beside this one reads a
  // whole graph or none.
  const writing = `${saved}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(saved), { recursive: true, mode: 0o700 });
    const session = await InferenceSession.create(SILERO_MODEL, { ...PLUGIN_SESSION, graphOptimizationLevel: SAVED_LEVEL, optimizedModelFilePath: writing });
    renameSync(writing, saved);
    return session;
  } catch (error) {
    log().warn({ dir: cacheDir, error: (error as Error).message }, 'the VAD graph cannot be saved; each job process optimizes its own');
    if (existsSync(writing)) rmSync(writing, { force: true });
    return InferenceSession.create(SILERO_MODEL, PLUGIN_SESSION);
  }
}
