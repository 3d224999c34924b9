/**
 * Wraps any LLM and notes when its tokens arrive, so the demo can stamp "LLM first token" and draw
 * the token stream for OpenAI and the replay model alike. Chunks pass through untouched.
 */
import { type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, llm } from '@livekit/agents';
import { EventEmitter } from 'node:events';

export interface TokenTimelineEvents {
  request: [{ at: number }];
  token: [{ at: number; text: string }];
  done: [{ at: number; cancelled: boolean }];
}

export class TimedLLM extends llm.LLM {
  /** Times on the `performance.now()` clock. */
  readonly timeline = new EventEmitter<TokenTimelineEvents>();
  readonly inner: llm.LLM;

  constructor(inner: llm.LLM) {
    super();
    this.inner = inner;
    // The inner stream reports failures only as events on its LLM; without a listener an 'error'
    // event would crash the process instead of reaching the session.
    inner.on('error', (error) => this.emit('error', error));
  }

  label(): string {
    return this.inner.label();
  }

  override get model(): string {
    return this.inner.model;
  }

  override get provider(): string {
    return this.inner.provider;
  }

  override prewarm(): void {
    this.inner.prewarm();
  }

  override async aclose(): Promise<void> {
    await this.inner.aclose();
    await super.aclose();
  }

  chat(options: {
    chatCtx: llm.ChatContext;
    toolCtx?: llm.ToolContextLike;
    connOptions?: APIConnectOptions;
    parallelToolCalls?: boolean;
    toolChoice?: llm.ToolChoice;
    extraKwargs?: Record<string, unknown>;
  }): llm.LLMStream {
    this.timeline.emit('request', { at: performance.now() });
    const inner = this.inner.chat(options);
    // The inner stream owns retries; the outer one only relays.
    const connOptions = { ...(options.connOptions ?? DEFAULT_API_CONNECT_OPTIONS), maxRetry: 0 };
    return new TimedStream(this, inner, { chatCtx: options.chatCtx, toolCtx: options.toolCtx, connOptions });
  }
}

class TimedStream extends llm.LLMStream {
  readonly #owner: TimedLLM;
  readonly #inner: llm.LLMStream;

  constructor(
    owner: TimedLLM,
    inner: llm.LLMStream,
    params: { chatCtx: llm.ChatContext; toolCtx?: llm.ToolContextLike; connOptions: APIConnectOptions },
  ) {
    super(owner, params);
    this.#owner = owner;
    this.#inner = inner;
  }

  protected async run(): Promise<void> {
    for await (const chunk of this.#inner) {
      if (this.abortController.signal.aborted) break;
      if (chunk.delta?.content) this.#owner.timeline.emit('token', { at: performance.now(), text: chunk.delta.content });
      this.queue.put(chunk);
    }
    this.#owner.timeline.emit('done', { at: performance.now(), cancelled: this.abortController.signal.aborted });
  }

  override close(): void {
    this.#inner.close();
    super.close();
  }
}
