/**
 * A stand-in LLM for running the demo without an OpenAI key: it replays a fixed reply for each
 * known prompt, streamed token by token with a realistic first-token delay and rate, so that the
 * rest of the pipeline (chunker, TTS, playout) sees the timing a hosted model would give it.
 * The replies are canned; the demo says so whenever this model is in use.
 */
import { type APIConnectOptions, DEFAULT_API_CONNECT_OPTIONS, llm } from '@livekit/agents';
import { setTimeout as sleep } from 'node:timers/promises';
import { HANGUL_CHARACTER_CLASS } from '@firstword/agents-plugin-tts/chunking';
import { REPLAY_DEFAULTS } from './replay-defaults.js';

export interface ReplayEntry {
  prompt: string;
  reply: string;
}

export interface ReplayLLMOptions {
  /** Replies by prompt; a prompt matches ignoring case, spacing and trailing punctuation. */
  replies: readonly ReplayEntry[];
  /** The reply for a prompt that has no entry. */
  fallback: (prompt: string) => string;
  /**
   * Wait before the first token, like a hosted model's time to first token.
   * @defaultValue 350
   */
  firstTokenDelayMs: number;
  /**
   * Streaming rate after the first token.
   * @defaultValue 40
   */
  tokensPerSecond: number;
}

export { REPLAY_DEFAULTS } from './replay-defaults.js';

const DEFAULT_REPLAY_OPTIONS: ReplayLLMOptions = {
  replies: [],
  fallback: () => 'This is a replayed reply.',
  ...REPLAY_DEFAULTS,
};

export class ReplayLLM extends llm.LLM {
  readonly opts: ReplayLLMOptions;
  readonly #byPrompt: Map<string, string>;

  constructor(opts: Partial<ReplayLLMOptions> = {}) {
    super();
    this.opts = { ...DEFAULT_REPLAY_OPTIONS, ...opts };
    if (!(this.opts.tokensPerSecond > 0) || !(this.opts.firstTokenDelayMs >= 0)) {
      throw new RangeError('ReplayLLM needs tokensPerSecond > 0 and firstTokenDelayMs >= 0');
    }
    this.#byPrompt = new Map(this.opts.replies.map((entry) => [promptKey(entry.prompt), entry.reply]));
  }

  label(): string {
    return 'firstword.ReplayLLM';
  }

  override get model(): string {
    return 'replay';
  }

  override get provider(): string {
    return 'replay';
  }

  replyFor(prompt: string): string {
    return this.#byPrompt.get(promptKey(prompt)) ?? this.opts.fallback(prompt);
  }

  chat({
    chatCtx,
    toolCtx,
    connOptions = DEFAULT_API_CONNECT_OPTIONS,
  }: {
    chatCtx: llm.ChatContext;
    toolCtx?: llm.ToolContextLike;
    connOptions?: APIConnectOptions;
  }): llm.LLMStream {
    return new ReplayStream(this, { chatCtx, toolCtx, connOptions });
  }
}

class ReplayStream extends llm.LLMStream {
  readonly #owner: ReplayLLM;

  constructor(owner: ReplayLLM, params: { chatCtx: llm.ChatContext; toolCtx?: llm.ToolContextLike; connOptions: APIConnectOptions }) {
    super(owner, params);
    this.#owner = owner;
  }

  protected async run(): Promise<void> {
    const reply = this.#owner.replyFor(lastUserText(this.chatCtx));
    const { firstTokenDelayMs, tokensPerSecond } = this.#owner.opts;
    const signal = this.abortController.signal;
    const startedAt = performance.now();
    const id = `replay_${Math.round(startedAt)}`;
    try {
      for (const [i, token] of tokenize(reply).entries()) {
        // Scheduled from the start rather than token to token, so timer lateness does not add up.
        const due = startedAt + firstTokenDelayMs + (i * 1000) / tokensPerSecond;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait, undefined, { signal });
        if (signal.aborted) return;
        this.queue.put({ id, delta: { role: 'assistant', content: token } });
      }
    } catch (error) {
      if (signal.aborted) return;
      throw error;
    }
  }
}

function promptKey(prompt: string): string {
  return prompt.normalize('NFC').toLowerCase().replace(/\s+/g, ' ').replace(/[\s.?!。？！]+$/u, '').trim();
}

function lastUserText(chatCtx: llm.ChatContext): string {
  for (let i = chatCtx.items.length - 1; i >= 0; i--) {
    const item = chatCtx.items[i]!;
    if (item.type === 'message' && item.role === 'user') return item.textContent ?? '';
  }
  return '';
}

// Roughly how hosted models cut text: English in word pieces of a few letters, Korean in one or
// two syllables, punctuation and digits on their own, each with its leading space.
const TOKEN = new RegExp(`\\s*(?:[${HANGUL_CHARACTER_CLASS}]{1,2}|[A-Za-z']{1,6}|\\d{1,3}|\\S)|\\s+$`, 'gu');

/** Splits a reply into LLM-like tokens; joined, they give back the reply exactly. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}
