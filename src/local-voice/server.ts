import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type WebSocket from 'ws';
import { VoiceConnection } from './connection.js';
import { LocalVoiceError, portInUseError } from './errors.js';
import { errorFrame } from './protocol.js';
import { EspeakSynthesizer } from './synthesizer.js';

export interface LocalVoiceServerOptions {
  /**
   * Port on the loopback interface; 0 picks a free one.
   * @defaultValue 0
   */
  port?: number;
  /**
   * Only loopback is allowed: the server speaks with a throwaway key and must not be reachable
   * from other machines.
   * @defaultValue '127.0.0.1'
   */
  host?: '127.0.0.1';
  /**
   * Duration of the shortest audio frame sent to the client, in milliseconds; audio eSpeak has
   * already made leaves in frames of whole multiples of it, up to the TTS plugin's longest frame.
   * @defaultValue 20
   */
  frameMs?: number;
  /** Module specifier of the eSpeak-NG build; only tests change it. */
  espeakModule?: string;
}

export interface LocalVoiceServer {
  /** Base URL for a Resemble client (`ws://127.0.0.1:PORT`); the socket itself is at `/stream`. */
  url: string;
  /** Random per-process key the server accepts as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** The voice id to put in requests; any non-empty id is voiced the same way. */
  voiceUuid: string;
  close(): Promise<void>;
}

const defaults = { port: 0, host: '127.0.0.1', frameMs: 20 } as const;

export const LOCAL_VOICE_UUID = 'local-espeak-ng';

/**
 * Starts a WebSocket server that speaks Resemble's streaming protocol on loopback and voices
 * requests with eSpeak-NG, so that the production Resemble client can run with no account and no
 * network. Rejects with a {@link LocalVoiceError} when the optional voice package is missing, the
 * host is not loopback, or the port is taken.
 */
export async function startLocalVoiceServer(options: LocalVoiceServerOptions = {}): Promise<LocalVoiceServer> {
  const opts = { ...defaults, ...options };
  if ((opts.host as string) !== '127.0.0.1') {
    throw new LocalVoiceError('NOT_LOOPBACK', `The local voice server only listens on 127.0.0.1, not '${String(opts.host)}'.`);
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    throw new LocalVoiceError('INVALID_OPTIONS', `The local voice port must be an integer from 0 to 65535, not '${String(opts.port)}'.`);
  }
  const apiKey = randomBytes(24).toString('base64url');
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const http = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' }).end('Resemble-protocol WebSocket at /stream\n');
  });
  // Bind first: a taken port is reported in milliseconds, before the voice spends time loading.
  await listen(http, opts.port, opts.host);
  let synthesizer: EspeakSynthesizer;
  try {
    synthesizer = await EspeakSynthesizer.start({ espeakModule: opts.espeakModule });
  } catch (error) {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    throw error;
  }
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/stream') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      if (!bearerMatches(req.headers.authorization, apiKey)) {
        // Resemble reports a failed handshake as a ConnectionFailure frame, then closes.
        ws.send(JSON.stringify(errorFrame('ConnectionFailure', 401, 'Unauthorized: invalid or missing Bearer API key')));
        ws.close(1008, 'unauthorized');
        return;
      }
      new VoiceConnection(ws, synthesizer, opts.frameMs);
    });
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  let closing: Promise<void> | undefined;
  return {
    url: `ws://${opts.host}:${port}`,
    apiKey,
    voiceUuid: LOCAL_VOICE_UUID,
    close: () => {
      closing ??= (async () => {
        for (const ws of sockets) ws.terminate();
        wss.close();
        await new Promise<void>((resolve) => http.close(() => resolve()));
        await synthesizer.close();
      })();
      return closing;
    },
  };
}

function bearerMatches(header: string | undefined, apiKey: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(apiKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function listen(http: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      http.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' || error.code === 'EACCES' ? portInUseError(host, port, error) : error);
    };
    const onListening = () => {
      http.off('error', onError);
      resolve();
    };
    http.once('error', onError);
    http.once('listening', onListening);
    http.listen(port, host);
  });
}
