import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpError, SECURITY_HEADERS, sendJson } from './http-errors.js';
import { liveKitRooms } from './rooms.js';
import { type StaticFile, createFileReader, staticFiles } from './static-files.js';
import { type TokenEndpointOptions, createTokenEndpoint } from './token-endpoint.js';

export interface WebServerOptions extends Omit<TokenEndpointOptions, 'rooms'> {
  /** Directory with index.html, app.js… @defaultValue `<project>/web` */
  webRoot?: string;
  /** Where rooms are made. @defaultValue the LiveKit server at `apiUrl` */
  rooms?: TokenEndpointOptions['rooms'];
  /** The LiveKit server's address as this server reaches it. @defaultValue livekitUrl */
  apiUrl?: string;
}

/**
 * Header bytes a request may carry (Node answers 431 beyond it) and how long a client may take
 * to send its headers and whole request: small, since the page's requests are.
 */
export const MAX_HEADER_BYTES = 8 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 20_000;

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

/** A refusal written straight to a socket the HTTP layer has let go of. */
function refuseOnSocket(socket: Duplex, status: number, text: string, error: string): void {
  const body = JSON.stringify({ error });
  const allow = status === 405 ? 'allow: GET, HEAD, POST\r\n' : '';
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${allow}content-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
}

/** The request's path, or undefined for a target that is not an origin-form path. */
function requestPath(url: string | undefined): string | undefined {
  if (!url || !url.startsWith('/') || url.startsWith('//')) return undefined;
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/**
 * `npm run web`: the browser page, livekit-client's ESM build, and `POST /token`. Static files
 * come from a fixed table (no path from a request ever reaches the file system); every refusal
 * is a JSON 4xx that names what to change.
 */
export function createWebServer(options: WebServerOptions): Server {
  const files = staticFiles(options.webRoot);
  const read = createFileReader();
  const rooms =
    options.rooms ??
    liveKitRooms({ url: options.apiUrl ?? options.livekitUrl, apiKey: options.apiKey, apiSecret: options.apiSecret, agentName: options.agentName });
  const token = createTokenEndpoint({ ...options, rooms });

  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS }, (req, res) => {
    const path = requestPath(req.url);
    const respond = async () => {
      if (path === undefined) throw new HttpError(400, { error: 'bad_request', message: 'the request target must be a path' });
      if (path === '/token') {
        if (req.method !== 'POST') throw new HttpError(405, { error: 'method_not_allowed', message: 'use POST /token' }, { allow: 'POST' });
        return token(req, res);
      }
      const file = files.get(path);
      if (!file) throw new HttpError(404, { error: 'not_found', message: 'no such page' });
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new HttpError(405, { error: 'method_not_allowed', message: 'use GET' }, { allow: 'GET, HEAD' });
      }
      return handleStatic(req, res, file, read);
    };
    respond().catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof HttpError) {
        sendJson(res, error.status, error.body, error.headers);
        return;
      }
      // one JSON line, like the worker's logs; the web server stays free of the agents framework
      const line = { level: 'error', msg: 'web request failed', path, error: String(error) };
      console.error(JSON.stringify(line));
      sendJson(res, 500, { error: 'internal', message: 'internal error; see the server log' });
    });
  });
  // A malformed request line or header never reaches the handler: answer 400 (431 for oversized
  // headers) rather than drop the connection. CONNECT and protocol upgrades are not served.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') return socket.destroy();
    if (error.code === 'HPE_HEADER_OVERFLOW') return refuseOnSocket(socket, 431, 'Request Header Fields Too Large', 'headers_too_large');
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return refuseOnSocket(socket, 408, 'Request Timeout', 'timeout');
    refuseOnSocket(socket, 400, 'Bad Request', 'bad_request');
  });
  server.on('connect', (_req, socket: Duplex) => refuseOnSocket(socket, 405, 'Method Not Allowed', 'method_not_allowed'));
  server.on('upgrade', (_req, socket: Duplex) => refuseOnSocket(socket, 400, 'Bad Request', 'upgrade_not_supported'));
  return server;
}
