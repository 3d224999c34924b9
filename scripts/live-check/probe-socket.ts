/**
 * A provider socket for probing: it records every frame with its arrival time and waits only
 * boundedly, so a provider that never answers becomes a finding ("nothing within 2 s"), not a hang.
 */
import { performance } from 'node:perf_hooks';
import type { RawData, WebSocket } from 'ws';
import { rawBytes } from '@firstword/agents-plugin-tts/protocol';
import { takeEarlyMessages } from '@firstword/agents-plugin-tts/protocol';

export interface Frame {
  /** Arrival, in ms on `performance.now()`. */
  at: number;
  raw: Buffer;
  binary: boolean;
  /** The frame parsed, when it is a JSON object. */
  json?: Record<string, unknown>;
}

export interface Closed {
  at: number;
  code: number;
  reason: string;
}

export const now = (): number => performance.now();

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

export class ProbeSocket {
  readonly frames: Frame[] = [];
  readonly openedAt = now();
  closed: Closed | undefined;
  #ws: WebSocket;
  #wake = new Set<() => void>();

  constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.on('message', (data: RawData, isBinary: boolean) => this.#record(data, isBinary));
    // What arrived with the handshake (an auth error frame, say) is replayed, never lost.
    for (const [data, isBinary] of takeEarlyMessages(ws)) this.#record(data, isBinary);
    ws.on('close', (code: number, reason: Buffer) => {
      this.closed = { at: now(), code, reason: reason.toString('utf8') };
      this.#notify();
    });
    ws.on('error', () => {});
  }

  get isOpen(): boolean {
    return this.#ws.readyState === this.#ws.OPEN;
  }

  /** Sends one text frame; returns when it left. */
  send(text: string): number {
    if (!this.isOpen) throw new Error(`the socket closed before the probe could send (${describeClose(this.closed)})`);
    this.#ws.send(text);
    return now();
  }

  /** The first frame from index `from` on that satisfies `match`; undefined after `ms` or once the socket closed. */
  next(match: (frame: Frame) => boolean, ms: number, from = 0): Promise<Frame | undefined> {
    return this.#until(() => this.frames.slice(from).find(match), ms);
  }

  /** The close, if it comes within `ms`. */
  waitClosed(ms: number): Promise<Closed | undefined> {
    return this.#until(() => this.closed, ms, { stopOnClose: false });
  }

  /** Round trip of a protocol ping, or undefined if no pong came within `ms`. */
  ping(ms: number): Promise<number | undefined> {
    const sentAt = now();
    let pongAt: number | undefined;
    const onPong = () => {
      pongAt = now();
      this.#notify();
    };
    this.#ws.once('pong', onPong);
    this.#ws.ping();
    return this.#until(() => (pongAt === undefined ? undefined : pongAt - sentAt), ms).finally(() =>
      this.#ws.off('pong', onPong),
    );
  }

  /** Drops the connection at once (Resemble never acknowledges a close). */
  terminate(): void {
    this.#ws.terminate();
  }

  #record(data: RawData, isBinary: boolean): void {
    const raw = rawBytes(data);
    const frame: Frame = { at: now(), raw, binary: isBinary };
    if (!isBinary) {
      try {
        const value: unknown = JSON.parse(raw.toString('utf8'));
        if (value && typeof value === 'object' && !Array.isArray(value)) frame.json = value as Record<string, unknown>;
      } catch {
        // Not JSON: kept raw, reported as text.
      }
    }
    this.frames.push(frame);
    this.#notify();
  }

  #notify(): void {
    for (const wake of [...this.#wake]) wake();
  }

  #until<T>(probe: () => T | undefined, ms: number, opts = { stopOnClose: true }): Promise<T | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        const value = probe();
        if (value !== undefined || (opts.stopOnClose && this.closed)) finish(value);
      };
      const finish = (value: T | undefined) => {
        clearTimeout(timer);
        this.#wake.delete(check);
        resolve(value);
      };
      const timer = setTimeout(() => finish(probe()), ms);
      this.#wake.add(check);
      check();
    });
  }
}

export function describeClose(closed: Closed | undefined): string {
  if (!closed) return 'still open';
  return `closed with code ${closed.code}${closed.reason ? ` "${closed.reason}"` : ''}`;
}
