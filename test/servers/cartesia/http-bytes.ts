/**
 * `POST /tts/bytes`: one generation per request, the whole audio streamed as the HTTP body
 * (`container: "raw"` or `"wav"`). Same auth, version and model validation as the WebSocket, with
 * errors as HTTP status + JSON body. Counts as one active context while it streams (B.9).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bytesPerSample, synthesizePiece, wavHeader } from './audio.js';
import type { CartesiaFault, CartesiaServerOptions, ReceivedHttpRequest, VoicedPiece } from './options.js';
import { streamFrames } from './pacing.js';
import { type ErrorSpec, type VersionFeatures, errors, httpErrorBody } from './protocol.js';
import { isAbort, wait } from './timing.js';
import { isUnspeakable, validateGeneration } from './validate.js';

export interface BytesHooks {
  options(): CartesiaServerOptions;
  random(): number;
  record(request: ReceivedHttpRequest): void;
  toneFor(piece: Omit<VoicedPiece, 'hz'>): number;
  acquireContext(key: string): boolean;
  releaseContext(key: string): void;
}

const MAX_BODY_BYTES = 1 << 20;

export function sendHttpError(res: ServerResponse, spec: ErrorSpec, requestId: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(httpErrorBody(spec, requestId));
  res.writeHead(spec.statusCode, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
  });
  res.end(body);
}

async function readBody(req: IncomingMessage, signal: AbortSignal): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    if (signal.aborted) return undefined;
    size += (part as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

function parseObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // answered as invalid_request below
  }
  return undefined;
}

/** Serves one admitted request; resolves when the response is over. `signal` aborts it (drop/close). */
export async function serveBytes(
  req: IncomingMessage,
  res: ServerResponse,
  admitted: { key: string; features: VersionFeatures },
  requestId: string,
  hooks: BytesHooks,
  signal: AbortSignal,
): Promise<void> {
  const body = parseObject(await readBody(req, signal));
  if (signal.aborted) return void res.destroy();
  if (!body) return sendHttpError(res, errors.invalidRequest('body must be a JSON object'), requestId);
  hooks.record({ body, headers: { ...req.headers } });

  const options = hooks.options();
  const validation = validateGeneration(body, admitted.features, options, 'http');
  if (!validation.ok) return sendHttpError(res, validation.error, requestId);
  const request = validation.request;
  if (isUnspeakable(request.transcript)) {
    return sendHttpError(res, errors.emptyTranscript(), requestId);
  }
  if (!hooks.acquireContext(admitted.key)) {
    return sendHttpError(res, errors.concurrencyLimited(options.concurrencyLimit), requestId);
  }

  try {
    const fault = options.fault?.({ connectionId: 0, contextId: '', transcript: request.transcript, index: 0 });
    const pcm = synthesizePiece(request.transcript, request.encoding, request.sampleRate, options, (transcript) =>
      hooks.toneFor({ connectionId: 0, contextId: '', transcript }),
    );
    const header = request.container === 'wav' ? wavHeader(request.encoding, request.sampleRate, pcm.length) : undefined;
    const audio = header ? Buffer.concat([header, pcm]) : pcm;
    const startBody = (): void => {
      if (res.headersSent) return;
      res.writeHead(200, {
        'Content-Type': header ? 'audio/wav' : 'application/octet-stream',
        'X-Request-Id': requestId,
      });
    };

    await streamFrames(
      {
        audio,
        bytesPerSecond: bytesPerSample(request.encoding) * request.sampleRate,
        faultAt: fault && fault.kind !== 'no-done' ? (fault.afterBytes ?? 0) : undefined,
      },
      () => hooks.options(),
      () => hooks.random(),
      signal,
      {
        frame: (bytes) => {
          startBody();
          res.write(bytes);
          return true;
        },
        strike: () => strikeHttp(fault!, res, requestId, signal),
      },
    );
    if (res.destroyed || res.writableEnded) return;
    if (fault?.kind === 'no-done') await wait(Infinity, signal);
    startBody();
    res.end();
  } catch (error) {
    if (!isAbort(error)) throw error;
    res.destroy();
  } finally {
    hooks.releaseContext(admitted.key);
  }
}

async function strikeHttp(
  fault: CartesiaFault,
  res: ServerResponse,
  requestId: string,
  signal: AbortSignal,
): Promise<boolean> {
  switch (fault.kind) {
    case 'error-event':
      // Before the first byte the error can still be a status; after it, only a cut body.
      sendHttpError(res, errors.serverFault(fault), requestId);
      return true;
    case 'terminate':
      res.socket?.destroy();
      res.destroy();
      return true;
    case 'stall':
      await wait(fault.stallMs ?? Infinity, signal);
      return false;
    case 'no-done':
      return false;
  }
}
