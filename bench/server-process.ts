/**
 * The provider side of the benchmark, in its own process so that its timers and encoding never
 * share an event loop (or a CPU account) with the client under test. Driven over IPC by
 * bench/servers.ts.
 */
import { type CartesiaServer, type CartesiaServerOptions, startCartesiaServer } from '../test/servers/cartesia-server.js';

export type ServerRequest =
  | { type: 'start'; servers: Record<string, Partial<CartesiaServerOptions>> }
  | { type: 'chunks'; id: number; contextIds: string[] }
  | { type: 'stop' };

export type ServerReply =
  | { type: 'started'; urls: Record<string, string> }
  | { type: 'chunks'; id: number; counts: Record<string, number> }
  | { type: 'error'; message: string };

const servers = new Map<string, CartesiaServer>();
/** Non-blank transcripts received per context id (what each strategy sent as separate text). */
const transcripts = new Map<string, number>();

function reply(message: ServerReply): void {
  process.send?.(message);
}

function drainReceived(): void {
  for (const server of servers.values()) {
    for (const { message } of server.received.splice(0)) {
      const context = message.context_id;
      if (typeof context !== 'string' || typeof message.transcript !== 'string' || !message.transcript.trim()) continue;
      transcripts.set(context, (transcripts.get(context) ?? 0) + 1);
    }
  }
}

async function handle(request: ServerRequest): Promise<void> {
  switch (request.type) {
    case 'start': {
      const urls: Record<string, string> = {};
      for (const [name, options] of Object.entries(request.servers)) {
        const server = await startCartesiaServer(options);
        servers.set(name, server);
        urls[name] = server.httpUrl;
      }
      return reply({ type: 'started', urls });
    }
    case 'chunks': {
      drainReceived();
      const counts: Record<string, number> = {};
      for (const id of request.contextIds) {
        counts[id] = transcripts.get(id) ?? 0;
        transcripts.delete(id);
      }
      return reply({ type: 'chunks', id: request.id, counts });
    }
    case 'stop':
      await Promise.all([...servers.values()].map((s) => s.close()));
      process.exit(0);
  }
}

process.on('message', (request: ServerRequest) => {
  handle(request).catch((error: unknown) => reply({ type: 'error', message: String(error) }));
});
process.on('disconnect', () => process.exit(0));
