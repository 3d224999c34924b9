import type { Server } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { RoomProvisioner, RoomRequest } from '../../src/web/rooms.js';
import { type WebServerOptions, createWebServer } from '../../src/web/server.js';

export const API_KEY = 'APIwebtest';
export const API_SECRET = 'web-test-secret-long-enough-for-hs256-0123456789';

/** A port nothing listens on: bind, note, release. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Rooms as LiveKit would keep them, without a LiveKit server: `busy` makes every new room fail. */
export interface FakeRooms extends RoomProvisioner {
  made: RoomRequest[];
  live: Set<string>;
  busy: boolean;
}

export function fakeRooms(): FakeRooms {
  const rooms: FakeRooms = {
    made: [],
    live: new Set(),
    busy: false,
    async provision(request) {
      if (rooms.busy) return { ok: false, busy: true };
      rooms.made.push(request);
      rooms.live.add(request.room);
      return { ok: true };
    },
    async exists(room) {
      return rooms.live.has(room);
    },
  };
  return rooms;
}

export interface RunningWebServer {
  server: Server;
  base: string;
  rooms: FakeRooms;
  close(): Promise<void>;
}

export async function startWebServer(overrides: Partial<WebServerOptions> = {}): Promise<RunningWebServer> {
  const rooms = fakeRooms();
  const server = createWebServer({
    livekitUrl: 'ws://127.0.0.1:7880',
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    ttlSeconds: 600,
    agentName: 'firstword',
    rooms,
    // every test request comes from 127.0.0.1: the limits have their own tests (rate-limit, auth)
    rate: { perAddressPerMinute: 10_000, perUserPerMinute: 10_000 },
    ...overrides,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    base: `http://127.0.0.1:${port}`,
    rooms,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function postToken(base: string, body: unknown, contentType = 'application/json', headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': contentType, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}
