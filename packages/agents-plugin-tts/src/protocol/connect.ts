import { APIConnectionError, APIStatusError, APITimeoutError } from '@livekit/agents';
import type { IncomingMessage } from 'node:http';
import { type RawData, WebSocket } from 'ws';

const early = new WeakMap<WebSocket, { messages: Array<[RawData, boolean]>; stop: () => void }>();

/**
 * Messages that arrived between the handshake and the caller attaching its own listener (a
 * provider may send an auth error in the same TCP read as the upgrade response). The caller
 * replays them after attaching, so nothing — least of all the reason for a close — is lost.
 */
export function takeEarlyMessages(ws: WebSocket): Array<[RawData, boolean]> {
  const entry = early.get(ws);
  if (!entry) return [];
  entry.stop();
  early.delete(ws);
  return entry.messages;
}

export interface ConnectOptions {
  provider: string;
  /** The env variable that holds the key, named in auth errors so the fix is obvious. */
  keyEnvName: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Opens a WebSocket and maps every way the handshake can fail to an APIError: auth failures are
 * not retryable (retrying a bad key only burns the provider's connection limit), everything else is.
 */
export function openWebSocket(url: string, opts: ConnectOptions): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new APIConnectionError({ message: `${opts.provider}: connect aborted`, options: { retryable: false } }));
      return;
    }
    const ws = new WebSocket(url, { headers: opts.headers, handshakeTimeout: opts.timeoutMs, perMessageDeflate: false });
    const buffered: Array<[RawData, boolean]> = [];
    const onEarly = (data: RawData, isBinary: boolean) => buffered.push([data, isBinary]);
    ws.on('message', onEarly);
    early.set(ws, { messages: buffered, stop: () => ws.off('message', onEarly) });
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      ws.off('open', onOpen);
      if (err) {
        ws.on('error', () => {});
        ws.terminate();
        reject(err);
      } else {
        resolve(ws);
      }
    };
    const onOpen = () => settle();
    const onAbort = () =>
      settle(new APIConnectionError({ message: `${opts.provider}: connect aborted`, options: { retryable: false } }));
    const timer = setTimeout(
      () => settle(new APITimeoutError({ message: `${opts.provider}: connect timed out after ${opts.timeoutMs} ms` })),
      opts.timeoutMs,
    );
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    ws.once('open', onOpen);
    ws.once('error', (err) => settle(new APIConnectionError({ message: `${opts.provider}: ${err.message}` })));
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => settle(handshakeError(opts, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
      res.on('error', () => settle(handshakeError(opts, res.statusCode ?? 0, '')));
    });
  });
}

/**
 * A refusal's body is quoted in the error for diagnosis, but a proxy or a debug endpoint may echo
 * the request's headers: pass the headers that were sent and their credentials are redacted first
 * (before the body is cut, so no prefix of a key survives either).
 */
export function handshakeError(
  opts: Pick<ConnectOptions, 'provider' | 'keyEnvName'> & { headers?: Record<string, string> },
  status: number,
  body: string,
): APIStatusError {
  const detail = redact(body, credentialsIn(opts.headers)).slice(0, 200).replace(/\s+/g, ' ').trim();
  if (status === 401 || status === 403) {
    return new APIStatusError({
      message: `${opts.provider} rejected the API key (HTTP ${status}): check ${opts.keyEnvName}${detail ? ` — ${detail}` : ''}`,
      options: { statusCode: status, retryable: false },
    });
  }
  return new APIStatusError({
    message: `${opts.provider} refused the connection (HTTP ${status})${detail ? `: ${detail}` : ''}`,
    options: { statusCode: status, retryable: status === 429 || status >= 500 },
  });
}

/** Values of the headers that carry credentials, with and without their auth scheme. */
function credentialsIn(headers: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!/authorization|api[-_]?key|token/i.test(name)) continue;
    out.push(value, value.replace(/^\s*(Bearer|Basic|Token)\s+/i, ''));
  }
  return out.filter((v) => v.trim().length >= 4).sort((a, b) => b.length - a.length);
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((t, secret) => t.split(secret).join('[redacted]'), text);
}

/**
 * Builds a provider URL from a base and a path. Keys travel in headers, so a plain-text scheme to a
 * remote host would leak them: only loopback may use ws:// or http:// unless explicitly allowed.
 */
export function providerUrl(base: string, path: string, scheme: 'ws' | 'http', allowInsecure = false): string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`invalid provider base URL: ${JSON.stringify(base)}`);
  }
  const secure = url.protocol === 'https:' || url.protocol === 'wss:';
  if (!secure && url.protocol !== 'http:' && url.protocol !== 'ws:') {
    throw new Error(`unsupported provider URL scheme ${url.protocol} (use wss:// or https://)`);
  }
  if (!secure && !allowInsecure && !isLoopback(url.hostname)) {
    throw new Error(
      `refusing an unencrypted provider URL for a non-loopback host (${url.host}); use wss:// or https://, or set allowInsecure`,
    );
  }
  const proto = scheme === 'ws' ? (secure ? 'wss:' : 'ws:') : secure ? 'https:' : 'http:';
  url.protocol = proto;
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  return url.toString();
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
