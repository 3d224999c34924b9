/**
 * The agent hooks behind the turn stamps: `onUserTurnCompleted` and `llmNode`, wrapped on an
 * Agent instance. The original `llmNode` is replaced by a controllable stream before wrapping.
 */
import { llm, voice } from '@livekit/agents';
import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';
import { describe, expect, it } from 'vitest';
import { type LlmGeneration, answers, observeAgentTurns } from '../../src/latency/turn-signals.js';

type Chunk = llm.ChatChunk | string;

function agentWithScriptedLlm() {
  const agent = new voice.Agent({ instructions: 'test' });
  let controller!: ReadableStreamDefaultController<Chunk>;
  let sourceCancelled: unknown;
  const calls: string[] = [];
  agent.llmNode = async () => {
    calls.push('llmNode');
    return new ReadableStream<Chunk>({
      start: (c) => void (controller = c),
      cancel: (reason) => void (sourceCancelled = reason ?? 'cancelled'),
    }) as unknown as Awaited<ReturnType<voice.Agent['llmNode']>>;
  };
  return { agent, calls, push: (c: Chunk) => controller.enqueue(c), end: () => controller.close(), cancelled: () => sourceCancelled };
}

function contextFor(text: string): { ctx: llm.ChatContext; message: llm.ChatMessage } {
  const ctx = llm.ChatContext.empty();
  ctx.addMessage({ role: 'system', content: 'be brief' });
  const message = ctx.addMessage({ role: 'user', content: text });
  return { ctx, message };
}

async function openNode(agent: voice.Agent, ctx: llm.ChatContext) {
  const stream = (await agent.llmNode(ctx, {} as never, {} as never)) as unknown as ReadableStream<Chunk>;
  return stream.getReader();
}

describe('observeAgentTurns', () => {
  it('announces the turn before the agent’s own hook runs, then runs it with the same arguments', async () => {
    const agent = new voice.Agent({ instructions: 'test' });
    const order: string[] = [];
    const seen: unknown[] = [];
    agent.onUserTurnCompleted = async (ctx, msg) => {
      order.push('hook');
      seen.push(ctx, msg);
    };
    const signals = observeAgentTurns(agent);
    signals.on('user_turn_completed', (ev) => order.push(`signal:${ev.message.textContent}`));
    const { ctx, message } = contextFor('hello');
    const done = agent.onUserTurnCompleted(ctx, message);
    expect(order).toEqual(['signal:hello', 'hook']);
    await done;
    expect(seen).toEqual([ctx, message]);
  });

  it('is idempotent: one set of signals per agent, one announcement per turn', () => {
    const agent = new voice.Agent({ instructions: 'test' });
    const signals = observeAgentTurns(agent);
    expect(observeAgentTurns(agent)).toBe(signals);
    let count = 0;
    signals.on('user_turn_completed', () => count++);
    void agent.onUserTurnCompleted(llm.ChatContext.empty(), contextFor('x').message);
    expect(count).toBe(1);
  });

  it('stamps the request, the first chunk with output (not a usage-only one), and the end', async () => {
    const { agent, push, end } = agentWithScriptedLlm();
    const signals = observeAgentTurns(agent);
    const events: string[] = [];
    let generation: LlmGeneration | undefined;
    signals.on('llm_request', (g) => {
      generation = g;
      events.push('request');
    });
    signals.on('llm_first_token', () => events.push('first_token'));
    signals.on('llm_end', (g) => events.push(`end:${g.cancelled}`));

    const { ctx, message } = contextFor('What time is it?');
    const reader = await openNode(agent, ctx);
    expect(events).toEqual(['request']);
    expect(generation).toMatchObject({ userMessageId: message.id, userText: 'What time is it?', cancelled: false });

    push({ id: 'a', usage: { completionTokens: 0, promptTokens: 5, promptCachedTokens: 0, totalTokens: 5 } });
    expect((await reader.read()).value).toMatchObject({ id: 'a' });
    expect(events).toEqual(['request']);
    push({ id: 'b', delta: { role: 'assistant', content: 'It is' } });
    expect((await reader.read()).value).toMatchObject({ delta: { content: 'It is' } });
    expect(events).toEqual(['request', 'first_token']);
    expect(generation!.firstTokenAt).toBeGreaterThanOrEqual(generation!.requestedAt);
    push(' nine.');
    expect((await reader.read()).value).toBe(' nine.');
    end();
    expect((await reader.read()).done).toBe(true);
    expect(events).toEqual(['request', 'first_token', 'end:false']);
  });

  it('reports each piece of reply text with its generation, without changing the stream', async () => {
    const { agent, push, end } = agentWithScriptedLlm();
    const signals = observeAgentTurns(agent);
    const seen: Array<[number, string]> = [];
    signals.on('llm_text', (g, token) => seen.push([g.id, token.text]));
    const reader = await openNode(agent, contextFor('hi').ctx);
    const out: unknown[] = [];
    push({ id: 'u', usage: { completionTokens: 0, promptTokens: 1, promptCachedTokens: 0, totalTokens: 1 } });
    push({ id: 'a', delta: { role: 'assistant', content: 'Hello' } });
    push(' to you.');
    end();
    for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
    expect(out).toEqual([expect.objectContaining({ id: 'u' }), expect.objectContaining({ id: 'a' }), ' to you.']);
    const id = seen[0]![0];
    expect(seen).toEqual([
      [id, 'Hello'],
      [id, ' to you.'],
    ]);
  });

  it('passes a cancel from the session through to the LLM stream and marks the generation cancelled', async () => {
    const { agent, cancelled } = agentWithScriptedLlm();
    const signals = observeAgentTurns(agent);
    const ended: LlmGeneration[] = [];
    signals.on('llm_end', (g) => ended.push(g));
    const { ctx, message } = contextFor('Tell me a story');
    const reader = await openNode(agent, ctx);
    await reader.cancel('interrupted');
    expect(cancelled()).toBe('interrupted');
    expect(ended).toHaveLength(1);
    expect(ended[0]!.cancelled).toBe(true);
    // A cancelled draft no longer answers the turn.
    expect(signals.generationFor(message)).toBeUndefined();
  });

  it('matches a turn to the newest live generation for it: same message, or a draft of the same words', async () => {
    const { agent } = agentWithScriptedLlm();
    const signals = observeAgentTurns(agent);
    const draft = contextFor('  What  time is it? ');
    await openNode(agent, draft.ctx);
    const other = contextFor('Something else');
    await openNode(agent, other.ctx);
    const turn = llm.ChatMessage.create({ role: 'user', content: 'what time is it?' });
    const found = signals.generationFor(turn)!;
    expect(found.userText).toBe('  What  time is it? ');
    expect(answers(found, turn)).toBe(true);
    expect(answers(found, other.message)).toBe(false);

    const final = contextFor('what time is it?');
    await openNode(agent, final.ctx);
    expect(signals.generationFor(turn)!.userMessageId).toBe(final.message.id);
  });

  it('does not take the reply to the turn before, or an older draft, for a repeated question', async () => {
    const { agent } = agentWithScriptedLlm();
    const signals = observeAgentTurns(agent);
    const oldDraft = contextFor('What time is it?');
    await openNode(agent, oldDraft.ctx);
    const first = contextFor('What time is it?');
    void agent.onUserTurnCompleted(first.ctx, first.message);
    await openNode(agent, first.ctx);
    expect(signals.generationFor(first.message)!.userMessageId).toBe(first.message.id);

    const second = contextFor('What time is it?');
    void agent.onUserTurnCompleted(second.ctx, second.message);
    expect(signals.generationFor(second.message)).toBeUndefined();
    const draft = contextFor('what time is it?');
    await openNode(agent, draft.ctx);
    expect(signals.generationFor(second.message)!.userMessageId).toBe(draft.message.id);
  });
});
