/**
 * The TypeScript Whisper log-mel front end against pipecat's own (numpy) one, on the synthetic
 * signal both evaluate (test/turn/smart-turn-signal.ts): the features of
 * test/turn/fixtures/smart-turn-reference.json, made by scripts/peers/smart-turn-fixture.py.
 */
import { describe, expect, it } from 'vitest';
import { N_FRAMES, N_MELS, WINDOW_SAMPLES, modelWindow, whisperLogMel } from '../../src/turn/whisper-features.js';
import { REFERENCE, referenceSignal } from './smart-turn-signal.js';

describe('whisperLogMel', () => {
  const signal = referenceSignal();
  const features = whisperLogMel(signal);

  it('evaluates the same signal as the reference', () => {
    expect(signal.length).toBe(REFERENCE.signalSamples);
    expect(signal.reduce((s, v) => s + v, 0)).toBeCloseTo(REFERENCE.signalSum, 6);
  });

  it('has the model input shape', () => {
    expect([N_MELS, N_FRAMES]).toEqual(REFERENCE.shape);
    expect(features.length).toBe(N_MELS * N_FRAMES);
  });

  it('matches pipecat\'s features frame by frame', () => {
    let worst = 0;
    for (const [frame, mels] of Object.entries(REFERENCE.frames)) {
      mels.forEach((expected, mel) => {
        worst = Math.max(worst, Math.abs(features[mel * N_FRAMES + Number(frame)]! - expected));
      });
    }
    expect(worst).toBeLessThan(2e-5);
  });

  it('matches its range and mean', () => {
    expect(Math.min(...features)).toBeCloseTo(REFERENCE.min, 5);
    expect(Math.max(...features)).toBeCloseTo(REFERENCE.max, 5);
    expect(features.reduce((s, v) => s + v, 0) / features.length).toBeCloseTo(REFERENCE.mean, 5);
  });
});

describe('modelWindow', () => {
  it('pads short audio with zeros on the left and keeps the last 8 s of long audio', () => {
    const short = modelWindow(Float32Array.of(1, 2, 3));
    expect(short.length).toBe(WINDOW_SAMPLES);
    expect([...short.slice(-4)]).toEqual([0, 1, 2, 3]);
    const long = Float32Array.from({ length: WINDOW_SAMPLES + 5 }, (_, i) => i);
    expect(modelWindow(long)[0]).toBe(5);
  });
});
