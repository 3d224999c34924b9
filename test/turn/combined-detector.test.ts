/**
 * TURN_DETECTOR=combined in the framework's slot: it asks the audio model once per pause on the
 * VAD's segment, answers "finished" at once when the voice and fresh words agree, holds its answer
 * until the judgement's silence has passed when they do not, and gives up the moment the caller
 * speaks again.
 */
import { llm } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CombinedTurnDetector } from '../../src/turn/combined-detector.js';
import type { AudioTurnModel } from '../../src/turn/smart-turn.js';
import type { TurnPolicy } from '../../src/turn/turn-decision.js';

/** The tests' own policy, so that moving the worker's default (chosen on a sweep) leaves them as they are. */
const POLICY: TurnPolicy = { minSilenceMs: 300, maxSilenceMs: 1500, sureLevel: 0.8, unsureLevel: 0.25, backchannelLevel: 0.7 };

function said(text: string): llm.ChatContext {
  const ctx = llm.ChatContext.empty();
  ctx.addMessage({ role: 'user', content: text });
  return ctx;
}

class FakeModel implements AudioTurnModel {
  readonly heard: number[] = [];
  constructor(private readonly answer: number) {}
  async predict(samples: Float32Array): Promise<number> {
    this.heard.push(samples.length);
    return this.answer;
  }
  async close(): Promise<void> {}
}

const segment = (ms: number) => [new AudioFrame(new Int16Array(16 * ms), 16_000, 1, 16 * ms)];

function detector(model: AudioTurnModel | undefined) {
  return new CombinedTurnDetector({ model: Promise.resolve(model), policy: POLICY, wordLagMs: 300, clock: () => Date.now() });
}

/** Settles `promise` within `ms` of fake time, or reports it pending. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'pending'> {
  let result: T | 'pending' = 'pending';
  void promise.then((value) => (result = value));
  await vi.advanceTimersByTimeAsync(ms);
  return result;
}

describe('CombinedTurnDetector', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it('asks the model once per pause, on the segment, and takes a turn both call finished at once', async () => {
    const model = new FakeModel(0.95);
    const d = detector(model);
    d.onSpeechBoundary({ type: 'end', silenceMs: 350, frames: segment(1200) });
    expect(await within(d.predictEndOfTurn(said('What time do you open tomorrow?')), 0)).toBe(1);
    expect(model.heard).toEqual([1200 * 16]);
  });

  it('holds a turn whose words are stale until the judgement’s silence has passed', async () => {
    const d = detector(new FakeModel(0.95));
    // The VAD ends speech 250 ms after the last sound: words in this check may lack the last ones.
    d.onSpeechBoundary({ type: 'end', silenceMs: 250, frames: segment(1000) });
    const answer = d.predictEndOfTurn(said('I need a table.'));
    expect(await within(answer, 400)).toBe('pending');
    expect(await within(answer, POLICY.maxSilenceMs)).toBe(1);
  });

  it('gives up when the caller speaks again', async () => {
    const d = detector(new FakeModel(0.2));
    d.onSpeechBoundary({ type: 'end', silenceMs: 350, frames: segment(1000) });
    const answer = d.predictEndOfTurn(said('I need a table.'));
    expect(await within(answer, 100)).toBe('pending');
    d.onSpeechBoundary({ type: 'start', silenceMs: 0, frames: [] });
    expect(await within(answer, 0)).toBe(0);
  });

  it('the voice holds a turn the words call finished', async () => {
    const d = detector(new FakeModel(0.05));
    d.onSpeechBoundary({ type: 'end', silenceMs: 350, frames: segment(1000) });
    expect(await within(d.predictEndOfTurn(said('I need a table.')), 1000)).toBe('pending');
  });

  it('without the model, fresh words and the silence decide', async () => {
    const d = detector(undefined);
    d.onSpeechBoundary({ type: 'end', silenceMs: 350, frames: segment(1000) });
    expect(await within(d.predictEndOfTurn(said('Can you check my order?')), 0)).toBe(1);
    d.onSpeechBoundary({ type: 'start', silenceMs: 0, frames: [] });
    d.onSpeechBoundary({ type: 'end', silenceMs: 350, frames: segment(1000) });
    expect(await within(d.predictEndOfTurn(said('Can you check my order and')), 1000)).toBe('pending');
  });

  it('an acknowledgement fits only on the voice and words that cover the pause, when they agree', async () => {
    const d = detector(new FakeModel(0.9));
    d.onSpeechBoundary({ type: 'end', silenceMs: 250, frames: segment(1000) });
    // Stale words, the voice not in yet: nothing says the caller is done.
    expect(d.backchannelFits('Can you check my order?')).toBe(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(d.backchannelFits('Can you check my order?')).toBe(0);
    await vi.advanceTimersByTimeAsync(100);
    expect(d.backchannelFits('Can you check my order?')).toBe(1);
    expect(d.backchannelFits('Can you check my order and')).toBe(0);
  });
});
