/**
 * The JSON objects of a chat completion, as OpenAI sends them: `chat.completion.chunk`s of one
 * stream share id, `created` and model; with `include_usage` every chunk carries `usage: null`
 * and one last chunk with `choices: []` carries the totals.
 */
import { randomBytes } from 'node:crypto';
import { newId } from './http.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; audio_tokens: number };
  completion_tokens_details: { reasoning_tokens: number; audio_tokens: number; accepted_prediction_tokens: number; rejected_prediction_tokens: number };
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

const SYSTEM_FINGERPRINT = 'fp_local0001';

export class ChunkFactory {
  readonly id = newId('chatcmpl-', 29);
  readonly created = Math.floor(Date.now() / 1000);

  constructor(
    readonly model: string,
    private readonly includeUsage: boolean,
    private readonly obfuscate: boolean,
  ) {}

  #chunk(delta: Record<string, unknown>, finishReason: string | null): Record<string, unknown> {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(this.includeUsage ? { usage: null } : {}),
      // Padding so chunk sizes do not reveal token lengths; clients ignore it.
      ...(this.obfuscate ? { obfuscation: randomBytes(1 + (randomBytes(1)[0]! % 12)).toString('base64url') } : {}),
    };
  }

  role(): Record<string, unknown> {
    return this.#chunk({ role: 'assistant', content: '', refusal: null }, null);
  }

  content(text: string): Record<string, unknown> {
    return this.#chunk({ content: text }, null);
  }

  stop(): Record<string, unknown> {
    return this.#chunk({}, 'stop');
  }

  usage(usage: Usage): Record<string, unknown> {
    return {
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [],
      usage,
    };
  }
}

/** A non-streamed answer. */
export function completion(model: string, content: string, usage: Usage): Record<string, unknown> {
  return {
    id: newId('chatcmpl-', 29),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' },
    ],
    usage,
    service_tier: 'default',
    system_fingerprint: SYSTEM_FINGERPRINT,
  };
}

/** One SSE event: `data: <json>` and a blank line. */
export function sse(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
