/**
 * Auth and version checks shared by the WebSocket upgrade and `/tts/bytes` (B.2), and the raw
 * HTTP error response written on a rejected upgrade.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import {
  type ErrorSpec,
  type VersionFeatures,
  errors,
  featuresFor,
  httpErrorBody,
  isWellFormedVersion,
} from './protocol.js';

export type Admission = { ok: true; key: string; features: VersionFeatures } | { ok: false; error: ErrorSpec };

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The key from X-API-Key, `Authorization: Bearer`, `?api_key=` or `?access_token=`, in that order. */
function presentedKey(req: IncomingMessage, url: URL): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
  return (
    header(req, 'x-api-key') ??
    bearer ??
    url.searchParams.get('api_key') ??
    url.searchParams.get('access_token') ??
    undefined
  );
}

export function requestUrl(req: IncomingMessage): URL {
  return new URL(req.url ?? '/', 'http://127.0.0.1');
}

/** Version first (a request without one is malformed), then the key. */
export function admit(req: IncomingMessage, apiKeys: readonly string[]): Admission {
  const url = requestUrl(req);
  const version = header(req, 'cartesia-version') ?? url.searchParams.get('cartesia_version') ?? undefined;
  if (version === undefined || version.length === 0) return { ok: false, error: errors.missingVersion() };
  if (!isWellFormedVersion(version)) return { ok: false, error: errors.invalidVersion() };
  const key = presentedKey(req, url);
  if (key === undefined || !apiKeys.includes(key)) return { ok: false, error: errors.unauthorized() };
  return { ok: true, key, features: featuresFor(version) };
}

/** Answers a refused upgrade with a plain HTTP response (JSON body) and closes the socket. */
export function rejectUpgrade(socket: Duplex, spec: ErrorSpec, requestId: string): void {
  const body = JSON.stringify(httpErrorBody(spec, requestId));
  const head = [
    `HTTP/1.1 ${spec.statusCode} ${STATUS_CODES[spec.statusCode] ?? 'Error'}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
  ];
  socket.on('error', () => {});
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}
