import { APIConnectionError, APITimeoutError, type APIError, log } from '@livekit/agents';
import type { RawData, WebSocket } from 'ws';
import type { ProviderCodec, ProviderEvent, TrackKey } from './codec.js';
import { takeEarlyMessages } from './connect.js';

/** Receives the events of the tracks a stream owns on a socket. */
export interface TrackOwner {
  onTrackEvent(event: ProviderEvent & { track: TrackKey }): void;
  /** The socket failed (dropped, stalled, or a connection-level error) while this owner had tracks on it. */
  onSocketFailure(error: APIError): void;
}

interface Outstanding {
  owner: TrackOwner | null; // null once the owning stream was interrupted: its frames are stale
  progressAt: number; // last send, audio, or (FIFO) time the track reached the head of the queue
  /**
   * All text the owner has so far was sent on this still-open track (a Cartesia context waiting
   * for the LLM). Once audio has come since that send, the provider may owe nothing more until we
   * send again, so a slow LLM must not look like a stalled provider.
   */
  awaitingInput: boolean;
  heardSinceSend: boolean;
  /** We told the provider no more text follows: its next `end` is final... */
  closing: boolean;
  /**
   * ...unless speakable text was sent since the last audio: a `done` then is the early one the
   * provider sent for the idle context while our text was in flight, and another will follow.
   */
  owesAudio: boolean;
}

export interface SendOptions {
  /** See `Outstanding.awaitingInput`. */
  awaitingInput?: boolean;
  /** No more text follows on this track (Resemble: every request; Cartesia: `continue: false`). */
  closes?: boolean;
  /** The message carries speakable text, so audio must come before the track can end. */
  carriesSpeech?: boolean;
}

/** Whether the watchdog holds the provider to account for this track right now. */
function watched(t: Outstanding): boolean {
  return !(t.awaitingInput && t.heardSinceSend);
}

export interface ProviderSocketOptions {
  /** A track that makes no progress for this long fails its socket. */
  inactivityTimeoutMs: number;
}

let nextSocketId = 1;

/**
 * One live provider WebSocket: routes decoded events to the stream that owns each track, drops
 * events of stale (interrupted) tracks, and watches for tracks that stop making progress.
 */
export class ProviderSocket {
  readonly id = nextSocketId++;
  readonly openedAt = Date.now();
  lastUsedAt = Date.now();
  leases = 0;
  #ws: WebSocket;
  #codec: ProviderCodec;
  #opts: ProviderSocketOptions;
  #tracks = new Map<TrackKey, Outstanding>(); // insertion order == send order (FIFO)
  #closed = false;
  #watchdog: NodeJS.Timeout | null = null;
  #staleDropped = 0;
  #onIdle: (socket: ProviderSocket) => void;
  #onClosed: (socket: ProviderSocket) => void;
  #logger = log();

  constructor(
    ws: WebSocket,
    codec: ProviderCodec,
    opts: ProviderSocketOptions,
    hooks: { onIdle: (s: ProviderSocket) => void; onClosed: (s: ProviderSocket) => void },
  ) {
    this.#ws = ws;
    this.#codec = codec;
    this.#opts = opts;
    this.#onIdle = hooks.onIdle;
    this.#onClosed = hooks.onClosed;
    ws.on('message', (data: RawData, isBinary: boolean) => this.#onMessage(data, isBinary));
    ws.on('close', (code: number) =>
      this.#fail(
        new APIConnectionError({ message: `${codec.provider} socket closed (code ${code})` }),
      ),
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

  /** Tracks whose owner was interrupted but whose audio has not finished arriving. */
  get staleOutstanding(): number {
    let n = 0;
    for (const t of this.#tracks.values()) if (!t.owner) n++;
    return n;
  }

  /** Events dropped because they belonged to an interrupted stream. */
  get staleEventsDropped(): number {
    return this.#staleDropped;
  }

  /** Outstanding tracks owned by `owner` (for in-flight caps). */
  inFlightFor(owner: TrackOwner): number {
    let n = 0;
    for (const t of this.#tracks.values()) if (t.owner === owner) n++;
    return n;
  }

  /**
   * Registers a track and sends its messages. `awaitingInput`: this was the last text the owner
   * has for the open track for now (more may follow later).
   */
  send(track: TrackKey, owner: TrackOwner, messages: string[], opts: SendOptions = {}): void {
    if (!this.isOpen) {
      throw this.failure ?? new APIConnectionError({ message: `${this.#codec.provider} socket is not open` });
    }
    const now = Date.now();
    const awaitingInput = opts.awaitingInput ?? false;
    const closing = opts.closes ?? !this.#codec.multiplexed;
    const carriesSpeech = opts.carriesSpeech ?? false;
    const known = this.#tracks.get(track);
    if (known) {
      known.progressAt = this.#isHead(track) || this.#codec.multiplexed ? now : known.progressAt;
      known.awaitingInput = awaitingInput;
      known.heardSinceSend = false;
      known.closing ||= closing;
      known.owesAudio ||= carriesSpeech;
    } else {
      this.#tracks.set(track, { owner, progressAt: now, awaitingInput, heardSinceSend: false, closing, owesAudio: carriesSpeech });
    }
    this.lastUsedAt = now;
    for (const m of messages) this.#ws.send(m);
    this.#armWatchdog();
  }

  /** Sends messages for a track without registering it (close/cancel). */
  sendRaw(messages: string[]): void {
    if (!this.isOpen) return;
    for (const m of messages) this.#ws.send(m);
  }

  /**
   * Marks the owner's tracks stale: their later events are dropped. For a multiplexed provider the
   * tracks are also cancelled and forgotten at once (the socket stays usable); for an in-order
   * provider they stay outstanding until they drain, because they still block the queue.
   */
  abandon(owner: TrackOwner): void {
    for (const [key, t] of this.#tracks) {
      if (t.owner !== owner) continue;
      t.owner = null;
      const cancel = this.#codec.encodeCancel(key);
      if (cancel.length) this.sendRaw(cancel);
      if (this.#codec.multiplexed) this.#tracks.delete(key);
    }
    this.#maybeIdle();
  }

  /** Closes without waiting for a close acknowledgement (Resemble never sends one). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#clearWatchdog();
    // Streams still speaking on this socket must end, not wait forever (TTS closed, socket discarded).
    const owners = new Set<TrackOwner>();
    for (const t of this.#tracks.values()) if (t.owner) owners.add(t.owner);
    this.#tracks.clear();
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
    this.#onClosed(this);
    for (const o of owners) o.onSocketFailure(closedError);
  }

  #isHead(track: TrackKey): boolean {
    const first = this.#tracks.keys().next();
    return !first.done && first.value === track;
  }

  #fifoHead(): TrackKey | undefined {
    const first = this.#tracks.keys().next();
    return first.done ? undefined : first.value;
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    let events: ProviderEvent[];
    try {
      events = this.#codec.decode(data, isBinary, this.#fifoHead());
    } catch (err) {
      // The parse error would quote the payload (customer text): log its shape only.
      const bytes = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer).byteLength;
      this.#logger.warn({ provider: this.#codec.provider, bytes, isBinary, error: (err as Error).name }, 'undecodable provider message');
      return;
    }
    for (const ev of events) this.#route(ev);
  }

  #route(ev: ProviderEvent): void {
    const now = Date.now();
    if (ev.track === undefined) {
      if (ev.type === 'error') {
        if (ev.closesSocket) this.#fail(ev.error);
        else this.#failOwners(ev.error);
      }
      return;
    }
    const t = this.#tracks.get(ev.track);
    if (!t) {
      this.#staleDropped++;
      return;
    }
    t.progressAt = now;
    if (ev.type === 'audio') {
      t.heardSinceSend = true;
      t.owesAudio = false;
    }
    this.lastUsedAt = now;
    // A multiplexed provider may report `done` for a context that merely went idle (Cartesia): it
    // ends the track only once we have closed it; text sent meanwhile is still voiced on it.
    const terminal =
      ev.type === 'error' || (ev.type === 'end' && (!this.#codec.multiplexed || (t.closing && !t.owesAudio)));
    if (terminal) {
      this.#tracks.delete(ev.track);
      const head = this.#fifoHead();
      if (head !== undefined && !this.#codec.multiplexed) this.#tracks.get(head)!.progressAt = now;
    }
    const delivered: ProviderEvent = ev.type === 'end' && !terminal ? { type: 'early_end', track: ev.track } : ev;
    if (t.owner) t.owner.onTrackEvent(delivered as ProviderEvent & { track: TrackKey });
    else this.#staleDropped++;
    if (ev.type === 'error' && ev.closesSocket) this.#fail(ev.error);
    if (terminal) this.#maybeIdle();
  }

  #maybeIdle(): void {
    if (this.#tracks.size === 0 && this.isOpen) this.#onIdle(this);
  }

  #failOwners(error: APIError): void {
    const owners = new Set<TrackOwner>();
    for (const t of this.#tracks.values()) if (t.owner) owners.add(t.owner);
    for (const o of owners) o.onSocketFailure(error);
  }

  #fail(error: APIError): void {
    if (this.#closed) return;
    this.failure = error;
    const owners = new Set<TrackOwner>();
    for (const t of this.#tracks.values()) if (t.owner) owners.add(t.owner);
    this.#tracks.clear();
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
    if (this.#codec.multiplexed) {
      for (const t of this.#tracks.values()) if (watched(t)) oldest = Math.min(oldest, t.progressAt);
    } else {
      const head = this.#tracks.values().next().value!;
      if (watched(head)) oldest = head.progressAt;
    }
    if (oldest === Infinity) return; // nothing is owed right now; the next send re-arms
    const wait = Math.max(0, oldest + this.#opts.inactivityTimeoutMs - Date.now());
    this.#watchdog = setTimeout(() => this.#onWatchdog(), wait + 1);
    this.#watchdog.unref?.();
  }

  #onWatchdog(): void {
    this.#watchdog = null;
    const now = Date.now();
    const isStalled = (t: Outstanding | undefined) =>
      t !== undefined && watched(t) && now - t.progressAt >= this.#opts.inactivityTimeoutMs;
    const timeout = () =>
      new APITimeoutError({
        message: `${this.#codec.provider} sent nothing for ${this.#opts.inactivityTimeoutMs} ms on an active request`,
      });
    if (!this.#codec.multiplexed) {
      // In order: a stalled head blocks everything behind it, so the socket itself is done for.
      if (isStalled(this.#tracks.values().next().value)) return this.#fail(timeout());
      return this.#armWatchdog();
    }
    // Multiplexed: only the stalled context fails; other streams on the socket carry on.
    for (const [key, t] of [...this.#tracks]) {
      if (!isStalled(t)) continue;
      this.#tracks.delete(key);
      this.sendRaw(this.#codec.encodeCancel(key));
      t.owner?.onSocketFailure(timeout());
    }
    this.#armWatchdog();
    this.#maybeIdle();
  }
}
