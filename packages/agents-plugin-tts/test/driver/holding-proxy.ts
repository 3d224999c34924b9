import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy whose server→client direction can be held: bytes the provider sends while held are
 * delivered on release, in order. It reproduces "the server sent X before it saw our message, we
 * read X after sending it" deterministically.
 */
export interface HoldingProxy {
  port: number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingProxy(upstreamPort: number): Promise<HoldingProxy> {
  let held = false;
  const pairs: Array<{ client: Socket; upstream: Socket; pending: Buffer[] }> = [];
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: upstreamPort });
    const pair = { client, upstream, pending: [] as Buffer[] };
    pairs.push(pair);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => {
      if (held) pair.pending.push(d);
      else client.write(d);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', () => {
      if (held) return; // delivered (and closed) on release
      end();
    });
    client.on('error', end);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
      for (const p of pairs) {
        for (const d of p.pending.splice(0)) p.client.write(d);
        if (p.upstream.destroyed) p.client.destroy();
      }
    },
    close: async () => {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
