/**
 * The turn boundaries the session does not announce, made observable on the agent itself.
 *
 * AgentSession emits no event at the moment a user turn is decided (before the reply is
 * scheduled) nor when the LLM's first token arrives. Both matter: the first is the only point at
 * which an acknowledgement can be queued *ahead of* the reply (speech handles play in scheduling
 * order, see src/ack/controller.ts), the second is a stage of the latency budget and the trigger
 * of `ACK_MODE=slow`. So the agent's two hooks that sit exactly there — `onUserTurnCompleted` and
 * `llmNode` — are wrapped on the instance, which composes with any Agent subclass.
 *
 * Times are `performance.now()` milliseconds, the clock of the TTS timeline.
 */
import type { llm, voice } from '@livekit/agents';
import { EventEmitter } from 'node:events';
import { ReadableStream, type ReadableStreamReadResult } from 'node:stream/web';
import { now } from './clock.js';

/** One call of the agent's LLM node: a reply (or a preemptive draft of one) being generated. */
export interface LlmGeneration {
  readonly id: number;
  readonly requestedAt: number;
  firstTokenAt?: number;
  endedAt?: number;
  /** The consumer stopped reading before the end (interruption, discarded preemptive draft). */
  cancelled: boolean;
  /** The last user message of the context it answers. */
  readonly userMessageId?: string;
  readonly userText?: string;
}

export interface UserTurnCompleted {
  at: number;
  /** The user message of the turn (its text is customer data: log it only under a `.pii.` key). */
  message: llm.ChatMessage;
}

/** What the acknowledgement did for a turn; published so the budget can stamp it. */
export interface AckSignal {
  /** The user message of the turn acknowledged. */
  messageId: string;
  at: number;
  outcome: 'played' | 'skipped';
  reason: AckReason;
  /** When its first frame played, for an ack played outside the speech queue (`early`). */
  playedAt?: number;
  phraseId?: string;
  language?: string;
  durationMs?: number;
  /** A skipped early ack: the wait for the reply a clip had to fit, ms from the decision (no clip fit when it was too short). */
  expectedWaitMs?: number;
}

export type AckReason =
  | 'always'
  | 'slow_llm'
  | 'llm_ready'
  | 'no_phrase'
  | 'interrupted'
  | 'closed'
  | 'early'
  | 'not_over'
  | 'reply_ready'
  | 'user_resumed';

export interface TurnSignalEvents {
  /**
   * The user's turn is decided and the reply is about to be scheduled. Listeners run
   * synchronously inside the agent's `onUserTurnCompleted`: a `session.say()` made here is
   * queued before the reply.
   */
  user_turn_completed: [UserTurnCompleted];
  llm_request: [LlmGeneration];
  llm_first_token: [LlmGeneration];
  /** Each piece of reply text as the LLM node yields it (the demo draws the token stream). */
  llm_text: [LlmGeneration, { at: number; text: string }];
  llm_end: [LlmGeneration];
  ack: [AckSignal];
}

/** Generations remembered for matching (a turn has at most a few preemptive drafts). */
const MAX_GENERATIONS = 8;

interface TurnMark {
  at: number;
  messageId: string;
}

export class TurnSignals extends EventEmitter<TurnSignalEvents> {
  readonly #generations: LlmGeneration[] = [];
  #nextId = 1;
  #current: TurnMark | undefined;
  #previous: TurnMark | undefined;

  constructor() {
    super();
    this.setMaxListeners(50);
  }

  /** The newest live generation answering `message` (preemptive drafts included), if any. */
  generationFor(message: llm.ChatMessage): LlmGeneration | undefined {
    for (let i = this.#generations.length - 1; i >= 0; i--) {
      const generation = this.#generations[i]!;
      if (!generation.cancelled && this.belongsTo(generation, message)) return generation;
    }
    return undefined;
  }

  /** Live generations requested at or after `at`, oldest first. */
  generationsSince(at: number): LlmGeneration[] {
    return this.#generations.filter((g) => !g.cancelled && g.requestedAt >= at);
  }

  /**
   * Whether `generation` answers the turn of `message`: its own request, or a draft of the same
   * words made since the turn before was decided — not that turn's reply nor an older draft,
   * which a user repeating a question would otherwise match.
   */
  belongsTo(generation: LlmGeneration, message: llm.ChatMessage): boolean {
    if (!answers(generation, message)) return false;
    if (generation.userMessageId === message.id) return true;
    const before = message.id === this.#current?.messageId ? this.#previous : this.#current;
    return before === undefined || (generation.requestedAt > before.at && generation.userMessageId !== before.messageId);
  }

  /** @internal called by the wrapped `onUserTurnCompleted` */
  _completeTurn(message: llm.ChatMessage): UserTurnCompleted {
    const at = now();
    this.#previous = this.#current;
    this.#current = { at, messageId: message.id };
    return { at, message };
  }

  /** @internal called by the wrapped `llmNode` */
  _startGeneration(chatCtx: llm.ChatContext): LlmGeneration {
    const user = lastUserMessage(chatCtx);
    const generation: LlmGeneration = {
      id: this.#nextId++,
      requestedAt: now(),
      cancelled: false,
      userMessageId: user?.id,
      userText: user?.textContent ?? undefined,
    };
    this.#generations.push(generation);
    if (this.#generations.length > MAX_GENERATIONS) this.#generations.shift();
    this.emit('llm_request', generation);
    return generation;
  }
}

/** Same message, or a preemptive draft started from the same transcript (the framework reuses those). */
export function answers(generation: LlmGeneration, message: llm.ChatMessage): boolean {
  if (generation.userMessageId !== undefined && generation.userMessageId === message.id) return true;
  const text = message.textContent;
  return text != null && generation.userText !== undefined && normalize(generation.userText) === normalize(text);
}

function normalize(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

function lastUserMessage(chatCtx: llm.ChatContext): llm.ChatMessage | undefined {
  for (let i = chatCtx.items.length - 1; i >= 0; i--) {
    const item = chatCtx.items[i]!;
    if (item.type === 'message' && item.role === 'user') return item;
  }
  return undefined;
}

/** Text or a tool call: what starts the clock on "first token" (usage-only chunks do not). */
function isOutput(chunk: unknown): boolean {
  return textOf(chunk) !== '' || Boolean(deltaOf(chunk)?.toolCalls?.length);
}

function deltaOf(chunk: unknown): llm.ChatChunk['delta'] | undefined {
  if (chunk === null || typeof chunk !== 'object' || !('delta' in chunk)) return undefined;
  return (chunk as llm.ChatChunk).delta;
}

/** The reply text a chunk of the LLM node carries ('' for none). */
function textOf(chunk: unknown): string {
  if (typeof chunk === 'string') return chunk;
  return deltaOf(chunk)?.content ?? '';
}

function observeGeneration<T>(
  signals: TurnSignals,
  generation: LlmGeneration,
  source: ReadableStream<T>,
): ReadableStream<T> {
  const reader = source.getReader();
  const end = (cancelled: boolean) => {
    if (generation.endedAt !== undefined) return;
    generation.endedAt = now();
    generation.cancelled = cancelled;
    signals.emit('llm_end', generation);
  };
  // Pull-based so that a cancel from the consumer reaches the LLM stream and is seen here.
  return new ReadableStream<T>({
    async pull(controller) {
      let result: ReadableStreamReadResult<T>;
      try {
        result = await reader.read();
      } catch (error) {
        end(true);
        throw error;
      }
      if (result.done) {
        end(false);
        controller.close();
        return;
      }
      if (generation.firstTokenAt === undefined && isOutput(result.value)) {
        generation.firstTokenAt = now();
        signals.emit('llm_first_token', generation);
      }
      const text = textOf(result.value);
      if (text && signals.listenerCount('llm_text') > 0) signals.emit('llm_text', generation, { at: now(), text });
      controller.enqueue(result.value);
    },
    async cancel(reason) {
      end(true);
      await reader.cancel(reason);
    },
  });
}

const observed = new WeakMap<voice.Agent, TurnSignals>();

/**
 * The turn signals of `agent`, wrapping its `onUserTurnCompleted` and `llmNode` on first use.
 * Idempotent: the budget and the acknowledgement share one set of signals per agent. Call it
 * before the session starts (or at least before the turn to be observed).
 */
export function observeAgentTurns(agent: voice.Agent): TurnSignals {
  const existing = observed.get(agent);
  if (existing) return existing;
  const signals = new TurnSignals();
  observed.set(agent, signals);

  const onUserTurnCompleted = agent.onUserTurnCompleted.bind(agent);
  agent.onUserTurnCompleted = async (chatCtx, newMessage) => {
    signals.emit('user_turn_completed', signals._completeTurn(newMessage));
    return onUserTurnCompleted(chatCtx, newMessage);
  };

  const llmNode = agent.llmNode.bind(agent);
  agent.llmNode = async (chatCtx, toolCtx, modelSettings) => {
    const generation = signals._startGeneration(chatCtx);
    let stream: Awaited<ReturnType<typeof llmNode>>;
    try {
      stream = await llmNode(chatCtx, toolCtx, modelSettings);
    } catch (error) {
      generation.endedAt = now();
      generation.cancelled = true;
      signals.emit('llm_end', generation);
      throw error;
    }
    if (!stream) return stream;
    return observeGeneration(signals, generation, stream as ReadableStream<unknown>) as typeof stream;
  };
  return signals;
}
