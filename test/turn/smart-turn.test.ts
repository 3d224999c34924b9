/**
 * Smart Turn v3.2 through onnxruntime-node, fed by the TypeScript front end, answers as pipecat's
 * Python pipeline does on the same signal and the same CPU; a missing model file is a clear error naming the script
 * that installs it. Needs models/smart-turn-v3.2-cpu.onnx and .venv-peers (scripts/ensure-test-components.sh).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SMART_TURN_MODEL, SmartTurnModel, SmartTurnModelMissingError } from '../../src/turn/smart-turn.js';
import { pipecatProbability, referenceSignal } from './smart-turn-signal.js';

describe('SmartTurnModel', () => {
  it('gives pipecat\'s probability for the reference signal', { timeout: 60_000 }, async () => {
    const model = await SmartTurnModel.load(DEFAULT_SMART_TURN_MODEL);
    try {
      const probability = await model.predict(referenceSignal());
      // Python's onnxruntime is another build than Node's: on one CPU their int8 kernels differ in the last bits.
      expect(Math.abs(probability - pipecatProbability())).toBeLessThan(2e-3);
    } finally {
      await model.close();
    }
  });

  it('names the install script when the file is missing', async () => {
    const missing = SmartTurnModel.load('/nonexistent/smart-turn.onnx');
    await expect(missing).rejects.toBeInstanceOf(SmartTurnModelMissingError);
    await expect(missing).rejects.toThrow(/ensure-smart-turn\.sh/);
  });
});
