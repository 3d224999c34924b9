import type { APIError } from '@livekit/agents';
import type { ProviderCodec, ProviderEvent, TrackKey } from '../protocol/codec.js';

/** Receives the events of the tracks a stream owns on a socket. */
export interface TrackOwner {
  onTrackEvent(event: ProviderEvent & { track: TrackKey }): void;
  /** The socket failed (dropped, stalled, or a connection-level error) while this owner had tracks on it. */
  onSocketFailure(error: APIError): void;
}

/** A track the socket owes audio for. */
export interface Outstanding {
  owner: TrackOwner | null; // null once the owning stream was interrupted: its frames are stale
  progressAt: number; // last send, audio, or (in order) time the track reached the head of the queue
  /**
   * All text the owner has so far was sent on this still-open track (a context waiting for the
   * LLM). Once audio has come since that send, the provider may owe nothing more until we send
   * again, so a slow LLM must not look like a stalled provider.
   */
  awaitingInput: boolean;
  heardSinceSend: boolean;
}

/** Whether the watchdog holds the provider to account for this track right now. */
export function watched(t: Outstanding): boolean {
  return !(t.awaitingInput && t.heardSinceSend);
}

/**
 * A socket's outstanding tracks, in send order, with the rules that follow from how the provider
 * orders its answers (`ProviderCodec.ordering`). The socket asks; only these two classes know
 * what in-order and multiplexed mean.
 */
export abstract class TrackTable {
  protected readonly entries = new Map<TrackKey, Outstanding>(); // insertion order == send order

  get size(): number {
    return this.entries.size;
  }

  get(key: TrackKey): Outstanding | undefined {
    return this.entries.get(key);
  }

  set(key: TrackKey, t: Outstanding): void {
    this.entries.set(key, t);
  }

  delete(key: TrackKey): void {
    this.entries.delete(key);
  }

  [Symbol.iterator](): IterableIterator<[TrackKey, Outstanding]> {
    return this.entries.entries();
  }

  /** The oldest outstanding track: the one an in-order provider is answering now. */
  head(): TrackKey | undefined {
    const first = this.entries.keys().next();
    return first.done ? undefined : first.value;
  }

  /** Whether a send restarts the track's no-progress clock. */
  abstract clockRunsOnSend(key: TrackKey): boolean;
  /** A track left the table at `now`. */
  abstract removed(now: number): void;
  /** An interrupted stream's tracks: kept until they drain (they block the queue), or dropped at once. */
  abstract readonly keepsAbandoned: boolean;
  /** Tracks whose progress the watchdog checks now. */
  abstract watchedTracks(): Iterable<[TrackKey, Outstanding]>;
  /** A stalled track fails the whole socket (it blocks everything behind it), or only itself. */
  abstract readonly stallFailsSocket: boolean;
  /** Whether a socket with `leases` streams on it can serve one more without making it wait. */
  abstract takesNewStream(leases: number): boolean;
  /**
   * An error the provider tied to no track, the socket staying open. `all`: every owner on the
   * socket hears it now. `pending`: it belongs to one track, which `settle()` names once known.
   * `none`: no outstanding track can be the one.
   */
  abstract unattributed(error: APIError): 'all' | 'pending' | 'none';

  /** Tracks that pending unattributed errors are now pinned on, with those errors. */
  settle(): Array<[TrackKey, APIError]> {
    return [];
  }
}

/** The provider answers one request after another (Resemble). */
class InOrderTracks extends TrackTable {
  readonly keepsAbandoned = true;
  readonly stallFailsSocket = true;
  /** Unattributed errors, each with the tracks it may belong to. */
  #suspicions: Array<{ error: APIError; candidates: Set<TrackKey> }> = [];

  /**
   * The provider refuses a request the moment it arrives, before answering the requests queued
   * ahead of it, and never sends it audio: the refused one is among the tracks still waiting for
   * their first audio. Neither the queue's head nor the latest send tells which, but the others
   * will get audio (the provider moves past the refused one), and the last left is the one.
   */
  unattributed(error: APIError): 'pending' | 'none' {
    const candidates = new Set<TrackKey>();
    for (const [key, t] of this.entries) if (!t.heardSinceSend) candidates.add(key);
    if (candidates.size === 0) return 'none';
    this.#suspicions.push({ error, candidates });
    return 'pending';
  }

  override settle(): Array<[TrackKey, APIError]> {
    if (this.#suspicions.length === 0) return [];
    const pinned: Array<[TrackKey, APIError]> = [];
    const pin = (suspicion: { error: APIError; candidates: Set<TrackKey> }, key: TrackKey) => {
      pinned.push([key, suspicion.error]);
      suspicion.candidates.clear();
      for (const other of this.#suspicions) other.candidates.delete(key);
    };
    for (let changed = true; changed; ) {
      changed = false;
      for (const suspicion of this.#suspicions) {
        for (const key of suspicion.candidates) {
          const t = this.entries.get(key);
          if (!t || t.heardSinceSend) suspicion.candidates.delete(key);
        }
        if (suspicion.candidates.size === 1) {
          pin(suspicion, suspicion.candidates.values().next().value!);
          changed = true;
        }
      }
      this.#suspicions = this.#suspicions.filter((s) => s.candidates.size > 0);
    }
    // As many suspects left as errors: all were refused. Refusals come in arrival (send) order,
    // so the n-th error belongs to the n-th of them.
    const left = [...this.entries.keys()].filter((key) => this.#suspicions.some((s) => s.candidates.has(key)));
    if (left.length > 0 && left.length === this.#suspicions.length) {
      this.#suspicions.forEach((suspicion, i) => pinned.push([left[i]!, suspicion.error]));
      this.#suspicions = [];
    }
    return pinned;
  }

  clockRunsOnSend(key: TrackKey): boolean {
    return this.head() === key;
  }

  removed(now: number): void {
    // The next request only starts being answered now.
    const head = this.head();
    if (head !== undefined) this.entries.get(head)!.progressAt = now;
  }

  *watchedTracks(): Iterable<[TrackKey, Outstanding]> {
    const head = this.head();
    if (head === undefined) return;
    const t = this.entries.get(head)!;
    if (watched(t)) yield [head, t];
  }

  takesNewStream(leases: number): boolean {
    return leases === 0 && this.entries.size === 0;
  }
}

/** Tracks are answered concurrently on one socket (Cartesia contexts). */
class MultiplexedTracks extends TrackTable {
  readonly keepsAbandoned = false;
  readonly stallFailsSocket = false;

  clockRunsOnSend(): boolean {
    return true;
  }

  removed(): void {}

  *watchedTracks(): Iterable<[TrackKey, Outstanding]> {
    for (const entry of this.entries) if (watched(entry[1])) yield entry;
  }

  takesNewStream(): boolean {
    return true;
  }

  /** Tracks run concurrently: nothing narrows down which one an untied error is about. */
  unattributed(): 'all' {
    return 'all';
  }
}

export function trackTableFor(codec: Pick<ProviderCodec, 'ordering'>): TrackTable {
  return codec.ordering === 'in-order' ? new InOrderTracks() : new MultiplexedTracks();
}
