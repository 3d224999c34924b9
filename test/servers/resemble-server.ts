/**
 * A protocol-faithful local Resemble WebSocket TTS server (docs/providers.md part A, A.13) for tests and
 * benchmarks: upgrade on `/stream` with Bearer auth, JSON requests, tagged PCM audio (see
 * ./audio-tag.ts) streamed with real timers, and knobs for latency, framing and faults.
 * Knobs are documented in ./resemble/options.ts and ./README.md.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { connectionFailureFrame, errorFrame } from './resemble/frames.js';
import {
  DEFAULT_ERROR_NAMES,
  RESEMBLE_SERVER_DEFAULTS,
  type ReceivedRequest,
  type RejectedRequest,
  type ResembleServerOptions,
} from './resemble/options.js';
import { ResembleSession } from './resemble/session.js';
import { listenOnLoopback } from './listen.js';

export type {
  ReceivedRequest,
  RejectedRequest,
  ResembleErrorNames,
  ResembleFault,
  ResembleServerOptions,
} from './resemble/options.js';
export { RESEMBLE_SERVER_DEFAULTS } from './resemble/options.js';
export { readWavHeader, buildWavHeader } from './resemble/wav-header.js';

export interface ResembleServer {
  /** `ws://127.0.0.1:PORT`; clients connect to `${url}/stream`. */
  url: string;
  port: number;
  /** Every valid request, in arrival order. */
  received: ReceivedRequest[];
  /** Requests answered with a validation error (extra, for tests). */
  rejected: RejectedRequest[];
  /** Total accepted upgrades (including ones then refused by an auth error frame). */
  connectionsOpened: number;
  /** Every connection accepted for service, with the API key it presented (to count per client). */
  connectionKeys: Array<{ connectionId: number; key: string }>;
  /** Upgrades refused for being over `maxConnectionsPerKey` (however the refusal was made). */
  connectionsRefused: number;
  openConnections(): number;
  /** Takes effect for later requests (and later upgrades). */
  setOptions(patch: Partial<ResembleServerOptions>): void;
  /** Abrupt TCP drop of every socket: clients see 1006. */
  dropAllConnections(): void;
  /**
   * Every open socket goes silent: it stops answering anything (requests, pings) and sends nothing
   * more, without closing TCP, as a NAT timeout or a half-open connection looks to the client.
   * Sockets opened later are served normally. Returns how many went silent.
   */
  goSilent(): number;
  close(): Promise<void>;
}

function bearerKey(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return match?.[1]?.trim();
}

function refuseUpgrade(socket: Duplex, status: number, body: Record<string, unknown>): void {
  const json = JSON.stringify(body);
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    () => socket.destroy(),
  );
}

function errorBody(errorName: string, status: number, message: string): Record<string, unknown> {
  return { type: 'error', success: false, error_name: errorName, status_code: status, message };
}

class LocalResembleServer implements ResembleServer {
  readonly url: string;
  readonly port: number;
  readonly received: ReceivedRequest[] = [];
  readonly rejected: RejectedRequest[] = [];
  readonly connectionKeys: Array<{ connectionId: number; key: string }> = [];
  #connectionsOpened = 0;
  #connectionsRefused = 0;
  #options: ResembleServerOptions;
  #http: Server;
  // Pongs are the session's to send, so a silent socket can withhold them.
  #wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, autoPong: false });
  /** Every open socket; sessions only for authenticated ones. */
  #sockets = new Map<WebSocket, ResembleSession | undefined>();
  #openByKey = new Map<string, number>();

  constructor(http: Server, options: ResembleServerOptions) {
    this.#http = http;
    this.#options = options;
    this.port = (http.address() as AddressInfo).port;
    this.url = `ws://127.0.0.1:${this.port}`;
    http.on('upgrade', (req, socket, head) => this.#onUpgrade(req, socket, head));
  }

  get connectionsOpened(): number {
    return this.#connectionsOpened;
  }

  get connectionsRefused(): number {
    return this.#connectionsRefused;
  }

  openConnections(): number {
    return this.#sockets.size;
  }

  setOptions(patch: Partial<ResembleServerOptions>): void {
    this.#options = { ...this.#options, ...patch };
  }

  dropAllConnections(): void {
    for (const [ws, session] of this.#sockets) {
      session?.end();
      ws.terminate();
    }
  }

  goSilent(): number {
    let silenced = 0;
    for (const session of this.#sockets.values()) {
      if (!session || session.silent) continue;
      session.silence();
      silenced++;
    }
    return silenced;
  }

  async close(): Promise<void> {
    this.dropAllConnections();
    this.#wss.close();
    await new Promise<void>((resolve) => {
      this.#http.close(() => resolve());
      this.#http.closeAllConnections();
    });
  }

  #onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const options = this.#options;
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/stream') {
      refuseUpgrade(socket, 404, errorBody('NotFound', 404, `no WebSocket endpoint at ${path}`));
      return;
    }
    const key = bearerKey(req);
    if (key === undefined || !options.apiKeys.includes(key)) {
      this.#refuseAuth(req, socket, head);
      return;
    }
    if ((this.#openByKey.get(key) ?? 0) >= options.maxConnectionsPerKey) {
      this.#refuseOverLimit(req, socket, head);
      return;
    }
    // handleUpgrade completes synchronously here (no verifyClient, no extensions), so the count
    // cannot race a second upgrade.
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      const connectionId = ++this.#connectionsOpened;
      this.connectionKeys.push({ connectionId, key });
      this.#openByKey.set(key, (this.#openByKey.get(key) ?? 0) + 1);
      const session = new ResembleSession(ws, connectionId, {
        options: () => this.#options,
        accept: (request) => this.received.push(request) - 1,
        reject: (rejection) => this.rejected.push(rejection),
      });
      this.#sockets.set(ws, session);
      ws.on('close', () => {
        this.#sockets.delete(ws);
        this.#openByKey.set(key, (this.#openByKey.get(key) ?? 1) - 1);
      });
    });
  }

  /** docs/providers.md A.8/A.9: 20 per key is documented, the refusal's form is not (an option). */
  #refuseOverLimit(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#connectionsRefused++;
    const { maxConnectionsPerKey, connectionLimitRefusal: refusal, errorNames } = this.#options;
    const errorName = errorNames?.tooManyConnections ?? DEFAULT_ERROR_NAMES.tooManyConnections;
    const message = `at most ${maxConnectionsPerKey} parallel connections per API key`;
    if (refusal.kind === 'http') {
      refuseUpgrade(socket, refusal.status, errorBody(errorName, refusal.status, message));
      return;
    }
    // Tracked (so close() ends it) but not counted against the key: it is closed at once, never served.
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#sockets.set(ws, undefined);
      ws.on('close', () => this.#sockets.delete(ws));
      ws.on('error', () => ws.terminate());
      ws.send(errorFrame({ errorName, statusCode: refusal.status, message }));
      ws.close(1000, errorName);
    });
  }

  /** docs/providers.md A.2: `ConnectionFailure` 401, as an HTTP refusal or as an error frame then close. */
  #refuseAuth(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const message = 'Unauthorized: invalid or missing API key';
    if (this.#options.authFailure === 'http-401') {
      refuseUpgrade(socket, 401, errorBody('ConnectionFailure', 401, message));
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#connectionsOpened++;
      this.#sockets.set(ws, undefined);
      ws.on('close', () => this.#sockets.delete(ws));
      ws.on('error', () => ws.terminate());
      ws.send(connectionFailureFrame());
      ws.close(1000, 'ConnectionFailure');
    });
  }
}

/** Starts a server on 127.0.0.1 (port 0 = any free port). */
export async function startResembleServer(
  options: Partial<ResembleServerOptions> & { port?: number } = {},
): Promise<ResembleServer> {
  const { port = 0, ...knobs } = options;
  const http = createServer((_req, res) => {
    res.writeHead(426, { 'Content-Type': 'text/plain' }).end('WebSocket upgrade required on /stream');
  });
  await listenOnLoopback(http, port);
  return new LocalResembleServer(http, { ...RESEMBLE_SERVER_DEFAULTS, ...knobs });
}
