/**
 * A protocol-faithful local OpenAI server for tests and benchmarks: what
 * `@livekit/agents-plugin-openai` 1.9.0 (through `openai` 6.49) sends and parses, so the worker's
 * LLM and STT run offline against it.
 *
 * - `POST /v1/chat/completions`: scripted replies streamed as timed tokens (SSE) or one JSON.
 * - `GET  /v1/models`: the LLM's prewarm.
 * - `GET  /v1/realtime?intent=transcription` (WebSocket): realtime transcription with server_vad
 *   or client commits, transcripts from a FIFO queue; the live models (gpt-realtime-whisper,
 *   gpt-live-transcribe) send each word while the speech arrives and refuse server-side VAD.
 * - `POST /v1/audio/transcriptions`: the non-realtime STT, from the same queue.
 * - `/_control/*`: script, transcripts, timing options and stats over HTTP, for a server that runs
 *   as its own process.
 */
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { serveChat } from './openai/chat.js';
import { serveControl } from './openai/control.js';
import { type HttpError, httpErrors } from './openai/errors.js';
import { authError, newRequestId, sendError, sendJson } from './openai/http.js';
import {
  type ChatRequestRecord,
  OPENAI_SERVER_DEFAULTS,
  type OpenAIServerOptions,
  type RealtimeSessionRecord,
  type TranscriptionRequestRecord,
  type UtteranceRecord,
  assertOptions,
} from './openai/options.js';
import { RealtimeConnection } from './openai/realtime-connection.js';
import { errorEvent } from './openai/realtime-protocol.js';
import type { Replay } from './openai/replay.js';
import { type ScriptEntry, assertScript } from './openai/script.js';
import type { QueuedTranscript } from './openai/speech-words.js';
import { TranscriptQueue } from './openai/transcripts.js';
import { serveTranscription } from './openai/transcriptions.js';
import { listenOnLoopback } from './listen.js';

export { OPENAI_SERVER_DEFAULTS, type OpenAIServerOptions, type ChatRequestRecord, type UtteranceRecord, type RealtimeSessionRecord, type TranscriptionRequestRecord } from './openai/options.js';
export type { QueuedTranscript, TimedTranscript } from './openai/speech-words.js';
export { DEFAULT_REPLIES, type ScriptEntry, parseScriptJson } from './openai/script.js';
export { type ReplyTrace, type TimedToken, plainTrace, tokenize } from './openai/tokenize.js';

export interface OpenAIServerStats {
  chatRequests: number;
  chatStreamsOpen: number;
  chatAborted: number;
  /** Each chat request's reply text, in order of arrival. */
  chatReplies: string[];
  realtime: { opened: number; open: number };
  utterances: Pick<UtteranceRecord, 'source' | 'durationMs' | 'rms' | 'transcript'>[];
  transcriptionRequests: number;
  transcriptsQueued: number;
}

export interface OpenAIServer {
  /** `http://127.0.0.1:PORT/v1`: the `baseURL` of `openai.LLM` / `openai.STT`. */
  url: string;
  port: number;
  /** Valid chat requests in arrival order. */
  chatRequests: ChatRequestRecord[];
  /** Committed utterances (realtime) and uploaded files (HTTP), in order. */
  utterances: UtteranceRecord[];
  realtimeSessions: RealtimeSessionRecord[];
  transcriptionRequests: TranscriptionRequestRecord[];
  openRealtimeConnections(): number;
  /** Streams and non-streamed replies still being generated. */
  activeReplies(): number;
  /** Appends to the transcript FIFO shared by the realtime and HTTP paths. */
  queueTranscripts(transcripts: readonly QueuedTranscript[]): void;
  setScript(script: ScriptEntry[]): void;
  setOptions(patch: Partial<OpenAIServerOptions>): void;
  options(): Readonly<OpenAIServerOptions>;
  stats(): OpenAIServerStats;
  /** Abrupt: every realtime socket sees 1006, every reply in flight is cut. */
  dropAllConnections(): void;
  /** Terminates sockets and cancels every timer. */
  close(): Promise<void>;
}

function rejectUpgrade(socket: Duplex, error: HttpError): void {
  const body = JSON.stringify({ error: error.error });
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${newRequestId()}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export async function startOpenAIServer(options: Partial<OpenAIServerOptions> & { port?: number } = {}): Promise<OpenAIServer> {
  const { port: requestedPort = 0, ...rest } = options;
  let current: OpenAIServerOptions = { ...OPENAI_SERVER_DEFAULTS, ...rest };
  assertOptions(current);
  assertScript(current.script);
  const chatRequests: ChatRequestRecord[] = [];
  const utterances: UtteranceRecord[] = [];
  const realtimeSessions: RealtimeSessionRecord[] = [];
  const transcriptionRequests: TranscriptionRequestRecord[] = [];
  const transcripts = new TranscriptQueue();
  const connections = new Set<RealtimeConnection>();
  const replays = new Set<Replay>();
  const timers = new Set<NodeJS.Timeout>();
  const responses = new Set<ServerResponse>();
  let closing = false;

  const setOptions = (patch: Partial<OpenAIServerOptions>): void => {
    const next = { ...current, ...patch };
    assertOptions(next);
    assertScript(next.script);
    current = next;
  };
  const recordUtterance = (utterance: UtteranceRecord): void => void utterances.push(utterance);
  const queueTranscripts = (list: readonly QueuedTranscript[]): void => transcripts.push(list);
  const stats = (): OpenAIServerStats => ({
    chatRequests: chatRequests.length,
    chatStreamsOpen: replays.size,
    chatAborted: chatRequests.filter((r) => r.aborted).length,
    chatReplies: chatRequests.map((r) => r.reply),
    realtime: { opened: realtimeSessions.length, open: connections.size },
    utterances: utterances.map(({ source, durationMs, rms, transcript }) => ({ source, durationMs, rms, transcript })),
    transcriptionRequests: transcriptionRequests.length,
    transcriptsQueued: transcripts.length,
  });

  const wss = new WebSocketServer({ noServer: true, clientTracking: false });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (closing) return rejectUpgrade(socket, { status: 503, error: { message: 'server closing', type: 'server_error', param: null, code: null } });
    if (url.pathname !== '/v1/realtime') return rejectUpgrade(socket, httpErrors.notFound('GET', url.pathname));
    const auth = authError(req, current.apiKeys);
    if (auth && current.realtimeAuthFailure === 'http-401') return rejectUpgrade(socket, auth);
    if (url.searchParams.get('intent') !== 'transcription') {
      return rejectUpgrade(socket, httpErrors.invalid('This local server only serves transcription sessions (intent=transcription).', 'intent', 'unsupported_intent'));
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (auth) {
        ws.send(JSON.stringify(errorEvent({ ...auth.error, eventId: null })));
        ws.close(1008, 'invalid_api_key');
        return;
      }
      const record: RealtimeSessionRecord = {
        connectionId: realtimeSessions.length + 1,
        query: Object.fromEntries(url.searchParams),
        sessionUpdates: [],
        eventCounts: {},
        errors: 0,
        openedAt: Date.now(),
      };
      realtimeSessions.push(record);
      const connection = new RealtimeConnection(ws, record, {
        options: () => current,
        transcripts,
        recordUtterance,
        closed: (closed) => connections.delete(closed),
      });
      connections.add(connection);
    });
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const method = req.method ?? 'GET';
    if (path.startsWith('/_control/')) {
      return serveControl(req, res, path, { setScript: (script) => setOptions({ script }), queueTranscripts, setOptions, stats: () => ({ ...stats() }) });
    }
    const endpoint = `${method} ${path}`;
    if (!['POST /v1/chat/completions', 'POST /v1/audio/transcriptions', 'GET /v1/models'].includes(endpoint)) {
      return sendError(res, httpErrors.notFound(method, path));
    }
    const auth = authError(req, current.apiKeys);
    if (auth) return sendError(res, auth);
    if (endpoint === 'GET /v1/models') {
      return sendJson(res, 200, { object: 'list', data: current.models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' })) });
    }
    if (endpoint === 'POST /v1/chat/completions') {
      return serveChat(req, res, {
        options: () => current,
        record: (request) => chatRequests.push(request),
        track: (replay) => {
          replays.add(replay);
          return () => replays.delete(replay);
        },
      });
    }
    return serveTranscription(req, res, {
      options: () => current,
      transcripts,
      recordRequest: (request) => transcriptionRequests.push(request),
      recordUtterance,
      track: (timer) => {
        timers.add(timer);
        return () => timers.delete(timer);
      },
    });
  };

  const server: Server = createServer((req, res) => {
    responses.add(res);
    res.on('close', () => responses.delete(res));
    route(req, res).catch(() => res.destroy());
  });
  server.on('upgrade', onUpgrade);
  const port = await listenOnLoopback(server, requestedPort);

  const dropAllConnections = (): void => {
    for (const connection of connections) connection.terminate();
    for (const replay of replays) replay.cancel();
    replays.clear();
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    for (const res of responses) res.destroy();
  };

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    chatRequests,
    utterances,
    realtimeSessions,
    transcriptionRequests,
    openRealtimeConnections: () => connections.size,
    activeReplies: () => replays.size + timers.size,
    queueTranscripts,
    setScript: (script) => setOptions({ script }),
    setOptions,
    options: () => current,
    stats,
    dropAllConnections,
    close: async () => {
      if (closing) return;
      closing = true;
      dropAllConnections();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      // 'close' events of terminated sockets clear their timers.
      await new Promise<void>((resolve) => setImmediate(resolve));
      wss.close();
    },
  };
}
