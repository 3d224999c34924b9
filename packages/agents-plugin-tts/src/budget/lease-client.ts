/**
 * A job process's side of the worker's connection budget (lease-service.ts): one Unix-socket
 * connection per process, shared by every pool in it. If the service cannot be reached (or goes
 * away), leases are granted uncounted and each pool's own `maxSockets` is the only bound: a
 * missing budget must never silence a call.
 */
import { log } from '@livekit/agents';
import { createHash } from 'node:crypto';
import { type Socket, createConnection } from 'node:net';
import { type ConnectionBudget, type ConnectionLease, UNCOUNTED_LEASE, onceLease } from './connection-budget.js';

/** The budget's name for a provider key: a digest, so the key itself never leaves the process. */
export function budgetKey(provider: string, apiKey: string): string {
  return createHash('sha256').update(`${provider}\0${apiKey}`).digest('hex').slice(0, 32);
}

type Answer = (granted: boolean, counted: boolean) => void;

class LeaseServiceClient {
  readonly #path: string;
  #socket: Promise<Socket | undefined> | undefined;
  #nextId = 1;
  #answers = new Map<number, Answer>();
  #gone = false;

  constructor(path: string) {
    this.#path = path;
  }

  budget(key: string): ConnectionBudget {
    return {
      tryTake: () => this.#take(key, { wait: false }),
      take: (waitMs, signal) => this.#take(key, { wait: true, waitMs, signal }),
    };
  }

  async #take(key: string, opts: { wait: boolean; waitMs?: number; signal?: AbortSignal }): Promise<ConnectionLease | undefined> {
    const socket = await this.#connect();
    if (!socket) return UNCOUNTED_LEASE;
    if (opts.signal?.aborted) return undefined;
    const id = this.#nextId++;
    const drop = () => this.#send(socket, { op: 'drop', id });
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (lease: ConnectionLease | undefined) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', giveUp);
        this.#answers.delete(id);
        resolve(lease);
      };
      // Withdrawn from the queue; a grant already on its way is released by the same drop.
      const giveUp = () => {
        drop();
        finish(undefined);
      };
      this.#answers.set(id, (granted, counted) => finish(!granted ? undefined : counted ? onceLease(drop) : UNCOUNTED_LEASE));
      if (opts.wait) {
        timer = setTimeout(giveUp, opts.waitMs);
        opts.signal?.addEventListener('abort', giveUp, { once: true });
      }
      this.#send(socket, { op: 'take', id, key, wait: opts.wait });
    });
  }

  #send(socket: Socket, msg: Record<string, unknown>): void {
    if (!this.#gone && !socket.destroyed) socket.write(`${JSON.stringify(msg)}\n`);
  }

  #connect(): Promise<Socket | undefined> {
    if (this.#gone) return Promise.resolve(undefined);
    this.#socket ??= new Promise((resolve) => {
      const socket = createConnection(this.#path);
      socket.once('connect', () => {
        socket.unref(); // an idle budget connection must not keep a finished job process alive
        resolve(socket);
      });
      socket.on('error', () => socket.destroy());
      socket.once('close', () => {
        resolve(undefined);
        this.#lost();
      });
      let buffered = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          this.#onLine(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
        }
      });
    });
    return this.#socket;
  }

  #onLine(line: string): void {
    try {
      const { id, granted } = JSON.parse(line) as { id: number; granted: boolean };
      this.#answers.get(id)?.(granted === true, true);
    } catch {
      // not a line of ours: ignore it rather than fail a turn
    }
  }

  /** The service is unreachable or gone: from now on only the per-process cap applies. */
  #lost(): void {
    if (this.#gone) return;
    this.#gone = true;
    log().warn('TTS connection budget service unreachable: only the per-process socket cap applies');
    for (const answer of [...this.#answers.values()]) answer(true, false);
  }
}

const clients = new Map<string, LeaseServiceClient>();

/** The worker-wide budget for one provider key, through the lease service at `path`. */
export function leaseServiceBudget(path: string, key: string): ConnectionBudget {
  let client = clients.get(path);
  if (!client) clients.set(path, (client = new LeaseServiceClient(path)));
  return client.budget(key);
}
