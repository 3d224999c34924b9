/**
 * Smart Turn in the worker's inference process: the runner answers as the in-process model does
 * on the same speech, says why when it cannot; a call's model sends that runner base64 PCM and
 * hands back its answer; the worker registers the runner only for TURN_DETECTOR=combined.
 * Needs models/smart-turn-v3.2-cpu.onnx (scripts/ensure-test-components.sh).
 */
import { InferenceRunner, initializeLogger } from '@livekit/agents';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, floatToPcm, pcmToFloat } from '../../src/turn/smart-turn.js';
import { ExecutorTurnModel, registerSmartTurnRunner } from '../../src/turn/smart-turn-executor.js';
import SmartTurnRunner, { SMART_TURN_METHOD, type SmartTurnAnswer } from '../../src/turn/smart-turn-runner.js';
import { pipecatProbability, referenceSignal } from './smart-turn-signal.js';
import { WORKER_TEST_ENV } from '../helpers/config.js';

initializeLogger({ pretty: false, level: 'silent' });

const base64 = (pcm: Int16Array): string => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');

/** The inference process reads the worker's environment, as the worker's jobs do. */
function stubWorkerEnv(extra: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries({ ...WORKER_TEST_ENV, ...extra })) vi.stubEnv(name, value);
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('SmartTurnRunner', () => {
  let runner: SmartTurnRunner;
  beforeEach(() => {
    runner = new SmartTurnRunner();
  });
  afterEach(async () => {
    await runner.close();
  });

  it('gives the in-process model\'s probability for the reference speech, with its cost', { timeout: 60_000 }, async () => {
    stubWorkerEnv();
    await runner.initialize();
    const pcm = floatToPcm(referenceSignal());
    const answer = await runner.run({ pcm: base64(pcm) });
    const model = await SmartTurnModel.load(DEFAULT_SMART_TURN_MODEL);
    try {
      const inProcess = await model.predict(pcmToFloat(pcm));
      expect(answer).toMatchObject({ probability: expect.closeTo(inProcess, 6) });
    } finally {
      await model.close();
    }
    // Still pipecat's answer: 16-bit PCM loses nothing the model hears.
    expect(Math.abs((answer as { probability: number }).probability - pipecatProbability())).toBeLessThan(2e-3);
    const { featuresMs, inferenceMs } = answer as { featuresMs: number; inferenceMs: number };
    expect(featuresMs).toBeGreaterThan(0);
    expect(inferenceMs).toBeGreaterThan(0);
  });

  it('reads TURN_AUDIO_MODEL and, without the model, answers why', async () => {
    stubWorkerEnv({ TURN_AUDIO_MODEL: '/nonexistent/smart-turn.onnx' });
    await runner.initialize();
    const answer = await runner.run({ pcm: base64(new Int16Array(1600)) });
    expect(answer).toEqual({ error: expect.stringMatching(/\/nonexistent\/smart-turn\.onnx.*ensure-smart-turn\.sh/) });
  });

  it('answers a request that is not 16-bit PCM in base64 with what is wrong', async () => {
    stubWorkerEnv();
    await runner.initialize();
    expect(await runner.run({ pcm: 'not base64!' })).toEqual({ error: expect.stringMatching(/base64 of 16 kHz s16le/) });
    expect(await runner.run({} as { pcm: string })).toEqual({ error: expect.stringMatching(/needs `pcm`/) });
    expect(await runner.run({ pcm: Buffer.from([1, 2, 3]).toString('base64') })).toEqual({ error: expect.stringMatching(/3 bytes/) });
  });
});

describe('ExecutorTurnModel', () => {
  function fakeLogger() {
    return { debug: vi.fn(), warn: vi.fn() };
  }

  it('sends the speech as base64 16-bit PCM and returns the runner\'s answer, logging its cost', async () => {
    const asked: { method: string; data: unknown }[] = [];
    const executor = {
      doInference: async (method: string, data: unknown) => {
        asked.push({ method, data });
        return { probability: 0.83, featuresMs: 21.4, inferenceMs: 9.2 } satisfies SmartTurnAnswer;
      },
    };
    const logger = fakeLogger();
    const model = new ExecutorTurnModel(executor, () => logger as never);
    const pcm = Int16Array.from([0, 1, -1, 32767, -32768, 1234, -4321]);
    expect(await model.predict(pcmToFloat(pcm))).toBe(0.83);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.method).toBe(SMART_TURN_METHOD);
    const sent = Buffer.from((asked[0]!.data as { pcm: string }).pcm, 'base64');
    expect(Array.from(new Int16Array(new Uint8Array(sent).buffer))).toEqual(Array.from(pcm));
    expect(logger.debug).toHaveBeenCalledWith(expect.objectContaining({ probability: 0.83, featuresMs: 21.4, inferenceMs: 9.2 }), 'Smart Turn answered');
  });

  it('rejects with the runner\'s reason and warns once per call', async () => {
    const logger = fakeLogger();
    const model = new ExecutorTurnModel({ doInference: async () => ({ error: 'Smart Turn model not found at /x.onnx' }) }, () => logger as never);
    await expect(model.predict(new Float32Array(160))).rejects.toThrow(/not found at \/x\.onnx/);
    await expect(model.predict(new Float32Array(160))).rejects.toThrow(/not found at \/x\.onnx/);
    expect(logger.warn).toHaveBeenCalledOnce();
  });

  it('rejects an answer that is not a score, and an executor that fails', async () => {
    const odd = new ExecutorTurnModel({ doInference: async () => ({ probability: 'high' }) }, () => fakeLogger() as never);
    await expect(odd.predict(new Float32Array(160))).rejects.toThrow(/something else than a Smart Turn score/);
    const down = new ExecutorTurnModel({ doInference: async () => Promise.reject(new Error('no inference executor')) }, () => fakeLogger() as never);
    await expect(down.predict(new Float32Array(160))).rejects.toThrow(/did not answer: no inference executor/);
  });
});

describe('registerSmartTurnRunner', () => {
  it('registers the runner only for TURN_DETECTOR=combined, once, at a file that exists', () => {
    for (const detector of ['transcript', 'off', 'audio'] as const) {
      expect(registerSmartTurnRunner(detector)).toBe(false);
      expect(InferenceRunner.registeredRunners[SMART_TURN_METHOD]).toBeUndefined();
    }
    expect(registerSmartTurnRunner('combined')).toBe(true);
    expect(registerSmartTurnRunner('combined')).toBe(true);
    const url = InferenceRunner.registeredRunners[SMART_TURN_METHOD]!;
    // Under tsx (this test) the source itself; built, the .js beside the compiled caller.
    expect(url).toMatch(/\/src\/turn\/smart-turn-runner\.ts$/);
    expect(existsSync(fileURLToPath(url))).toBe(true);
    delete InferenceRunner.registeredRunners[SMART_TURN_METHOD];
  });
});
