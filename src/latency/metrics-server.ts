/**
 * `METRICS_PORT`: a Prometheus scrape endpoint for the turn budget, in the worker's main process.
 *
 * LiveKit runs every job in its own forked process, so a per-job server would fight over the port
 * (and idle processes would hold it). Instead the main process serves `GET /metrics` and job
 * processes push each turn's numbers to it, `POST /turns` over loopback, fire and forget. Pushes
 * are taken from loopback peers only, so binding the scrape side to all interfaces (`METRICS_HOST=
 * 0.0.0.0`) does not let the network write into the histograms.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { log } from '@livekit/agents';
import { CONFIG_DEFAULTS, type MetricsHost } from '../config/index.js';
import { type LatencyMetrics, type TurnSample, turnSampleSchema } from './metrics.js';

/** Where a job process reaches the main process's endpoint bound on `host`. */
export function pushHostFor(host: MetricsHost): string {
  return host === '::1' || host === 'localhost' ? host : '127.0.0.1';
}

export interface MetricsServerOptions {
  /** 0 picks a free port. */
  port: number;
  /** @defaultValue '127.0.0.1' */
  host: MetricsHost;
  metrics: LatencyMetrics;
  /** Take turn samples on `POST /turns` from loopback peers. @defaultValue true */
  acceptPushes: boolean;
}

export interface MetricsServer {
  readonly host: MetricsHost;
  readonly port: number;
  /** `http://host:port`, for logs and tests. */
  readonly url: string;
  close(): Promise<void>;
}

const MAX_PUSH_BYTES = 16 * 1024;
const LOOPBACK_PEERS = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

function reply(res: ServerResponse, status: number, body = '', contentType = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > limit) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

async function acceptPush(req: IncomingMessage, res: ServerResponse, metrics: LatencyMetrics): Promise<void> {
  if (!LOOPBACK_PEERS.has(req.socket.remoteAddress ?? '')) return reply(res, 403, 'pushes are accepted from loopback only\n');
  const body = await readBody(req, MAX_PUSH_BYTES);
  if (body === undefined) return reply(res, 413, 'turn sample too large\n');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return reply(res, 400, 'not JSON\n');
  }
  const parsed = turnSampleSchema.safeParse(json);
  if (!parsed.success) return reply(res, 400, 'not a turn sample\n');
  metrics.observe(parsed.data);
  reply(res, 204);
}

export async function startMetricsServer(
  options: Pick<MetricsServerOptions, 'port' | 'metrics'> & Partial<MetricsServerOptions>,
): Promise<MetricsServer> {
  const opts: MetricsServerOptions = { host: CONFIG_DEFAULTS.metricsHost, acceptPushes: true, ...options };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const handle = async () => {
      if (path === '/metrics' && req.method === 'GET') return reply(res, 200, await opts.metrics.text(), opts.metrics.contentType);
      if (path === '/turns' && opts.acceptPushes && req.method === 'POST') return acceptPush(req, res, opts.metrics);
      if (path === '/metrics' || (path === '/turns' && opts.acceptPushes)) return reply(res, 405, 'method not allowed\n');
      reply(res, 404, 'not found\n');
    };
    handle().catch((error: Error) => {
      log().warn({ error: error.message }, 'metrics request failed');
      if (!res.headersSent) reply(res, 500, 'internal error\n');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Never what keeps the worker alive: shutdown is the lifecycle's business.
  server.unref();
  const port = (server.address() as AddressInfo).port;
  const shownHost = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    host: opts.host,
    port,
    url: `http://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface TurnPusherOptions {
  port: number;
  /** @defaultValue '127.0.0.1' */
  host: string;
  /** A push that takes longer is dropped. @defaultValue 1000 */
  timeoutMs: number;
}

export interface TurnPusher {
  push(sample: TurnSample): void;
  /** Waits for pushes in flight (bounded by their timeout), then frees the connection. */
  close(): Promise<void>;
}

/**
 * The job-process side: sends each turn sample to the main process. Never throws and never waits
 * the caller; a failed push costs one sample and a log line (a warning the first time).
 */
export function createTurnPusher(options: Pick<TurnPusherOptions, 'port'> & Partial<TurnPusherOptions>): TurnPusher {
  const opts: TurnPusherOptions = { host: '127.0.0.1', timeoutMs: 1_000, ...options };
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const inFlight = new Set<Promise<void>>();
  let warned = false;

  const send = (body: string) =>
    new Promise<void>((resolve) => {
      const req = request(
        {
          host: opts.host,
          port: opts.port,
          method: 'POST',
          path: '/turns',
          agent,
          timeout: opts.timeoutMs,
          headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
          res.on('error', () => resolve());
          if (res.statusCode !== 204) failed(new Error(`HTTP ${res.statusCode}`));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`)));
      req.on('error', (error) => {
        failed(error);
        resolve();
      });
      req.end(body);
    });

  const failed = (error: Error) => {
    const fields = { port: opts.port, error: error.message };
    if (warned) log().debug(fields, 'turn metrics push failed');
    else log().warn(fields, 'turn metrics push failed');
    warned = true;
  };

  return {
    push: (sample) => {
      const pending = send(JSON.stringify(sample));
      inFlight.add(pending);
      void pending.finally(() => inFlight.delete(pending));
    },
    close: async () => {
      await Promise.all([...inFlight]);
      agent.destroy();
    },
  };
}
