/**
 * The acknowledgement's decisions against a stand-in session: what is said, when, and what the
 * pending `slow` speech releases. Time is faked; nothing here sleeps.
 */
import { initializeLogger, llm, voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { EventEmitter } from 'node:events';
import type { ReadableStream } from 'node:stream/web';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AckDecision, AckLibrary, type CachedAck, attachAcknowledgement } from '../../src/ack/index.js';
import type { AckMode } from '../../src/config/index.js';
import { observeAgentTurns } from '../../src/latency/turn-signals.js';

function cachedAck(id: string, text: string): CachedAck {
  const frames = [1, 2].map((v) => new AudioFrame(new Int16Array(160).fill(v), 16000, 1, 160));
  return { id, language: id.startsWith('ko') ? 'ko' : 'en', text, frames, durationMs: 20 };
}

const LIBRARY = new AckLibrary([cachedAck('ko:0', '잠시만요.'), cachedAck('en:0', 'Sure, one moment.')], () => 0);

interface Said {
  text: ReadableStream<string>;
  audio: ReadableStream<AudioFrame>;
  options: { allowInterruptions?: boolean; addToChatCtx?: boolean };
  finish(): void;
}

/** Just what the controller touches: `say()` and the close event. */
class StandInSession extends EventEmitter {
  readonly said: Said[] = [];
  refuse = false;

  say(text: ReadableStream<string>, options: Said['options'] & { audio: ReadableStream<AudioFrame> }) {
    if (this.refuse) throw new Error('AgentSession is closing, cannot use say()');
    const callbacks: Array<() => void> = [];
    const handle = { id: `speech_${this.said.length}`, addDoneCallback: (cb: () => void) => callbacks.push(cb) };
    this.said.push({ text, audio: options.audio, options, finish: () => callbacks.forEach((cb) => cb()) });
    return handle;
  }
}

async function drain<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

describe('AckController', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));
  afterEach(() => vi.useRealTimers());

  function setup(mode: AckMode, slowMs = 500) {
    const session = new StandInSession();
    const agent = new voice.Agent({ instructions: 'test' });
    const ack = attachAcknowledgement(session as unknown as voice.AgentSession, { agent, library: LIBRARY, mode, slowMs });
    const decisions: AckDecision[] = [];
    ack.on('decision', (d) => decisions.push(d));
    const signals = observeAgentTurns(agent);
    const endTurn = (text: string) => {
      const message = llm.ChatMessage.create({ role: 'user', content: text });
      void agent.onUserTurnCompleted(llm.ChatContext.empty(), message);
      return message;
    };
    /** A draft generation for `text` (as the framework's preemptive LLM call would start). */
    const startGeneration = (text: string) => {
      const ctx = llm.ChatContext.empty();
      ctx.addMessage({ role: 'user', content: text });
      return signals._startGeneration(ctx);
    };
    const firstToken = (generation: ReturnType<typeof startGeneration>) => {
      generation.firstTokenAt = performance.now();
      signals.emit('llm_first_token', generation);
    };
    return { session, agent, ack, decisions, signals, endTurn, startGeneration, firstToken };
  }

  it('off: says nothing', () => {
    const { session, endTurn, decisions } = setup('off');
    endTurn('서울 날씨 어때요?');
    expect(session.said).toHaveLength(0);
    expect(decisions).toHaveLength(0);
  });

  it('always: says the phrase of the turn language at once, interruptible and outside the chat history', async () => {
    const { session, endTurn, decisions } = setup('always');
    endTurn('서울 날씨 어때요?');
    expect(session.said).toHaveLength(1);
    const [said] = session.said;
    expect(said!.options).toMatchObject({ allowInterruptions: true, addToChatCtx: false });
    expect(await drain(said!.text)).toEqual(['잠시만요.']);
    const frames = await drain(said!.audio);
    expect(frames.map((f) => f.data[0])).toEqual([1, 2]);
    expect(decisions).toMatchObject([{ outcome: 'played', reason: 'always', phraseId: 'ko:0', language: 'ko', speechId: 'speech_0' }]);
  });

  it('slow: queues nothing when a draft for this transcript already has its first token', () => {
    const { session, endTurn, startGeneration, firstToken, decisions } = setup('slow');
    firstToken(startGeneration('What time is it?'));
    endTurn('  what time is it? ');
    expect(session.said).toHaveLength(0);
    expect(decisions).toMatchObject([{ outcome: 'skipped', reason: 'llm_ready', language: 'en' }]);
  });

  it('slow: a draft for another transcript does not count', async () => {
    vi.useFakeTimers();
    const { session, endTurn, startGeneration, firstToken, decisions } = setup('slow', 500);
    firstToken(startGeneration('Something else'));
    endTurn('What time is it?');
    expect(session.said).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(decisions).toMatchObject([{ outcome: 'played', reason: 'slow_llm', phraseId: 'en:0' }]);
  });

  it('slow: a question repeated from the turn before is not taken as already answered', async () => {
    vi.useFakeTimers();
    const { session, endTurn, startGeneration, firstToken, decisions } = setup('slow', 500);
    endTurn('What time is it?');
    firstToken(startGeneration('What time is it?'));
    expect(decisions).toMatchObject([{ outcome: 'skipped', reason: 'llm_ready' }]);
    endTurn('What time is it?');
    expect(session.said).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(decisions[1]).toMatchObject({ outcome: 'played', reason: 'slow_llm' });
  });

  it('slow: the first token before the deadline closes the queued ack empty', async () => {
    vi.useFakeTimers();
    const { session, endTurn, startGeneration, firstToken, decisions } = setup('slow', 500);
    const message = endTurn('What time is it?');
    expect(session.said).toHaveLength(1);
    const generation = startGeneration(message.textContent!);
    await vi.advanceTimersByTimeAsync(499);
    expect(decisions).toHaveLength(0);
    firstToken(generation);
    expect(decisions).toMatchObject([{ outcome: 'skipped', reason: 'llm_ready', speechId: 'speech_0' }]);
    expect(await drain(session.said[0]!.text)).toEqual([]);
    expect(await drain(session.said[0]!.audio)).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(decisions).toHaveLength(1);
  });

  it('slow: a silent LLM past the deadline releases the phrase', async () => {
    vi.useFakeTimers();
    const { session, endTurn, startGeneration, firstToken, decisions } = setup('slow', 500);
    const message = endTurn('What time is it?');
    const generation = startGeneration(message.textContent!);
    await vi.advanceTimersByTimeAsync(500);
    expect(decisions).toMatchObject([{ outcome: 'played', reason: 'slow_llm', phraseId: 'en:0' }]);
    firstToken(generation);
    expect(decisions).toHaveLength(1);
    expect(await drain(session.said[0]!.text)).toEqual(['Sure, one moment.']);
    expect(await drain(session.said[0]!.audio)).toHaveLength(2);
  });

  it('slow: an ack interrupted while pending is closed empty and its timer dropped', async () => {
    vi.useFakeTimers();
    const { session, endTurn, decisions } = setup('slow', 500);
    endTurn('What time is it?');
    session.said[0]!.finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(decisions).toMatchObject([{ outcome: 'skipped', reason: 'interrupted' }]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(decisions).toHaveLength(1);
    expect(await drain(session.said[0]!.audio)).toEqual([]);
  });

  it('closing (or the session closing) ends pending acks empty and stops acknowledging', async () => {
    vi.useFakeTimers();
    const { session, endTurn, decisions } = setup('slow', 500);
    endTurn('What time is it?');
    session.emit(voice.AgentSessionEventTypes.Close, {});
    expect(decisions).toMatchObject([{ outcome: 'skipped', reason: 'closed' }]);
    expect(await drain(session.said[0]!.text)).toEqual([]);
    endTurn('Again?');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(session.said).toHaveLength(1);
    expect(decisions).toHaveLength(1);
  });

  it('a session that refuses new speech leaves the turn without an ack, and no error escapes', () => {
    const { session, endTurn, decisions } = setup('always');
    session.refuse = true;
    expect(() => endTurn('What time is it?')).not.toThrow();
    expect(decisions).toHaveLength(0);
  });
});
