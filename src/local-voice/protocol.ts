// The Resemble WebSocket protocol as the local voice speaks it (docs/providers.md part A):
// request parsing with the service's BadJSON rules, and the shapes of the frames it answers with.
import { z } from 'zod';
import { RESEMBLE_MAX_REQUEST_CHARS } from '@firstword/agents-plugin-tts/protocol';
import { RESEMBLE } from '@firstword/agents-plugin-tts/providers';

/** Resemble's documented per-request text limit, not counting SSML tags. */
export const MAX_TEXT_CHARS = RESEMBLE_MAX_REQUEST_CHARS;
/**
 * Resemble's rates: the local voice stands in for Resemble and its one client is ResembleTTS, so
 * it accepts what Resemble accepts (a rate Resemble refuses would pass here and fail in production).
 */
export const SUPPORTED_SAMPLE_RATES: readonly number[] = RESEMBLE.sampleRates;
/** Used when a request leaves `sample_rate` out (the service's own default is unconfirmed): the client's default. */
export const DEFAULT_SAMPLE_RATE = RESEMBLE.defaultSampleRate;

const requestSchema = z.object({
  voice_uuid: z.string().min(1),
  data: z.string().min(1),
  request_id: z.number().int().nonnegative().optional(),
  project_uuid: z.string().optional(),
  model: z.string().optional(),
  binary_response: z.boolean().optional(),
  output_format: z.enum(['wav', 'mp3']).optional(),
  precision: z.enum(['PCM_16', 'PCM_24', 'PCM_32', 'MULAW']).optional(),
  sample_rate: z.number().int().optional(),
  no_audio_header: z.boolean().optional(),
});

export interface SynthesisRequest {
  requestId: number;
  voiceUuid: string;
  text: string;
  sampleRate: number;
  binary: boolean;
  withHeader: boolean;
}

export interface ErrorFrame {
  type: 'error';
  success: false;
  error_name: string;
  message: string;
  status_code: number;
  error_params?: { explanation: string };
  request_id?: number;
}

export type ParseResult = { ok: true; request: SynthesisRequest } | { ok: false; error: ErrorFrame };

export function errorFrame(name: string, statusCode: number, explanation: string, requestId?: number): ErrorFrame {
  return {
    type: 'error',
    success: false,
    error_name: name,
    message: name === 'BadJSON' ? `Invalid JSON: ${explanation}` : explanation,
    status_code: statusCode,
    error_params: { explanation },
    ...(requestId === undefined ? {} : { request_id: requestId }),
  };
}

/** Text length as the service counts it: SSML tags are free. */
export function countedLength(text: string): number {
  return stripMarkup(text).length;
}

export function stripMarkup(text: string): string {
  return text.replace(/<[^>]*>/g, '');
}

/**
 * Validates one client text frame. `nextRequestId` supplies the id the service assigns when the
 * client sends none (a per-connection counter from 0).
 */
export function parseRequest(raw: string, nextRequestId: () => number): ParseResult {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, error: errorFrame('BadJSON', 400, 'message is not valid JSON') };
  }
  const parsed = requestSchema.safeParse(json);
  const rawId = typeof json === 'object' && json !== null ? (json as { request_id?: unknown }).request_id : undefined;
  const echoId = typeof rawId === 'number' && Number.isInteger(rawId) ? rawId : undefined;
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'message';
    return { ok: false, error: errorFrame('BadJSON', 400, `${field}: ${issue?.message ?? 'invalid'}`, echoId) };
  }
  const body = parsed.data;
  const requestId = body.request_id ?? nextRequestId();
  if (countedLength(body.data) > MAX_TEXT_CHARS) {
    return { ok: false, error: errorFrame('TextTooLong', 400, `data is longer than ${MAX_TEXT_CHARS} characters`, requestId) };
  }
  // The service defaults to PCM_32; a client that leaves precision out would get 4-byte samples.
  if ((body.precision ?? 'PCM_32') !== 'PCM_16' || (body.output_format ?? 'wav') !== 'wav') {
    const explanation = 'the local voice produces only output_format "wav" with precision "PCM_16" (send it explicitly)';
    return { ok: false, error: errorFrame('UnsupportedFormat', 400, explanation, requestId) };
  }
  const sampleRate = body.sample_rate ?? DEFAULT_SAMPLE_RATE;
  if (!SUPPORTED_SAMPLE_RATES.includes(sampleRate)) {
    const explanation = `sample_rate must be one of ${SUPPORTED_SAMPLE_RATES.join(', ')}`;
    return { ok: false, error: errorFrame('BadJSON', 400, explanation, requestId) };
  }
  return {
    ok: true,
    request: {
      requestId,
      voiceUuid: body.voice_uuid,
      text: body.data,
      sampleRate,
      binary: body.binary_response ?? false,
      withHeader: !(body.no_audio_header ?? false),
    },
  };
}
