/**
 * TURN_DETECTOR=combined as the worker builds it: it follows the session VAD's boundaries, an
 * unusable model leaves the words and the silence deciding, and without the VAD's boundaries it
 * falls back to the transcript rules; the early ack then asks the combined judgement and never
 * the silence alone.
 */
import { type VADEvent, VADEventType, initializeLogger, llm } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { CombinedTurnDetector } from '../../src/turn/combined-detector.js';
import { createTurnDetection, earlyAckJudge } from '../../src/turn/detection.js';
import { SMART_TURN_METHOD } from '../../src/turn/smart-turn-runner.js';
import { TranscriptTurnDetector } from '../../src/turn/transcript-detector.js';

initializeLogger({ pretty: false, level: 'silent' });

function feed() {
  const listeners = new Set<(event: VADEvent) => void>();
  return {
    listeners,
    subscribe(listener: (event: VADEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

describe('createTurnDetection("combined")', () => {
  it('follows the VAD and, with no model at the path, decides on fresh words and the silence', async () => {
    const speech = feed();
    const detection = createTurnDetection('combined', { speech }, { minDelayMs: 300, maxDelayMs: 1500, audioModelPath: '/nonexistent/model.onnx' });
    expect(detection).toBeInstanceOf(CombinedTurnDetector);
    expect(speech.listeners.size).toBe(1);
    const end = { type: VADEventType.END_OF_SPEECH, silenceDuration: 400, frames: [] } as unknown as VADEvent;
    for (const listener of speech.listeners) listener(end);
    const ctx = llm.ChatContext.empty();
    ctx.addMessage({ role: 'user', content: 'What time do you open tomorrow?' });
    expect(await (detection as CombinedTurnDetector).predictEndOfTurn(ctx)).toBe(1);
    expect(earlyAckJudge(detection).silenceMayDecide).toBe(false);
  });

  it('asks the worker\'s Smart Turn through the job\'s inference executor, not a model of its own', async () => {
    const speech = feed();
    const asked: string[] = [];
    const inferenceExecutor = {
      doInference: async (method: string) => {
        asked.push(method);
        return { probability: 0.9, featuresMs: 20, inferenceMs: 8 };
      },
    };
    // No model at the path: only the executor can answer.
    const detection = createTurnDetection('combined', { inferenceExecutor, speech }, { minDelayMs: 300, maxDelayMs: 1500, audioModelPath: '/nonexistent/model.onnx' });
    const frames = [new AudioFrame(new Int16Array(16_000), 16_000, 1, 16_000)];
    const end = { type: VADEventType.END_OF_SPEECH, silenceDuration: 400, frames } as unknown as VADEvent;
    for (const listener of speech.listeners) listener(end);
    const ctx = llm.ChatContext.empty();
    ctx.addMessage({ role: 'user', content: 'What time do you open tomorrow?' });
    expect(await (detection as CombinedTurnDetector).predictEndOfTurn(ctx)).toBe(1);
    expect(asked).toEqual([SMART_TURN_METHOD]);
  });

  it('falls back to the transcript rules without the VAD’s boundaries', () => {
    const detection = createTurnDetection('combined', {});
    expect(detection).toBeInstanceOf(TranscriptTurnDetector);
    expect(earlyAckJudge(detection).silenceMayDecide).toBe(true);
  });
});
