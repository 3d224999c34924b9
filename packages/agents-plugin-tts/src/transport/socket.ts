import { APIConnectionError, APITimeoutError, type APIError, log } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';
import { type ProviderCodec, type ProviderEvent, type SendChunk, type TrackKey, rawBytes } from '../protocol/codec.js';
import { takeEarlyMessages } from '../protocol/connect.js';
import { Liveness, type LivenessOptions } from './liveness.js';
import { type TrackOwner, type TrackTable, trackTableFor } from './track-table.js';

export type { TrackOwner } from './track-table.js';

export interface ProviderSocketOptions extends LivenessOptions {
  /** A track that makes no progress for this long fails (alone, or with its socket if in order). */
  inactivityTimeoutMs: number;
}

/** What the socket tells its pool. */
export interface SocketHooks {
  /** Nothing is outstanding any more. */
  onIdle(socket: ProviderSocket): void;
  /** An interrupted stream's tracks stay queued here (in order), so a new stream would wait behind them. */
  onBlocked(socket: ProviderSocket): void;
  onClosed(socket: ProviderSocket): void;
}

let nextSocketId = 1;

/**
 * One live provider WebSocket: the codec's only caller on the wire. It encodes what the driver
 * decided to send, routes decoded events to the stream that owns each track, drops events of
 * stale (interrupted) tracks, and watches for tracks that stop making progress. What in-order and
 * multiplexed providers need differently is the track table's business (track-table.ts).
 */
export class ProviderSocket {
  readonly id = nextSocketId++;
  readonly openedAt = Date.now();
  lastUsedAt = Date.now();
  leases = 0;
  #ws: WebSocket;
  #codec: ProviderCodec;
  #opts: ProviderSocketOptions;
  #tracks: TrackTable;
  #closed = false;
  #watchdog: NodeJS.Timeout | null = null;
  #staleDropped = 0;
  #liveness: Liveness;
  #hooks: SocketHooks;
  #logger = log();

  constructor(
    ws: WebSocket,
    codec: ProviderCodec,
    opts: ProviderSocketOptions,
    hooks: SocketHooks,
  ) {
    this.#ws = ws;
    this.#codec = codec;
    this.#opts = opts;
    this.#tracks = trackTableFor(codec);
    this.#hooks = hooks;
    this.#liveness = new Liveness(ws, opts, (message) => this.failSilent(message));
    ws.on('message', (data: RawData, isBinary: boolean) => this.#onMessage(data, isBinary));
    ws.on('close', (code: number) =>
      this.#fail(new APIConnectionError({ message: `${codec.provider} socket closed (code ${code})` })),
    );
    ws.on('error', (err: Error) =>
      this.#fail(new APIConnectionError({ message: `${codec.provider} socket error: ${err.message}` })),
    );
    for (const [data, isBinary] of takeEarlyMessages(ws)) this.#onMessage(data, isBinary);
  }

  /** A fatal error (e.g. rejected key) seen on this socket, so a new lease can fail fast with it. */
  failure: APIError | undefined;

  get isOpen(): boolean {
    return !this.#closed && this.#ws.readyState === this.#ws.OPEN;
  }

  /** Outstanding tracks, stale ones included. */
  get outstanding(): number {
    return this.#tracks.size;
  }

  /** Whether the peer proved itself alive (data or a pong) within the last `ms`. */
  heardWithin(ms: number): boolean {
    return this.#liveness.heardWithin(ms);
  }

  /** Pings and resolves whether anything came back within `timeoutMs` (see Liveness.probe). */
  probe(timeoutMs: number): Promise<boolean> {
    return this.isOpen ? this.#liveness.probe(timeoutMs) : Promise.resolve(false);
  }

  /** The peer must prove itself again before a turn trusts it: ping now. */
  suspect(): void {
    this.#liveness.suspect();
  }

  /** Fails the socket as dead (its tracks' owners hear why); the pool replaces it. */
  failSilent(message: string): void {
    this.#fail(new APITimeoutError({ message: `${this.#codec.provider} ${message}` }));
  }

  /** Tracks whose owner was interrupted but whose audio has not finished arriving. */
  get staleOutstanding(): number {
    let n = 0;
    for (const [, t] of this.#tracks) if (!t.owner) n++;
    return n;
  }

  /** Events dropped because they belonged to an interrupted stream. */
  get staleEventsDropped(): number {
    return this.#staleDropped;
  }

  /** Whether a new stream can start here without waiting behind others (pool's "clean"). */
  get takesNewStream(): boolean {
    return this.isOpen && this.#tracks.takesNewStream(this.leases);
  }

  /** Outstanding tracks owned by `owner` (for in-flight caps). */
  inFlightFor(owner: TrackOwner): number {
    let n = 0;
    for (const [, t] of this.#tracks) if (t.owner === owner) n++;
    return n;
  }

  /**
   * Sends one piece of a track's text. `awaitingInput`: it was the last text the owner has for
   * this open track for now (more may follow later).
   */
  sendText(owner: TrackOwner, chunk: SendChunk, opts: { awaitingInput: boolean }): void {
    this.#send(chunk.track, owner, () => this.#codec.encode(chunk), opts.awaitingInput);
  }

  /** Ends a track whose text is all sent; the provider owes its end again (watchdog). */
  closeTrack(owner: TrackOwner, track: TrackKey): void {
    this.#send(track, owner, () => this.#codec.encodeClose(track), false);
  }

  #send(track: TrackKey, owner: TrackOwner, encode: () => string[], awaitingInput: boolean): void {
    if (!this.isOpen) {
      throw this.failure ?? new APIConnectionError({ message: `${this.#codec.provider} socket is not open` });
    }
    const messages = encode();
    const now = Date.now();
    const known = this.#tracks.get(track);
    if (known) {
      if (this.#tracks.clockRunsOnSend(track)) known.progressAt = now;
      known.awaitingInput = awaitingInput;
      known.heardSinceSend = false;
    } else {
      this.#tracks.set(track, { owner, progressAt: now, awaitingInput, heardSinceSend: false });
    }
    this.lastUsedAt = now;
    for (const m of messages) this.#ws.send(m);
    this.#armWatchdog();
  }

  #sendRaw(messages: string[]): void {
    if (!this.isOpen) return;
    for (const m of messages) this.#ws.send(m);
  }

  /**
   * Marks the owner's tracks stale: their later events are dropped, and they are cancelled where
   * the provider can cancel. A multiplexed socket forgets them at once (it stays usable); an
   * in-order one keeps them until they drain, because they still block its queue.
   */
  abandon(owner: TrackOwner): void {
    for (const [key, t] of [...this.#tracks]) {
      if (t.owner !== owner) continue;
      t.owner = null;
      this.#sendRaw(this.#codec.encodeCancel(key));
      if (!this.#tracks.keepsAbandoned) this.#remove(key);
    }
    if (this.staleOutstanding > 0) this.#hooks.onBlocked(this);
    this.#maybeIdle();
  }

  /** Closes without waiting for a close acknowledgement (Resemble never sends one). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#clearWatchdog();
    this.#liveness.stop();
    // Streams still speaking on this socket must end, not wait forever (TTS closed, socket discarded).
    const owners = this.#clearTracks();
    const closedError = new APIConnectionError({
      message: `${this.#codec.provider} socket was closed while a reply was in progress`,
      options: { retryable: false },
    });
    this.#ws.removeAllListeners('message');
    this.#ws.on('error', () => {}); // teardown must never crash the process
    try {
      this.#ws.terminate();
    } catch {
      // already gone
    }
    this.#hooks.onClosed(this);
    for (const o of owners) o.onSocketFailure(closedError);
  }

  #remove(key: TrackKey): void {
    this.#tracks.delete(key);
    this.#codec.forget?.(key);
  }

  /** Empties the table; returns the live owners, who must hear why. */
  #clearTracks(): Set<TrackOwner> {
    const owners = this.#owners();
    for (const [key] of [...this.#tracks]) this.#remove(key);
    return owners;
  }

  #owners(): Set<TrackOwner> {
    const owners = new Set<TrackOwner>();
    for (const [, t] of this.#tracks) if (t.owner) owners.add(t.owner);
    return owners;
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    this.#liveness.heard();
    let events: ProviderEvent[];
    try {
      events = this.#codec.decode(data, isBinary, this.#tracks.head());
    } catch (err) {
      // The parse error would quote the payload (customer text): log its shape only.
      this.#logger.warn(
        { provider: this.#codec.provider, bytes: rawBytes(data).byteLength, isBinary, error: (err as Error).name },
        'undecodable provider message',
      );
      return;
    }
    for (const ev of events) this.#route(ev);
  }

  #route(ev: ProviderEvent): void {
    const now = Date.now();
    if (ev.track === undefined) {
      if (ev.type === 'error') {
        if (ev.closesSocket) this.#fail(ev.error);
        else this.#unattributed(ev.error);
      }
      return;
    }
    const t = this.#tracks.get(ev.track);
    if (!t) {
      this.#staleDropped++;
      return;
    }
    t.progressAt = now;
    if (ev.type === 'audio') t.heardSinceSend = true;
    this.lastUsedAt = now;
    const terminal = ev.type === 'end' || ev.type === 'lost' || ev.type === 'error';
    if (terminal) {
      this.#remove(ev.track);
      this.#tracks.removed(now);
    }
    if (t.owner) t.owner.onTrackEvent(ev as ProviderEvent & { track: TrackKey });
    else this.#staleDropped++;
    if (ev.type === 'error' && ev.closesSocket) this.#fail(ev.error);
    if (terminal) this.#maybeIdle();
    this.#settleUnattributed();
  }

  /** An error tied to no track: the track table says whose it is (see `TrackTable.unattributed`). */
  #unattributed(error: APIError): void {
    const verdict = this.#tracks.unattributed(error);
    if (verdict === 'all') for (const o of this.#owners()) o.onSocketFailure(error);
    else if (verdict === 'none') this.#logger.debug({ provider: this.#codec.provider, error: error.message }, 'provider error tied to no outstanding request');
    else this.#settleUnattributed();
  }

  #settleUnattributed(): void {
    for (const [track, error] of this.#tracks.settle()) this.#route({ type: 'error', track, error, closesSocket: false });
  }

  #maybeIdle(): void {
    if (this.#tracks.size === 0 && this.isOpen) this.#hooks.onIdle(this);
  }

  #fail(error: APIError): void {
    if (this.#closed) return;
    this.failure = error;
    const owners = this.#clearTracks();
    this.close();
    for (const o of owners) o.onSocketFailure(error);
  }

  #clearWatchdog(): void {
    if (this.#watchdog) clearTimeout(this.#watchdog);
    this.#watchdog = null;
  }

  /** One timer per socket, re-armed for the oldest deadline among the tracks that must progress. */
  #armWatchdog(): void {
    this.#clearWatchdog();
    if (this.#closed || this.#tracks.size === 0) return;
    let oldest = Infinity;
    for (const [, t] of this.#tracks.watchedTracks()) oldest = Math.min(oldest, t.progressAt);
    if (oldest === Infinity) return; // nothing is owed right now; the next send re-arms
    const wait = Math.max(0, oldest + this.#opts.inactivityTimeoutMs - Date.now());
    this.#watchdog = setTimeout(() => this.#onWatchdog(), wait + 1);
    this.#watchdog.unref?.();
  }

  #onWatchdog(): void {
    this.#watchdog = null;
    const now = Date.now();
    const stalled = [...this.#tracks.watchedTracks()].filter(([, t]) => now - t.progressAt >= this.#opts.inactivityTimeoutMs);
    const timeout = () =>
      new APITimeoutError({
        message: `${this.#codec.provider} sent nothing for ${this.#opts.inactivityTimeoutMs} ms on an active request`,
      });
    if (stalled.length > 0 && this.#tracks.stallFailsSocket) return this.#fail(timeout());
    // Otherwise only the stalled tracks fail (unless the codec knows one is complete after all);
    // other streams on the socket carry on.
    for (const [key, t] of stalled) {
      const complete = this.#codec.stalled?.(key);
      if (complete) {
        this.#route(complete);
        continue;
      }
      this.#remove(key);
      this.#sendRaw(this.#codec.encodeCancel(key));
      t.owner?.onSocketFailure(timeout());
    }
    this.#armWatchdog();
    if (stalled.length > 0) this.#maybeIdle();
  }
}

