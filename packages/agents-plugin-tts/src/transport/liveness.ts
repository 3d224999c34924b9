import type { WebSocket } from 'ws';

export interface LivenessOptions {
  /** Nothing heard for this long: ping. */
  pingIntervalMs: number;
  /** A ping unanswered (no pong, no message) this long: the peer is dead. */
  pongTimeoutMs: number;
}

/**
 * Whether the peer of one WebSocket is alive, proven by what it sends: any message or pong. A
 * socket can die without a close (a NAT forgets it, the peer half-closes), and then only a ping
 * that goes unanswered tells. The socket reports every message (`heard()`); this pings when the
 * peer has been quiet for a ping interval, busy or idle, and calls `onDead` when a ping goes
 * unanswered for the pong timeout.
 */
export class Liveness {
  #ws: WebSocket;
  #opts: LivenessOptions;
  #onDead: (message: string) => void;
  #heardAt = Date.now(); // the handshake just proved it
  /** Told to prove itself again (a sibling died of silence), whatever it said last. */
  #suspect = false;
  #pingOutstanding = false;
  #probes = new Set<(alive: boolean) => void>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(ws: WebSocket, opts: LivenessOptions, onDead: (message: string) => void) {
    this.#ws = ws;
    this.#opts = opts;
    this.#onDead = onDead;
    ws.on('pong', () => this.heard());
    this.#arm();
  }

  /** The peer sent something. */
  heard(): void {
    this.#heardAt = Date.now();
    this.#suspect = false;
    this.#pingOutstanding = false;
    for (const settle of [...this.#probes]) settle(true);
  }

  /** Whether the peer proved itself alive within the last `ms`. */
  heardWithin(ms: number): boolean {
    return !this.#suspect && Date.now() - this.#heardAt <= ms;
  }

  /**
   * Pings (unless a ping is already out) and resolves true as soon as anything is heard back,
   * false after `timeoutMs` or once stopped.
   */
  probe(timeoutMs: number): Promise<boolean> {
    if (this.#stopped || this.#ws.readyState !== this.#ws.OPEN) return Promise.resolve(false);
    return new Promise((resolve) => {
      const settle = (alive: boolean) => {
        clearTimeout(timer);
        this.#probes.delete(settle);
        resolve(alive);
      };
      const timer = setTimeout(() => settle(false), timeoutMs);
      timer.unref?.();
      this.#probes.add(settle);
      if (this.#pingOutstanding) return;
      this.#pingOutstanding = true;
      this.#ws.ping(undefined, undefined, (err) => {
        if (err) settle(false);
      });
    });
  }

  /** The peer must prove itself again before it is trusted: ping now. */
  suspect(): void {
    if (this.#stopped) return;
    this.#suspect = true;
    void this.#check();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const settle of [...this.#probes]) settle(false);
  }

  /**
   * One timer, due when the peer will have been quiet for a ping interval. It is not re-armed per
   * message (audio arrives many times a second): when it fires early it re-arms for the rest.
   */
  #arm(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    const due = this.#heardAt + this.#opts.pingIntervalMs - Date.now();
    this.#timer = setTimeout(() => void this.#check(), Math.max(0, due) + 1);
    this.#timer.unref?.();
  }

  async #check(): Promise<void> {
    if (this.#stopped) return;
    if (!this.#suspect && Date.now() - this.#heardAt < this.#opts.pingIntervalMs) return this.#arm();
    clearTimeout(this.#timer);
    const alive = await this.probe(this.#opts.pongTimeoutMs);
    if (this.#stopped) return;
    if (alive) this.#arm();
    else this.#onDead(`socket answered no ping within ${this.#opts.pongTimeoutMs} ms`);
  }
}
