/**
 * The framework's inference process, started as its worker starts it: for the runners registered
 * with `InferenceRunner.registerRunner` (tests, benches). The executor is internal to
 * `@livekit/agents` (not in its exports), so it is taken from the package's build.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface InferenceProcess {
  doInference(method: string, data: unknown): Promise<unknown>;
  close(): Promise<void>;
  /** The process's id, for its memory. */
  pid: number;
}

interface Executor {
  start(): Promise<void>;
  initialize(): Promise<void>;
  close(): Promise<void>;
  doInference(method: string, data: unknown): Promise<unknown>;
  proc?: { pid?: number };
}

export async function startInferenceProcess(): Promise<InferenceProcess> {
  const agentsDist = dirname(createRequire(import.meta.url).resolve('@livekit/agents'));
  const { InferenceProcExecutor } = (await import(pathToFileURL(join(agentsDist, 'ipc/inference_proc_executor.js')).href)) as {
    InferenceProcExecutor: { createIfNeeded(): Executor | undefined };
  };
  // The process is forked with this one's loader flags: a runner registered as .ts needs tsx there,
  // as `npm run dev` has it; vitest's own processes run without it.
  const execArgv = process.execArgv;
  if (!execArgv.some((flag) => flag.includes('tsx'))) process.execArgv = [...execArgv, '--import', 'tsx'];
  const executor = InferenceProcExecutor.createIfNeeded();
  if (!executor) throw new Error('no inference runner is registered');
  try {
    await executor.start();
    await executor.initialize();
  } finally {
    process.execArgv = execArgv;
  }
  return { doInference: (method, data) => executor.doInference(method, data), close: () => executor.close(), pid: executor.proc!.pid! };
}
