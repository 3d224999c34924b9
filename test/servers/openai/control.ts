/**
 * `/_control/*`: drives a server running as its own process (another network namespace, a
 * benchmark's child) over plain HTTP. Unauthenticated: the server only binds 127.0.0.1.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { httpErrors } from './errors.js';
import { BodyTooLarge, parseJson, readBody, sendError, sendJson } from './http.js';
import { type OpenAIServerOptions, controlOptionsSchema } from './options.js';
import { type ScriptEntry, parseScriptJson } from './script.js';
import type { QueuedTranscript } from './speech-words.js';

const BODY_LIMIT = 4 * 1024 * 1024;

const entry = z.union([z.string(), z.strictObject({ text: z.string(), voicedMs: z.number().finite().positive().optional(), final: z.string().optional() })]);
const transcriptsSchema = z.union([z.array(entry), z.strictObject({ transcripts: z.array(entry) })]);

export interface ControlHooks {
  setScript(script: ScriptEntry[]): void;
  queueTranscripts(transcripts: QueuedTranscript[]): void;
  setOptions(patch: Partial<OpenAIServerOptions>): void;
  stats(): Record<string, unknown>;
}

async function readJson(req: IncomingMessage, res: ServerResponse): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    const parsed = parseJson(await readBody(req, BODY_LIMIT));
    if (!parsed.ok) sendError(res, httpErrors.badJson());
    return parsed;
  } catch (error) {
    if (error instanceof BodyTooLarge) sendError(res, httpErrors.tooLarge(BODY_LIMIT));
    else res.destroy();
    return { ok: false };
  }
}

export async function serveControl(req: IncomingMessage, res: ServerResponse, path: string, hooks: ControlHooks): Promise<void> {
  const route = `${req.method} ${path}`;
  if (route === 'GET /_control/stats') return sendJson(res, 200, hooks.stats());
  const known = ['POST /_control/script', 'POST /_control/transcripts', 'POST /_control/options'];
  if (!known.includes(route)) return sendError(res, httpErrors.notFound(req.method ?? 'GET', path));

  const body = await readJson(req, res);
  if (!body.ok) return;
  switch (route) {
    case 'POST /_control/script': {
      const parsed = parseScriptJson(body.value);
      if (!parsed.ok) return sendError(res, httpErrors.invalid(parsed.message, 'script'));
      hooks.setScript(parsed.script);
      return sendJson(res, 200, { ok: true, entries: parsed.script.length });
    }
    case 'POST /_control/transcripts': {
      const parsed = transcriptsSchema.safeParse(body.value);
      if (!parsed.success) return sendError(res, httpErrors.invalid('expected ["…"] or {"transcripts":["…"]}', 'transcripts'));
      const transcripts = Array.isArray(parsed.data) ? parsed.data : parsed.data.transcripts;
      hooks.queueTranscripts(transcripts);
      return sendJson(res, 200, { ok: true, queued: transcripts.length });
    }
    default: {
      const parsed = controlOptionsSchema.safeParse(body.value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return sendError(res, httpErrors.invalid(`invalid options: ${issue?.message ?? 'bad shape'} at ${issue?.path.join('.') ?? ''}`, 'options'));
      }
      hooks.setOptions(parsed.data);
      return sendJson(res, 200, { ok: true });
    }
  }
}
