/**
 * Validation of one client frame as the service does it (docs/providers.md A.3, A.8, A.13.2–4, A.13.12):
 * unknown fields tolerated; every failure is a recoverable error frame.
 */
import { z } from 'zod';
import { badJsonFrame, errorFrame } from './frames.js';
import {
  DEFAULT_PRECISION,
  PRECISIONS,
  SUPPORTED_SAMPLE_RATES,
  type Precision,
  type ResembleErrorNames,
} from './options.js';

/** What a valid request asks the synthesizer for. */
export interface SynthesisSpec {
  requestId: number;
  voiceUuid: string;
  data: string;
  sampleRate: number;
  precision: Precision;
  binary: boolean;
  /** True when a WAV header must precede the first audio bytes. */
  wavHeader: boolean;
}

export type ValidationResult =
  | { ok: true; payload: Record<string, unknown>; spec: SynthesisSpec }
  | { ok: false; payload: unknown; requestId: number | undefined; errorName: string; frame: string };

export interface ValidationContext {
  /** Next value of the per-connection counter; called only for valid requests without an id. */
  assignRequestId: () => number;
  maxChars: number;
  voices: string[] | undefined;
  defaultSampleRate: number;
  errorNames: ResembleErrorNames;
  /** See ResembleServerOptions.availableModels. */
  availableModels?: string[];
  modelUnavailableStatus: number | null;
  streamingPlan: boolean;
}

const requestIdSchema = z.number().int().refine(Number.isSafeInteger, 'request_id must be an integer');

const coreSchema = z.looseObject({
  voice_uuid: z.string().min(1),
  data: z.string().refine((text) => text.trim().length > 0, 'data field is empty'),
  request_id: requestIdSchema.optional(),
});

const formatSchema = z.looseObject({
  binary_response: z.boolean().optional(),
  output_format: z.enum(['wav', 'mp3']).optional(),
  sample_rate: z.number().int().optional(),
  precision: z.enum(PRECISIONS).optional(),
  no_audio_header: z.boolean().optional(),
});

/** Characters as the service counts them: code points outside `<...>` markup. */
export function countBillableChars(data: string): number {
  return [...data.replace(/<[^>]*>/g, '')].length;
}

function describeIssue(error: z.ZodError): { field: string; explanation: string } {
  const issue = error.issues[0];
  const field = String(issue?.path[0] ?? 'request');
  if (issue?.code === 'invalid_type' && issue.input === undefined) {
    return { field, explanation: `${field} field missing` };
  }
  return { field, explanation: `${field}: ${issue?.message ?? 'invalid value'}` };
}

function tiedRequestId(raw: Record<string, unknown>): number | undefined {
  const parsed = requestIdSchema.safeParse(raw.request_id);
  return parsed.success ? parsed.data : undefined;
}

function parseJsonObject(frame: Buffer | string, isBinary: boolean): Record<string, unknown> | string {
  if (isBinary) return 'binary frames are not accepted; send the request as a JSON text frame';
  let value: unknown;
  try {
    value = JSON.parse(frame.toString());
  } catch {
    return 'could not parse JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'the request must be a JSON object';
  }
  return value as Record<string, unknown>;
}

export function validateRequest(
  frame: Buffer | string,
  isBinary: boolean,
  ctx: ValidationContext,
): ValidationResult {
  const raw = parseJsonObject(frame, isBinary);
  if (typeof raw === 'string') {
    return { ok: false, payload: frame, requestId: undefined, errorName: 'BadJSON', frame: badJsonFrame(raw) };
  }
  const reject = (errorName: string, statusCode: number | null, explanation: string, requestId: number | undefined) => ({
    ok: false as const,
    payload: raw,
    requestId,
    errorName,
    frame:
      errorName === 'BadJSON'
        ? badJsonFrame(explanation, requestId)
        : errorFrame({ errorName, statusCode, message: explanation, explanation, requestId }),
  });

  const core = coreSchema.safeParse(raw);
  if (!core.success) {
    const { field, explanation } = describeIssue(core.error);
    const name = field === 'request_id' ? ctx.errorNames.invalidField : 'BadJSON';
    return reject(name, 400, explanation, tiedRequestId(raw));
  }
  const requestId = core.data.request_id ?? ctx.assignRequestId();
  if (!ctx.streamingPlan) {
    return reject('Unauthorized', 401, 'Unauthorized: WebSocket streaming is not included in your plan', requestId);
  }

  const format = formatSchema.safeParse(raw);
  if (!format.success) {
    return reject(ctx.errorNames.invalidField, 400, describeIssue(format.error).explanation, requestId);
  }
  const f = format.data;
  if (f.output_format === 'mp3') {
    return reject(ctx.errorNames.unsupportedFormat, 400, 'this test server only synthesizes wav', requestId);
  }
  const sampleRate = f.sample_rate ?? ctx.defaultSampleRate;
  if (!SUPPORTED_SAMPLE_RATES.includes(sampleRate)) {
    const allowed = SUPPORTED_SAMPLE_RATES.join(', ');
    return reject(ctx.errorNames.invalidField, 400, `sample_rate must be one of ${allowed}`, requestId);
  }
  if (ctx.voices && !ctx.voices.includes(core.data.voice_uuid)) {
    return reject(ctx.errorNames.unknownVoice, 400, `voice_uuid ${core.data.voice_uuid} not found`, requestId);
  }
  const model = typeof raw.model === 'string' && raw.model ? raw.model : 'default';
  if (ctx.availableModels && !ctx.availableModels.includes(model)) {
    return reject('DBCacheError', ctx.modelUnavailableStatus, `${model} is not available for this voice`, requestId);
  }
  const chars = countBillableChars(core.data.data);
  if (chars > ctx.maxChars) {
    const explanation = `data is ${chars} characters; the limit is ${ctx.maxChars}`;
    return reject(ctx.errorNames.textTooLong, 400, explanation, requestId);
  }
  return {
    ok: true,
    payload: raw,
    spec: {
      requestId,
      voiceUuid: core.data.voice_uuid,
      data: core.data.data,
      sampleRate,
      precision: f.precision ?? DEFAULT_PRECISION,
      binary: f.binary_response ?? false,
      wavHeader: !(f.no_audio_header ?? false),
    },
  };
}
