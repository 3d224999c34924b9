/**
 * Validation of a chat completion request. OpenAI refuses parameters it does not know
 * ("Unrecognized request argument supplied"), so this accepts the documented ones (openai 6.49
 * `ChatCompletionCreateParamsBase`) and checks the types of those the server acts on.
 */
import { z } from 'zod';
import { type HttpError, describeIssue, httpErrors } from './errors.js';

const KNOWN_PARAMS = new Set([
  'model', 'messages', 'stream', 'stream_options', 'audio', 'frequency_penalty', 'function_call', 'functions',
  'logit_bias', 'logprobs', 'max_completion_tokens', 'max_tokens', 'metadata', 'modalities', 'n',
  'parallel_tool_calls', 'prediction', 'presence_penalty', 'prompt_cache_key', 'prompt_cache_retention',
  'reasoning_effort', 'response_format', 'safety_identifier', 'seed', 'service_tier', 'stop', 'store',
  'temperature', 'tool_choice', 'tools', 'top_logprobs', 'top_p', 'user', 'verbosity', 'web_search_options',
]);

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const messageSchema = z
  .object({
    role: z.enum(ROLES),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown())), z.null()]).optional(),
  })
  .passthrough();

const requestSchema = z
  .object({
    model: z.string().min(1),
    messages: z.array(messageSchema).min(1),
    stream: z.boolean().nullable().optional(),
    stream_options: z
      .strictObject({ include_usage: z.boolean().optional(), include_obfuscation: z.boolean().optional() })
      .nullable()
      .optional(),
    n: z.number().int().min(1).max(1).nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
  })
  .passthrough();

export interface ChatRequest {
  model: string;
  messages: { role: string; content?: unknown }[];
  stream: boolean;
  includeUsage: boolean;
  includeObfuscation: boolean;
}

export function parseChatRequest(body: unknown): { ok: true; request: ChatRequest } | { ok: false; error: HttpError } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, error: httpErrors.invalid(`Invalid type for request body: expected an object, but got ${Array.isArray(body) ? 'an array' : typeof body} instead.`, null, 'invalid_type') };
  }
  const unknown = Object.keys(body).find((key) => !KNOWN_PARAMS.has(key));
  if (unknown) return { ok: false, error: httpErrors.invalid(`Unrecognized request argument supplied: ${unknown}`, null, null) };
  if (!('model' in body)) return { ok: false, error: httpErrors.invalid('you must provide a model parameter', null, null) };
  const parsed = requestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = describeIssue(parsed.error, body);
    return { ok: false, error: httpErrors.invalid(issue.message, issue.param, issue.code) };
  }
  const data = parsed.data;
  if (data.stream !== true && data.stream_options) {
    return { ok: false, error: httpErrors.invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', 'invalid_value') };
  }
  return {
    ok: true,
    request: {
      model: data.model,
      messages: data.messages as ChatRequest['messages'],
      stream: data.stream === true,
      includeUsage: data.stream_options?.include_usage === true,
      includeObfuscation: data.stream_options?.include_obfuscation !== false,
    },
  };
}
