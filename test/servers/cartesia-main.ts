/**
 * The local Cartesia-protocol server as a process, for the real-LiveKit stack (scripts/stack):
 *
 *   tsx test/servers/cartesia-main.ts [--port N] [--options '{"firstByteDelayMs":120}']
 *
 * Prints one line `{"url":"http://127.0.0.1:PORT","port":PORT}` once it listens (the worker's
 * CARTESIA_BASE_URL is that url) and exits 0 on SIGTERM/SIGINT. Test-control routes, which the
 * real service does not have:
 *   GET  /_control/stats    {"connectionsOpened","openConnections","activeContexts","messages","voiced","httpRequests"}
 *   GET  /_control/received every client message that parsed as JSON, in arrival order:
 *                           {"messages":[{"connectionId","receivedAt","message":{context_id, transcript, continue, cancel…}}]}
 *                           (`?since=N` skips the first N) — the exact transcripts a test's audio is tagged by
 *   GET  /_control/voiced   with `audio: 'audible'`, every piece spoken and its tone, in order:
 *                           {"voiced":[{"connectionId","contextId","transcript","hz"}]} (`?since=N` skips the first N)
 *   GET  /_control/finished every context that generated all its audio, in order:
 *                           {"finished":[{"contextId","at"}]} (`?since=N` skips the first N)
 *   POST /_control/options  a JSON patch of CartesiaServerOptions (functions such as `fault` excepted)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type CartesiaServer, type CartesiaServerOptions, startCartesiaServer } from './cartesia-server.js';

function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

// Assigned once listening; the routes only run after that.
let server: CartesiaServer;

function stats() {
  return {
    connectionsOpened: server.connectionsOpened,
    openConnections: server.openConnections(),
    activeContexts: server.activeContexts(),
    messages: server.received.length,
    voiced: server.voiced.length,
    finished: server.finishedContexts.length,
    httpRequests: server.httpRequests.length,
  };
}

/** `?since=N`: how many leading entries of a log to skip. */
function sinceOf(req: IncomingMessage): number {
  const since = Number(new URL(req.url ?? '/', 'http://localhost').searchParams.get('since') ?? 0);
  return Number.isInteger(since) && since > 0 ? since : 0;
}

function controlRoutes(req: IncomingMessage, res: ServerResponse): boolean {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === '/_control/stats' && req.method === 'GET') {
    sendJson(res, 200, stats());
    return true;
  }
  if (path === '/_control/received' && req.method === 'GET') {
    sendJson(res, 200, { messages: server.received.slice(sinceOf(req)) });
    return true;
  }
  if (path === '/_control/voiced' && req.method === 'GET') {
    sendJson(res, 200, { voiced: server.voiced.slice(sinceOf(req)) });
    return true;
  }
  if (path === '/_control/finished' && req.method === 'GET') {
    sendJson(res, 200, { finished: server.finishedContexts.slice(sinceOf(req)) });
    return true;
  }
  if (path === '/_control/options' && req.method === 'POST') {
    readBody(req).then(
      (body) => {
        try {
          server.setOptions(JSON.parse(body) as Partial<CartesiaServerOptions>);
          sendJson(res, 200, { ok: true });
        } catch (error) {
          sendJson(res, 400, { ok: false, error: String(error) });
        }
      },
      () => res.destroy(),
    );
    return true;
  }
  return false;
}

const options = JSON.parse(flag('options') ?? '{}') as Partial<CartesiaServerOptions>;
server = await startCartesiaServer({ ...options, port: Number(flag('port') ?? 0), extraRoutes: controlRoutes });
process.stdout.write(`${JSON.stringify({ url: server.httpUrl, port: server.port })}\n`);

const stop = () => void server.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
