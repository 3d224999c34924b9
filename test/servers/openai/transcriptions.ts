/**
 * `POST /v1/audio/transcriptions` (the plugin's `useRealtime: false` path, stt.ts `_recognize`):
 * multipart with a WAV `file` and `model`, answered from the transcript queue after
 * `transcriptionDelayMs`. gpt-4o models answer `json` or `text`; whisper models also
 * `verbose_json`; `srt`/`vtt` are not served here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HttpError, httpErrors } from './errors.js';
import { BodyTooLarge, newRequestId, readBody, sendError, sendJson } from './http.js';
import type { OpenAIServerOptions, TranscriptionRequestRecord, UtteranceRecord } from './options.js';
import { parseWav, rms } from './pcm.js';
import { transcriptionUsage } from './realtime-protocol.js';
import { tokenize } from './tokenize.js';
import { type TranscriptQueue, languageOf } from './transcripts.js';

/** OpenAI's upload limit. */
const BODY_LIMIT = 25 * 1024 * 1024;

export interface TranscriptionHooks {
  options(): OpenAIServerOptions;
  transcripts: TranscriptQueue;
  recordRequest(request: TranscriptionRequestRecord): void;
  recordUtterance(utterance: UtteranceRecord): void;
  /** Registers the pending answer's timer so `close()` can clear it; returns the unregister function. */
  track(timer: NodeJS.Timeout): () => void;
}

const LANGUAGE_NAMES: Record<string, string> = { ko: 'korean', en: 'english' };

async function readForm(req: IncomingMessage): Promise<FormData | HttpError> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    return httpErrors.invalid("Invalid Content-Type header (expected multipart/form-data with a 'file' part).", null, null);
  }
  let body: Buffer;
  try {
    body = await readBody(req, BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLarge) return httpErrors.tooLarge(BODY_LIMIT);
    throw error;
  }
  try {
    // undici's multipart parser (Node 20), so no dependency is needed.
    return await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
  } catch {
    return httpErrors.invalid('Could not parse multipart form.', null, null);
  }
}

function field(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === 'string' ? value : undefined;
}

export async function serveTranscription(req: IncomingMessage, res: ServerResponse, hooks: TranscriptionHooks): Promise<void> {
  const requestId = newRequestId();
  let form: FormData | HttpError;
  try {
    form = await readForm(req);
  } catch {
    res.destroy();
    return;
  }
  if (!(form instanceof FormData)) return sendError(res, form, requestId);

  const file = form.get('file');
  const model = field(form, 'model');
  if (!(file instanceof File)) return sendError(res, httpErrors.invalid("Missing required parameter: 'file'.", 'file', 'missing_required_parameter'), requestId);
  if (!model) return sendError(res, httpErrors.invalid('you must provide a model parameter', null, null), requestId);
  const responseFormat = field(form, 'response_format') ?? 'json';
  const allowed = model.startsWith('whisper') ? ['json', 'text', 'verbose_json'] : ['json', 'text'];
  if (!allowed.includes(responseFormat)) {
    return sendError(
      res,
      httpErrors.invalid(`response_format '${responseFormat}' is not compatible with model '${model}'. Use ${allowed.map((f) => `'${f}'`).join(' or ')}.`, 'response_format', 'unsupported_value'),
      requestId,
    );
  }
  const bytes = Buffer.from(await file.arrayBuffer());
  const wav = parseWav(bytes);
  if (!wav) return sendError(res, httpErrors.invalid('Audio file might be corrupted or unsupported', 'file', 'invalid_value'), requestId);

  const options = hooks.options();
  const language = field(form, 'language');
  hooks.recordRequest({ model, language, responseFormat, fileName: file.name, fileBytes: bytes.length, receivedAt: Date.now() });
  const transcript = hooks.transcripts.next(options.defaultTranscript);
  const durationMs = (wav.samples.length * 1000) / wav.sampleRate;
  hooks.recordUtterance({ source: 'http', connectionId: 0, itemId: '', durationMs, rms: rms(wav.samples), transcript, receivedAt: Date.now() });

  let untrack = (): void => {};
  const timer = setTimeout(() => {
    untrack();
    if (responseFormat === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-request-id': requestId });
      res.end(`${transcript}\n`);
      return;
    }
    const code = language ?? languageOf(transcript);
    const body =
      responseFormat === 'verbose_json'
        ? { task: 'transcribe', language: LANGUAGE_NAMES[code] ?? code, duration: durationMs / 1000, text: transcript, segments: [], usage: { type: 'duration', seconds: Math.ceil(durationMs / 1000) } }
        : {
            text: transcript,
            usage: transcriptionUsage(durationMs, tokenize(transcript).length),
            ...(options.reportLanguage && transcript ? { languages: [{ code }] } : {}),
          };
    sendJson(res, 200, body, requestId);
  }, options.transcriptionDelayMs);
  untrack = hooks.track(timer);
  res.on('close', () => {
    clearTimeout(timer);
    untrack();
  });
}
