import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type StaticFile, createFileReader, staticFiles } from './static-files.js';
import { type TokenOptions, mintJoinToken, tokenRequestSchema } from './token.js';

export interface WebServerOptions extends TokenOptions {
  /** LiveKit URL returned to the browser with each token. */
  livekitUrl: string;
  /** Directory with index.html, app.js… @defaultValue `<project>/web` */
  webRoot?: string;
}

const MAX_BODY_BYTES = 4 * 1024;

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

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': CONTENT_SECURITY_POLICY,
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message ?? body.error));
  }
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(JSON.stringify(body));
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, {
      error: 'unsupported_media_type',
      message: 'send the request as application/json',
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, {
        error: 'body_too_large',
        message: `keep the request under ${MAX_BODY_BYTES} bytes`,
      });
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, { error: 'invalid_json', message: 'the request body is not valid JSON' });
  }
}

async function handleToken(
  req: IncomingMessage,
  res: ServerResponse,
  options: WebServerOptions,
): Promise<void> {
  const parsed = tokenRequestSchema.safeParse(await readJsonBody(req));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      field: issue.path.length > 0 ? issue.path.join('.') : '(body)',
      message: issue.message,
    }));
    throw new HttpError(400, {
      error: 'invalid_request',
      message: issues.map((i) => `${i.field}: ${i.message}`).join('; '),
      issues,
    });
  }
  const token = await mintJoinToken(parsed.data, options);
  const expiresAt = new Date(Date.now() + options.ttlSeconds * 1000).toISOString();
  sendJson(res, 200, {
    token,
    url: options.livekitUrl,
    room: parsed.data.room,
    identity: parsed.data.identity,
    agentName: options.agentName ?? null,
    expiresAt,
  });
}

async function handleStatic(
  req: IncomingMessage,
  res: ServerResponse,
  file: StaticFile,
  read: (file: StaticFile) => Promise<Buffer>,
): Promise<void> {
  const body = await read(file).catch(() => {
    throw new HttpError(404, { error: 'not_found', message: 'file missing on the server' });
  });
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': file.contentType,
    'content-length': String(body.length),
    'cache-control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * `npm run web`: the browser page, livekit-client's ESM build, and `POST /token`. No
 * state; a token is minted per request from the validated room and identity.
 */
export function createWebServer(options: WebServerOptions): Server {
  const files = staticFiles(options.webRoot);
  const read = createFileReader();

  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const respond = async () => {
      if (path === '/token') {
        if (req.method !== 'POST') {
          throw new HttpError(405, { error: 'method_not_allowed', message: 'use POST /token' });
        }
        return handleToken(req, res, options);
      }
      const file = files.get(path);
      if (!file) throw new HttpError(404, { error: 'not_found', message: `no such page: ${path}` });
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new HttpError(405, { error: 'method_not_allowed', message: 'use GET' });
      }
      return handleStatic(req, res, file, read);
    };
    respond().catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError) {
        const allowed = path === '/token' ? 'POST' : 'GET, HEAD';
        const allow = error.status === 405 ? { allow: allowed } : undefined;
        sendJson(res, error.status, error.body, allow);
        return;
      }
      // one JSON line, like the worker's logs; the web server stays free of the agents framework
      const line = { level: 'error', msg: 'web request failed', path, error: String(error) };
      console.error(JSON.stringify(line));
      sendJson(res, 500, { error: 'internal', message: 'internal error; see the server log' });
    });
  });
}
