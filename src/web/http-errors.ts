import type { IncomingMessage, ServerResponse } from 'node:http';

/** A refusal with its status, JSON body and any extra headers (Allow, Retry-After…). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(String(body.message ?? body.error));
  }
}

/**
 * The page may talk to this origin and to any LiveKit server (its URL comes from the
 * token response), load nothing from elsewhere, and play remote audio.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "connect-src 'self' ws: wss: http: https:",
  "media-src 'self' blob: mediastream:",
  "worker-src 'self' blob:",
  "style-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': CONTENT_SECURITY_POLICY,
};

export function sendJson(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(JSON.stringify(body));
}

export const MAX_BODY_BYTES = 4 * 1024;

/** The request's JSON body: application/json, at most MAX_BODY_BYTES, parseable. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, { error: 'unsupported_media_type', message: 'send the request as application/json' });
  }
  const tooLarge = () =>
    // The rest of the body is never read: the connection closes after the answer.
    new HttpError(413, { error: 'body_too_large', message: `keep the request under ${MAX_BODY_BYTES} bytes` }, { connection: 'close' });
  const declared = Number(req.headers['content-length'] ?? 0);
  if (!Number.isFinite(declared) || declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, { error: 'invalid_json', message: 'the request body is not valid JSON' });
  }
}
