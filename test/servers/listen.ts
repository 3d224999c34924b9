import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Listens on 127.0.0.1 (port 0 picks a free one) and resolves with the port; rejects when the
 * port cannot be had. Protocol servers never listen beyond loopback.
 */
export function listenOnLoopback(server: Server, port: number): Promise<number> {
  server.on('clientError', (_error, socket) => socket.destroy());
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
