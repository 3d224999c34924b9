/**
 * A protocol-faithful local Cartesia TTS server (docs/providers.md B.12) for tests and benchmarks:
 * WebSocket `/tts/websocket` with multiplexed contexts, and `POST /tts/bytes`.
 *
 * Audio of each input (transcript piece) of a context is `synthesizeTaggedPcm16(piece, rate,
 * msPerChar)` in the requested encoding, so a test can tell which sent chunk produced each sample.
 */
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { CartesiaConnection } from './cartesia/connection.js';
import { admit, rejectUpgrade, requestUrl } from './cartesia/handshake.js';
import { type BytesHooks, sendHttpError, serveBytes } from './cartesia/http-bytes.js';
import {
  CARTESIA_SERVER_DEFAULTS,
  type CartesiaServerOptions,
  type ReceivedHttpRequest,
  type ReceivedMessage,
  type FinishedContext,
  type VoicedPiece,
} from './cartesia/options.js';
import { AUDIBLE_TONES_HZ } from './audio-tag.js';
import { errors, newRequestId } from './cartesia/protocol.js';
import { seededRandom } from './cartesia/timing.js';
import { listenOnLoopback } from './listen.js';

export {
  CARTESIA_SERVER_DEFAULTS,
  type CartesiaFault,
  type CartesiaFaultContext,
  type CartesiaServerOptions,
  type FinishedContext,
  type ReceivedHttpRequest,
  type ReceivedMessage,
  type VoicedPiece,
} from './cartesia/options.js';

export interface CartesiaServer {
  /** `ws://127.0.0.1:PORT` (append `/tts/websocket`). */
  url: string;
  /** `http://127.0.0.1:PORT` (append `/tts/bytes`). */
  httpUrl: string;
  port: number;
  /** Every client message that parsed as a JSON object (generation and cancel), in arrival order. */
  received: ReceivedMessage[];
  /** With `audio: 'audible'`: every piece spoken, in order, with the tone it got. */
  voiced: VoicedPiece[];
  /** Every `/tts/bytes` request whose body parsed as a JSON object. */
  httpRequests: ReceivedHttpRequest[];
  /** WebSocket connections accepted so far. */
  connectionsOpened: number;
  /** Contexts that generated all their audio, in order, with when (epoch ms). */
  finishedContexts: FinishedContext[];
  /** Ids of the contexts that expired (idle `contextExpiryMs` after their last audio), in order. */
  expiredContexts: string[];
  /** Every WebSocket connection accepted, with the API key it presented (to count per client). */
  connectionKeys: Array<{ connectionId: number; key: string }>;
  openConnections(): number;
  /** Contexts (and `/tts/bytes` requests) counting toward concurrency right now, over all keys. */
  activeContexts(): number;
  setOptions(patch: Partial<CartesiaServerOptions>): void;
  /** Abrupt terminate of every socket (client sees 1006) and every in-flight `/tts/bytes` response. */
  dropAllConnections(): void;
  /**
   * Every open socket goes silent: it stops answering anything (messages, pings) and sends nothing
   * more, without closing TCP, as a NAT timeout or a half-open connection looks to the client.
   * Sockets opened later are served normally. Returns how many went silent.
   */
  goSilent(): number;
  close(): Promise<void>;
}

const WS_PATH = '/tts/websocket';
const BYTES_PATH = '/tts/bytes';

class KeyCounter {
  #counts = new Map<string, number>();

  get(key: string): number {
    return this.#counts.get(key) ?? 0;
  }

  add(key: string, delta: number): void {
    const next = this.get(key) + delta;
    if (next <= 0) this.#counts.delete(key);
    else this.#counts.set(key, next);
  }

  total(): number {
    let sum = 0;
    for (const count of this.#counts.values()) sum += count;
    return sum;
  }
}

/**
 * Answers a request that is not part of the protocol (e.g. a test-control route); returns false
 * to let the server answer 404 as the real service does.
 */
export type ExtraRoutes = (req: IncomingMessage, res: ServerResponse) => boolean;

export async function startCartesiaServer(
  options: Partial<CartesiaServerOptions> & { port?: number; extraRoutes?: ExtraRoutes } = {},
): Promise<CartesiaServer> {
  const { port: requestedPort = 0, extraRoutes, ...rest } = options;
  let current: CartesiaServerOptions = { ...CARTESIA_SERVER_DEFAULTS, ...rest };
  const random = seededRandom(current.seed);
  const received: ReceivedMessage[] = [];
  const httpRequests: ReceivedHttpRequest[] = [];
  const expiredContexts: string[] = [];
  const finishedContexts: FinishedContext[] = [];
  const voiced: VoicedPiece[] = [];
  // Tones go round in turn: any 20 consecutive pieces (a call's replies) sound apart.
  const toneFor = (piece: Omit<VoicedPiece, 'hz'>): number => {
    const hz = AUDIBLE_TONES_HZ[voiced.length % AUDIBLE_TONES_HZ.length]!;
    voiced.push({ ...piece, hz });
    return hz;
  };
  const connectionKeys: Array<{ connectionId: number; key: string }> = [];
  const connections = new Set<CartesiaConnection>();
  const connectionsPerKey = new KeyCounter();
  const contextsPerKey = new KeyCounter();
  const inFlightHttp = new Set<AbortController>();
  let connectionsOpened = 0;
  let closing = false;

  const acquireContext = (key: string): boolean => {
    if (contextsPerKey.get(key) >= current.concurrencyLimit) return false;
    contextsPerKey.add(key, 1);
    return true;
  };
  const releaseContext = (key: string): void => contextsPerKey.add(key, -1);

  // Pongs are the connection's to send, so a silent socket can withhold them.
  const wss = new WebSocketServer({ noServer: true, clientTracking: false, autoPong: false });
  const handshakeIds = new WeakMap<IncomingMessage, string>();
  wss.on('headers', (headers, req) => {
    headers.push(`X-Request-Id: ${handshakeIds.get(req) ?? newRequestId()}`);
  });

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const requestId = newRequestId();
    if (closing) return rejectUpgrade(socket, errors.serverFault({ statusCode: 503, message: 'server closing' }), requestId);
    if (requestUrl(req).pathname !== WS_PATH) return rejectUpgrade(socket, errors.notFound(), requestId);
    const admission = admit(req, current.apiKeys);
    if (!admission.ok) return rejectUpgrade(socket, admission.error, requestId);
    if (connectionsPerKey.get(admission.key) >= current.maxConnections) {
      return rejectUpgrade(socket, errors.connectionLimited(current.maxConnections), requestId);
    }
    handshakeIds.set(req, requestId);
    connectionsPerKey.add(admission.key, 1);
    let accepted = false;
    socket.once('close', () => {
      if (!accepted) connectionsPerKey.add(admission.key, -1);
    });
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted = true;
      connectionKeys.push({ connectionId: ++connectionsOpened, key: admission.key });
      const connection = new CartesiaConnection(
        ws,
        { id: connectionsOpened, key: admission.key, features: admission.features, requestId },
        {
          options: () => current,
          random,
          record: (message) => received.push(message),
          toneFor,
          acquireContext,
          releaseContext,
          expired: (contextId) => expiredContexts.push(contextId),
          finished: (contextId, at) => finishedContexts.push({ contextId, at }),
          closed: (closed) => {
            connections.delete(closed);
            connectionsPerKey.add(closed.key, -1);
          },
        },
      );
      connections.add(connection);
    });
  };

  const bytesHooks: BytesHooks = {
    options: () => current,
    random,
    record: (request) => httpRequests.push(request),
    toneFor,
    acquireContext,
    releaseContext,
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = newRequestId();
    if (requestUrl(req).pathname !== BYTES_PATH) {
      if (extraRoutes?.(req, res)) return;
      return sendHttpError(res, errors.notFound(), requestId);
    }
    if (req.method !== 'POST') {
      return sendHttpError(
        res,
        { statusCode: 405, errorCode: 'method_not_allowed', title: 'Method not allowed', message: 'Use POST.' },
        requestId,
      );
    }
    const admission = admit(req, current.apiKeys);
    if (!admission.ok) return sendHttpError(res, admission.error, requestId);
    const abort = new AbortController();
    inFlightHttp.add(abort);
    res.on('close', () => abort.abort());
    serveBytes(req, res, admission, requestId, bytesHooks, abort.signal)
      .catch(() => res.destroy())
      .finally(() => inFlightHttp.delete(abort));
  };

  const server: Server = createServer(onRequest);
  server.on('upgrade', onUpgrade);
  const port = await listenOnLoopback(server, requestedPort);

  const dropAllConnections = (): void => {
    for (const connection of connections) connection.terminate();
    for (const abort of inFlightHttp) abort.abort();
  };

  return {
    url: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    port,
    received,
    voiced,
    httpRequests,
    expiredContexts,
    finishedContexts,
    connectionKeys,
    get connectionsOpened() {
      return connectionsOpened;
    },
    openConnections: () => connections.size,
    activeContexts: () => contextsPerKey.total(),
    setOptions: (patch) => {
      current = { ...current, ...patch };
    },
    dropAllConnections,
    goSilent: () => {
      let silenced = 0;
      for (const connection of connections) {
        if (connection.silent) continue;
        connection.silence();
        silenced++;
      }
      return silenced;
    },
    close: async () => {
      if (closing) return;
      closing = true;
      dropAllConnections();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      // 'close' events of terminated sockets release their contexts and timers.
      await new Promise<void>((resolve) => setImmediate(resolve));
      wss.close();
    },
  };
}
