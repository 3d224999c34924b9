/** Plain node:http plumbing shared by the REST endpoints: bodies, auth, JSON and error replies. */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HttpError, httpErrors } from './errors.js';

export class BodyTooLarge extends Error {}

/** Reads the whole body; rejects (and stops reading) past `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    req.on('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
    // A client that goes away mid-body never sends 'end'.
    req.on('close', () => {
      if (!ended) reject(new Error('client closed the request'));
    });
  });
}

/** `req_` + 32 hex, the form of OpenAI's `x-request-id`. */
export function newRequestId(): string {
  return `req_${randomBytes(16).toString('hex')}`;
}

/** An id in OpenAI's style: prefix + base62-ish random characters. */
export function newId(prefix: string, length = 24): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return `${prefix}${id}`;
}

export function bearerKey(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
  return match?.[1];
}

/** undefined when the request carries an accepted key. */
export function authError(req: IncomingMessage, apiKeys: readonly string[]): HttpError | undefined {
  const key = bearerKey(req);
  if (key === undefined) return httpErrors.missingKey();
  return apiKeys.includes(key) ? undefined : httpErrors.invalidKey(key);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, requestId = newRequestId()): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
    'openai-version': '2020-10-01',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: HttpError, requestId?: string): void {
  sendJson(res, error.status, { error: error.error }, requestId);
}

/** JSON.parse that reports failure instead of throwing. */
export function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}
