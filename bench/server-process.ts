/**
 * The provider side of the benchmark, in its own process so that its timers and encoding never
 * share an event loop (or a CPU account) with the client under test. Driven over IPC by
 * bench/servers.ts.
 *
 * What each client did is counted here, at the server, by the API key it presented: every bench
 * client (one strategy in one call) has its own key, so sockets opened and texts received are
 * attributed exactly, whatever library the client is.
 */
import { type CartesiaServer, type CartesiaServerOptions, startCartesiaServer } from '../test/servers/cartesia-server.js';
import { type ResembleServer, type ResembleServerOptions, startResembleServer } from '../test/servers/resemble-server.js';

/** A Cartesia-protocol server (the default), or a Resemble-protocol one. */
export type ServerSpec =
  | (Partial<CartesiaServerOptions> & { provider?: 'cartesia' })
  | (Partial<ResembleServerOptions> & { provider: 'resemble' });

/** What one key did since it was last asked. */
export interface KeyUsage {
  socketsOpened: number;
  /** Non-blank texts received (requests per reply). */
  requests: number;
  /** Those texts, as received (their audio is tagged by them: test/servers/audio-tag.ts). */
  texts: string[];
}

export type ServerRequest =
  | { type: 'start'; servers: Record<string, ServerSpec> }
  | { type: 'usage'; id: number; keys: string[] }
  | { type: 'stop' };

export type ServerReply =
  | { type: 'started'; urls: Record<string, string> }
  | { type: 'usage'; id: number; usage: Record<string, KeyUsage> }
  | { type: 'error'; message: string };

type Running = { provider: 'cartesia'; server: CartesiaServer } | { provider: 'resemble'; server: ResembleServer };

const servers = new Map<string, Running>();
const keyOfConnection = new Map<string, string>();
const usage = new Map<string, KeyUsage>();

function reply(message: ServerReply): void {
  process.send?.(message);
}

function usageOf(key: string): KeyUsage {
  let u = usage.get(key);
  if (!u) usage.set(key, (u = { socketsOpened: 0, requests: 0, texts: [] }));
  return u;
}

function drainReceived(): void {
  for (const [name, running] of servers) {
    for (const { connectionId, key } of running.server.connectionKeys.splice(0)) {
      keyOfConnection.set(`${name}#${connectionId}`, key);
      usageOf(key).socketsOpened++;
    }
    const texts: Array<{ connectionId: number; text: unknown }> =
      running.provider === 'cartesia'
        ? running.server.received.splice(0).map((r) => ({ connectionId: r.connectionId, text: r.message.transcript }))
        : running.server.received.splice(0).map((r) => ({ connectionId: r.connectionId, text: r.payload.data }));
    for (const { connectionId, text } of texts) {
      const key = keyOfConnection.get(`${name}#${connectionId}`);
      if (key === undefined || typeof text !== 'string' || !text.trim()) continue;
      const u = usageOf(key);
      u.requests++;
      u.texts.push(text);
    }
  }
}

async function start(spec: ServerSpec): Promise<{ running: Running; url: string }> {
  if (spec.provider === 'resemble') {
    const { provider: _, ...options } = spec;
    const server = await startResembleServer(options);
    return { running: { provider: 'resemble', server }, url: server.url };
  }
  const { provider: _, ...options } = spec;
  const server = await startCartesiaServer(options);
  return { running: { provider: 'cartesia', server }, url: server.httpUrl };
}

async function handle(request: ServerRequest): Promise<void> {
  switch (request.type) {
    case 'start': {
      const urls: Record<string, string> = {};
      for (const [name, spec] of Object.entries(request.servers)) {
        const { running, url } = await start(spec);
        servers.set(name, running);
        urls[name] = url;
      }
      return reply({ type: 'started', urls });
    }
    case 'usage': {
      drainReceived();
      const answer: Record<string, KeyUsage> = {};
      for (const key of request.keys) {
        answer[key] = usageOf(key);
        usage.delete(key);
      }
      return reply({ type: 'usage', id: request.id, usage: answer });
    }
    case 'stop':
      await Promise.all([...servers.values()].map((s) => s.server.close()));
      process.exit(0);
  }
}

process.on('message', (request: ServerRequest) => {
  handle(request).catch((error: unknown) => reply({ type: 'error', message: String(error) }));
});
process.on('disconnect', () => process.exit(0));
