/**
 * Wire shapes of a realtime transcription session (GA interface, no `OpenAI-Beta` header), from
 * the openai 6.49 types (`resources/realtime/realtime.ts`) and what the LiveKit plugin sends
 * (stt.ts `#sessionUpdateEvent`) and parses (stt.ts:131-218). Unknown fields are refused as
 * OpenAI refuses them; `transcription.languages`/`keywords` are accepted because the plugin sends
 * them for gpt-transcribe models.
 */
import { z } from 'zod';
import type { OpenAIError } from './errors.js';
import { newId } from './http.js';
import { SAMPLE_RATE } from './input-buffer.js';

const eventId = z.string().max(512).optional();

const turnDetectionSchema = z.union([
  z.strictObject({
    type: z.literal('server_vad'),
    threshold: z.number().min(0).max(1).optional(),
    prefix_padding_ms: z.number().int().nonnegative().optional(),
    silence_duration_ms: z.number().int().nonnegative().optional(),
    idle_timeout_ms: z.number().int().positive().nullable().optional(),
    create_response: z.boolean().optional(),
    interrupt_response: z.boolean().optional(),
  }),
  z.strictObject({
    type: z.literal('semantic_vad'),
    eagerness: z.enum(['low', 'medium', 'high', 'auto']).optional(),
    create_response: z.boolean().optional(),
    interrupt_response: z.boolean().optional(),
  }),
]);

export type TurnDetectionConfig = z.infer<typeof turnDetectionSchema>;

export const sessionSchema = z.strictObject({
  type: z.literal('transcription'),
  audio: z
    .strictObject({
      input: z
        .strictObject({
          // Only 24 kHz PCM: the one format this server decodes (μ-law/A-law are real but not served here).
          format: z.strictObject({ type: z.literal('audio/pcm'), rate: z.literal(SAMPLE_RATE).optional() }).optional(),
          transcription: z
            .strictObject({
              model: z.string().optional(),
              language: z.string().optional(),
              languages: z.array(z.string()).optional(),
              keywords: z.array(z.string()).optional(),
              prompt: z.string().optional(),
              delay: z.enum(['minimal', 'low', 'medium', 'high', 'xhigh']).optional(),
            })
            .nullable()
            .optional(),
          turn_detection: turnDetectionSchema.nullable().optional(),
          noise_reduction: z.strictObject({ type: z.enum(['near_field', 'far_field']) }).nullable().optional(),
        })
        .optional(),
    })
    .optional(),
  include: z.array(z.literal('item.input_audio_transcription.logprobs')).nullable().optional(),
});

export type SessionConfig = z.infer<typeof sessionSchema>;

export const clientEventSchemas = {
  'session.update': z.strictObject({ type: z.literal('session.update'), event_id: eventId, session: sessionSchema }),
  'input_audio_buffer.append': z.strictObject({ type: z.literal('input_audio_buffer.append'), event_id: eventId, audio: z.string() }),
  'input_audio_buffer.commit': z.strictObject({ type: z.literal('input_audio_buffer.commit'), event_id: eventId }),
  'input_audio_buffer.clear': z.strictObject({ type: z.literal('input_audio_buffer.clear'), event_id: eventId }),
} as const;

export type ClientEventType = keyof typeof clientEventSchemas;

/** Client events of conversation sessions: real, but refused in a transcription session. */
export const CONVERSATION_ONLY_EVENTS = new Set([
  'conversation.item.create', 'conversation.item.retrieve', 'conversation.item.truncate', 'conversation.item.delete',
  'response.create', 'response.cancel', 'output_audio_buffer.clear',
]);

/** The effective session, as `session.created` / `session.updated` show it. */
export interface EffectiveSession {
  id: string;
  transcription: NonNullable<NonNullable<NonNullable<SessionConfig['audio']>['input']>['transcription']> | null;
  turnDetection: TurnDetectionConfig | null;
  noiseReduction: { type: string } | null;
  include: string[] | null;
  expiresAt: number;
}

/** OpenAI's documented server_vad defaults (openai 6.49 types). */
export const SERVER_VAD_DEFAULTS = { threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } as const;

export function sessionResource(session: EffectiveSession): Record<string, unknown> {
  return {
    type: 'transcription',
    object: 'realtime.transcription_session',
    id: session.id,
    expires_at: session.expiresAt,
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: SAMPLE_RATE },
        transcription: session.transcription,
        noise_reduction: session.noiseReduction,
        turn_detection: session.turnDetection,
      },
    },
    include: session.include,
  };
}

export function serverEvent(type: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { type, event_id: newId('event_', 21), ...fields };
}

export function errorEvent(error: Omit<OpenAIError, 'type'> & { type?: string; eventId?: string | null }): Record<string, unknown> {
  return serverEvent('error', {
    error: {
      type: error.type ?? 'invalid_request_error',
      code: error.code,
      message: error.message,
      param: error.param,
      event_id: error.eventId ?? null,
    },
  });
}

/** Token usage of a transcription, the `type: 'tokens'` variant gpt-4o-transcribe bills by. */
export function transcriptionUsage(durationMs: number, transcriptTokens: number): Record<string, unknown> {
  const audioTokens = Math.max(1, Math.round(durationMs / 100));
  return {
    type: 'tokens',
    total_tokens: audioTokens + transcriptTokens,
    input_tokens: audioTokens,
    input_token_details: { text_tokens: 0, audio_tokens: audioTokens },
    output_tokens: transcriptTokens,
  };
}
