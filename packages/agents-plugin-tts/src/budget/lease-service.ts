/**
 * The worker's connection budget: a tiny service in the main process that every job process asks
 * before it opens a provider socket. LiveKit Agents forks one child per job (and per idle,
 * prewarmed process) with the parent's environment, so the socket's path reaches them in an
 * environment variable. A child that dies drops its connection, and with it every lease it held.
 *
 * Wire format, one JSON object per line. Child → service: `{"op":"take","id":1,"key":"…","wait":true}`,
 * `{"op":"drop","id":1}` (release a lease or withdraw from the queue). Service → child:
 * `{"id":1,"granted":true}` or `{"id":1,"granted":false}` (budget spent and no wait, or queue full).
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, type Socket, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaseLedger, type Ticket } from './lease-ledger.js';

export interface LeaseServiceOptions {
  /** Sockets all job processes together may hold per provider key. */
  limit: number;
  /** Turns waiting per key beyond which a taker is refused at once. @defaultValue 256 */
  maxQueued: number;
}

export interface LeaseService {
  /** The Unix socket job processes connect to. */
  readonly path: string;
  held(key: string): number;
  queued(key: string): number;
  close(): Promise<void>;
  /** For `process.on('exit')`, where nothing asynchronous runs: removes the socket's directory. */
  removeSync(): void;
}

const KEY = /^[0-9a-f]{8,64}$/;
/** A line longer than this is not a lease request: the connection is dropped. */
const MAX_LINE = 512;

interface Holder {
  socket: Socket;
  tickets: Map<number, LeaseTicket>;
}

interface LeaseTicket extends Ticket<Holder> {
  readonly id: number;
}

export async function startLeaseService(opts: Partial<LeaseServiceOptions> & Pick<LeaseServiceOptions, 'limit'>): Promise<LeaseService> {
  const ledger = new LeaseLedger<Holder>(opts.limit, opts.maxQueued ?? 256);
  // A private directory (0700): only this user's processes can take or drop leases.
  const dir = await mkdtemp(join(tmpdir(), 'firstword-leases-'));
  const path = join(dir, 'budget.sock');
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serve(ledger, socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  server.unref(); // the budget must never be what keeps a stopping worker alive
  return {
    path,
    held: (key) => ledger.held(key),
    queued: (key) => ledger.queued(key),
    close: async () => {
      for (const socket of connections) socket.destroy();
      await closeServer(server, dir);
    },
    removeSync: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function serve(ledger: LeaseLedger<Holder>, socket: Socket): void {
  const holder: Holder = { socket, tickets: new Map() };
  const grant = (granted: Array<Ticket<Holder>>) => {
    for (const t of granted as LeaseTicket[]) reply(t.holder.socket, t.id, true);
  };
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!handle(line)) return void socket.destroy();
    }
    if (buffered.length > MAX_LINE) socket.destroy();
  });
  // However the process went (exit, crash, SIGKILL), its connection closes: its leases go back.
  socket.on('close', () => grant(ledger.drop(holder.tickets.values())));
  socket.on('error', () => socket.destroy());

  function handle(line: string): boolean {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return false;
    }
    if (typeof msg !== 'object' || msg === null) return false;
    const { op, id, key, wait } = msg as Record<string, unknown>;
    if (!Number.isSafeInteger(id)) return false;
    const ticketId = id as number;
    if (op === 'take' && typeof key === 'string' && KEY.test(key) && typeof wait === 'boolean') {
      if (holder.tickets.has(ticketId)) return false;
      const ticket: LeaseTicket = { key, holder, id: ticketId };
      const result = ledger.take(ticket, wait);
      if (result === 'refused') reply(socket, ticketId, false);
      else {
        holder.tickets.set(ticketId, ticket);
        if (result === 'held') reply(socket, ticketId, true);
      }
      return true;
    }
    if (op === 'drop') {
      const ticket = holder.tickets.get(ticketId);
      holder.tickets.delete(ticketId);
      if (ticket) grant(ledger.drop([ticket]));
      return true;
    }
    return false;
  }
}

function reply(socket: Socket, id: number, granted: boolean): void {
  if (!socket.destroyed) socket.write(`${JSON.stringify({ id, granted })}\n`);
}

async function closeServer(server: Server, dir: string): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
}
