/**
 * Validation of generation requests (WebSocket messages and `/tts/bytes` bodies), B.3 and B.12.3.
 * Returns a normalized request or the error the real service would answer with.
 */
import { z } from 'zod';
import { CARTESIA } from '@firstword/agents-plugin-tts/providers';
import type { CartesiaServerOptions } from './options.js';
import { type ErrorSpec, type VersionFeatures, errors } from './protocol.js';

export const ENCODINGS = ['pcm_s16le', 'pcm_f32le', 'pcm_mulaw', 'pcm_alaw'] as const;
export type Encoding = (typeof ENCODINGS)[number];
/** The rates the real service serves (from Cartesia's descriptor in the plugin). */
export const SAMPLE_RATES: readonly number[] = CARTESIA.sampleRates;

/** Fields that may differ between inputs of one context; every other field must stay the same. */
const MUTABLE_FIELDS = new Set([
  'transcript',
  'continue',
  'duration',
  'flush',
  'context_id',
  // The JS SDK sends a per-push generation_config; whether the server honours a change is
  // UNCONFIRMED, so it is tolerated rather than refused.
  'generation_config',
]);

const generationShape = z.object({
  model_id: z.string(),
  transcript: z.string(),
  voice: z.unknown().refine((v) => v !== undefined, 'Required'),
  output_format: z.object({
    container: z.string(),
    encoding: z.string(),
    sample_rate: z.number(),
  }),
  language: z.string().optional(),
  locale: z.string().optional(),
  continue: z.boolean().optional(),
  flush: z.boolean().optional(),
  max_buffer_delay_ms: z.number().int().optional(),
  add_timestamps: z.boolean().optional(),
  add_phoneme_timestamps: z.boolean().optional(),
  duration: z.number().optional(),
});

const wsShape = generationShape.extend({ context_id: z.string().min(1) });

const voiceById = z.object({ mode: z.literal('id'), id: z.string().min(1) });
const voiceByEmbedding = z.object({ mode: z.literal('embedding'), embedding: z.array(z.number()) });
const voiceByBareId = z.object({ id: z.string().min(1), mode: z.undefined().optional() });

export interface GenerationRequest {
  /** Undefined for `/tts/bytes`. */
  contextId: string | undefined;
  modelId: string;
  transcript: string;
  /** Undefined for embedding voices. */
  voiceId: string | undefined;
  container: 'raw' | 'wav';
  encoding: Encoding;
  sampleRate: number;
  continue: boolean;
  flush: boolean;
  maxBufferDelayMs: number;
  addTimestamps: boolean;
  addPhonemeTimestamps: boolean;
  /** Canonical JSON of each field that must not change within a context. */
  invariant: Map<string, string>;
}

export type Validation = { ok: true; request: GenerationRequest } | { ok: false; error: ErrorSpec };

type ValidationOptions = Pick<CartesiaServerOptions, 'models' | 'datedModelFamilies' | 'sunsettedModels' | 'voices'>;

const DATED_SUFFIX = /-(\d{4}-\d{2}-\d{2})$/;

/** A listed model, or a dated snapshot (`sonic-3.5-2026-05-04`) of a listed family. */
function isServedModel(model: string, options: ValidationOptions): boolean {
  if (options.models.includes(model)) return true;
  const dated = DATED_SUFFIX.exec(model);
  if (!dated || Number.isNaN(Date.parse(dated[1]!))) return false;
  return options.datedModelFamilies.includes(model.slice(0, dated.index));
}

function fail(error: ErrorSpec): Validation {
  return { ok: false, error };
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => `${issue.path.join('.') || 'message'}: ${issue.message}`)
    .join('; ');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function invariantOf(message: Record<string, unknown>): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [key, value] of Object.entries(message)) {
    if (!MUTABLE_FIELDS.has(key) && value !== undefined) fields.set(key, canonicalJson(value));
  }
  return fields;
}

/** Names of fields whose values differ between two inputs of one context. */
export function changedFields(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

function resolveVoice(
  voice: unknown,
  features: VersionFeatures,
): { ok: true; voiceId: string | undefined } | { ok: false; error: ErrorSpec } {
  if (features.voiceAsString && typeof voice === 'string' && voice.length > 0) {
    return { ok: true, voiceId: voice };
  }
  const byId = voiceById.safeParse(voice);
  if (byId.success) return { ok: true, voiceId: byId.data.id };
  if (features.voiceAsString) {
    const bare = voiceByBareId.safeParse(voice);
    if (bare.success) return { ok: true, voiceId: bare.data.id };
  }
  if (voiceByEmbedding.safeParse(voice).success) {
    if (features.embeddingsRejected) return { ok: false, error: errors.embeddingUnsupported() };
    return { ok: true, voiceId: undefined };
  }
  const expected = features.voiceAsString
    ? 'a voice id string, {"id": ...} or {"mode": "id", "id": ...}'
    : '{"mode": "id", "id": ...}';
  return { ok: false, error: errors.invalidRequest(`voice: expected ${expected}`) };
}

/**
 * Validates one generation request. `transport` decides whether `context_id` is required and which
 * containers are allowed (WebSocket: raw only; `/tts/bytes`: raw or wav).
 */
export function validateGeneration(
  message: Record<string, unknown>,
  features: VersionFeatures,
  options: ValidationOptions,
  transport: 'ws' | 'http',
): Validation {
  const parsed = (transport === 'ws' ? wsShape : generationShape).safeParse(message);
  if (!parsed.success) return fail(errors.invalidRequest(describeIssues(parsed.error.issues)));
  const body = parsed.data;

  if (options.sunsettedModels.includes(body.model_id)) {
    return fail(errors.modelSunsetted(body.model_id));
  }
  if (!isServedModel(body.model_id, options)) return fail(errors.modelNotFound());

  const voice = resolveVoice(body.voice, features);
  if (!voice.ok) return voice;
  if (voice.voiceId !== undefined && options.voices && !options.voices.includes(voice.voiceId)) {
    return fail(errors.voiceNotFound());
  }

  const { container, encoding, sample_rate: sampleRate } = body.output_format;
  const containers = transport === 'ws' ? ['raw'] : ['raw', 'wav'];
  if (!containers.includes(container)) {
    return fail(
      errors.unsupportedOutputFormat(
        `output_format.container must be one of ${containers.join(', ')} on this endpoint`,
      ),
    );
  }
  if (!(ENCODINGS as readonly string[]).includes(encoding)) {
    return fail(
      errors.unsupportedOutputFormat(`output_format.encoding must be one of ${ENCODINGS.join(', ')}`),
    );
  }
  if (!SAMPLE_RATES.includes(sampleRate)) {
    return fail(
      errors.unsupportedOutputFormat(
        `output_format.sample_rate must be one of ${SAMPLE_RATES.join(', ')}`,
      ),
    );
  }

  if (features.voiceAsString && body.language !== undefined && body.locale !== undefined) {
    return fail(errors.invalidRequest('send either language or locale, not both'));
  }

  const maxBufferDelayMs = body.max_buffer_delay_ms ?? features.maxBufferDelayMs.default;
  if (maxBufferDelayMs < 0 || maxBufferDelayMs > features.maxBufferDelayMs.max) {
    return fail(
      errors.invalidRequest(
        `max_buffer_delay_ms must be between 0 and ${features.maxBufferDelayMs.max}`,
      ),
    );
  }

  return {
    ok: true,
    request: {
      contextId: transport === 'ws' ? (message.context_id as string) : undefined,
      modelId: body.model_id,
      transcript: body.transcript,
      voiceId: voice.voiceId,
      container: container as 'raw' | 'wav',
      encoding: encoding as Encoding,
      sampleRate,
      continue: body.continue ?? false,
      flush: body.flush ?? false,
      maxBufferDelayMs,
      addTimestamps: body.add_timestamps ?? false,
      addPhonemeTimestamps: body.add_phoneme_timestamps ?? false,
      invariant: invariantOf(message),
    },
  };
}

/** Whether a transcript has nothing speakable: empty, whitespace, or punctuation/symbols only. */
export function isUnspeakable(transcript: string): boolean {
  return !/[\p{L}\p{N}]/u.test(transcript);
}
