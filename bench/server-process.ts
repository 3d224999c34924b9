/**
 * The provider side of the benchmark, in its own process so that its timers and encoding never
 * share an event loop (or a CPU account) with the client under test: one local server per
 * provider and language. Driven over IPC by bench/servers.ts.
 */
import { type CartesiaServer, startCartesiaServer } from '../test/servers/cartesia-server.js';
import { type ResembleServer, startResembleServer } from '../test/servers/resemble-server.js';
import type { Provider } from './scenarios.js';

/** One server: its protocol and the physics every strategy meets. */
export interface ServerSpec {
  provider: Provider;
  firstByteDelayMs: number;
  realTimeFactor: number;
  msPerChar: number;
}

export type ServerRequest =
  | { type: 'start'; servers: Record<string, ServerSpec> }
  | { type: 'chunks'; id: number; contextIds: string[] }
  | { type: 'stop' };

export type ServerReply =
  | { type: 'started'; urls: Record<string, string> }
  /** Per Cartesia context id: non-blank transcripts received, and the connection that carried them. */
  | { type: 'chunks'; id: number; counts: Record<string, number>; connections: Record<string, number> }
  | { type: 'error'; message: string };

/** Every lane and load stream is its own "customer": no provider limits in the way. */
const UNLIMITED = 100_000;

const cartesia = new Map<string, CartesiaServer>();
const resemble = new Map<string, ResembleServer>();
const transcripts = new Map<string, number>();
const connectionOf = new Map<string, number>();

function reply(message: ServerReply): void {
  process.send?.(message);
}

function drainReceived(): void {
  for (const server of cartesia.values()) {
    for (const { message, connectionId } of server.received.splice(0)) {
      const context = message.context_id;
      if (typeof context !== 'string' || typeof message.transcript !== 'string' || !message.transcript.trim()) continue;
      transcripts.set(context, (transcripts.get(context) ?? 0) + 1);
      connectionOf.set(context, connectionId);
    }
  }
  // firstword counts its Resemble requests on its own timeline: nothing to keep here.
  for (const server of resemble.values()) server.received.splice(0);
}

async function start(name: string, spec: ServerSpec): Promise<string> {
  const physics = { firstByteDelayMs: spec.firstByteDelayMs, realTimeFactor: spec.realTimeFactor, msPerChar: spec.msPerChar };
  if (spec.provider === 'cartesia') {
    const server = await startCartesiaServer({ ...physics, concurrencyLimit: UNLIMITED, maxConnections: UNLIMITED });
    cartesia.set(name, server);
    return server.httpUrl;
  }
  const server = await startResembleServer({ ...physics, maxConnectionsPerKey: UNLIMITED });
  resemble.set(name, server);
  return server.url;
}

async function handle(request: ServerRequest): Promise<void> {
  switch (request.type) {
    case 'start': {
      const urls: Record<string, string> = {};
      for (const [name, spec] of Object.entries(request.servers)) urls[name] = await start(name, spec);
      return reply({ type: 'started', urls });
    }
    case 'chunks': {
      drainReceived();
      const counts: Record<string, number> = {};
      const connections: Record<string, number> = {};
      for (const id of request.contextIds) {
        counts[id] = transcripts.get(id) ?? 0;
        const connection = connectionOf.get(id);
        if (connection !== undefined) connections[id] = connection;
        transcripts.delete(id);
        connectionOf.delete(id);
      }
      return reply({ type: 'chunks', id: request.id, counts, connections });
    }
    case 'stop':
      await Promise.all([...cartesia.values(), ...resemble.values()].map((s) => s.close()));
      process.exit(0);
  }
}

process.on('message', (request: ServerRequest) => {
  handle(request).catch((error: unknown) => reply({ type: 'error', message: String(error) }));
});
process.on('disconnect', () => process.exit(0));
