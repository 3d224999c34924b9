/**
 * The worker's path end to end, without a room: the runner registered as the worker registers it,
 * the framework's own inference process forked for it (as the worker forks it), and a call's
 * model asking it over that process's IPC: the answer is the in-process model's.
 * Needs models/smart-turn-v3.2-cpu.onnx (scripts/ensure-test-components.sh).
 */
import { InferenceRunner, initializeLogger } from '@livekit/agents';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, floatToPcm, pcmToFloat } from '../../src/turn/smart-turn.js';
import { ExecutorTurnModel, registerSmartTurnRunner } from '../../src/turn/smart-turn-executor.js';
import { SMART_TURN_METHOD } from '../../src/turn/smart-turn-runner.js';
import { referenceSignal } from './smart-turn-signal.js';
import { WORKER_TEST_ENV } from '../helpers/config.js';

initializeLogger({ pretty: false, level: 'silent' });

interface Executor {
  start(): Promise<void>;
  initialize(): Promise<void>;
  close(): Promise<void>;
  doInference(method: string, data: unknown): Promise<unknown>;
}

/** The framework's executor is internal (not in its exports): taken from its build, as its worker uses it. */
async function frameworkExecutor(): Promise<Executor | undefined> {
  const agentsDist = dirname(createRequire(import.meta.url).resolve('@livekit/agents'));
  const module = (await import(pathToFileURL(join(agentsDist, 'ipc/inference_proc_executor.js')).href)) as { InferenceProcExecutor: { createIfNeeded(): Executor | undefined } };
  return module.InferenceProcExecutor.createIfNeeded();
}

describe('Smart Turn in the framework\'s inference process', () => {
  let executor: Executor | undefined;
  const execArgv = process.execArgv;

  beforeAll(async () => {
    for (const [name, value] of Object.entries(WORKER_TEST_ENV)) vi.stubEnv(name, value);
    // The process is forked with this one's loader flags; `npm run dev` runs under tsx, as here.
    process.execArgv = [...execArgv, '--import', 'tsx'];
    expect(registerSmartTurnRunner('combined')).toBe(true);
    executor = await frameworkExecutor();
    await executor!.start();
    await executor!.initialize();
  }, 60_000);

  afterAll(async () => {
    process.execArgv = execArgv;
    vi.unstubAllEnvs();
    await executor?.close();
    delete InferenceRunner.registeredRunners[SMART_TURN_METHOD];
  });

  it('answers a call\'s pause as the in-process model does', async () => {
    const speech = pcmToFloat(floatToPcm(referenceSignal()));
    const remote = await new ExecutorTurnModel(executor!).predict(speech);
    const model = await SmartTurnModel.load(DEFAULT_SMART_TURN_MODEL);
    try {
      expect(remote).toBeCloseTo(await model.predict(speech), 6);
    } finally {
      await model.close();
    }
  });
});
