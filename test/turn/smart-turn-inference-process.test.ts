/**
 * The worker's path end to end, without a room: the runner registered as the worker registers it,
 * the framework's own inference process forked for it (as the worker forks it), and a call's
 * model asking it over that process's IPC: the answer is the in-process model's.
 * Needs models/smart-turn-v3.2-cpu.onnx (scripts/ensure-test-components.sh).
 */
import { InferenceRunner, initializeLogger } from '@livekit/agents';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, floatToPcm, pcmToFloat } from '../../src/turn/smart-turn.js';
import { ExecutorTurnModel, registerSmartTurnRunner } from '../../src/turn/smart-turn-executor.js';
import { SMART_TURN_METHOD } from '../../src/turn/smart-turn-runner.js';
import { referenceSignal } from './smart-turn-signal.js';
import { WORKER_TEST_ENV } from '../helpers/config.js';
import { type InferenceProcess, startInferenceProcess } from '../helpers/inference-process.js';

initializeLogger({ pretty: false, level: 'silent' });

describe('Smart Turn in the framework\'s inference process', () => {
  let executor: InferenceProcess | undefined;

  beforeAll(async () => {
    for (const [name, value] of Object.entries(WORKER_TEST_ENV)) vi.stubEnv(name, value);
    expect(registerSmartTurnRunner('combined')).toBe(true);
    executor = await startInferenceProcess();
  }, 60_000);

  afterAll(async () => {
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
