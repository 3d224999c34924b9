/**
 * One accepted WebSocket: parses client frames, keeps the per-socket context table, routes
 * generation and cancel messages, and closes the socket after an idle period (B.2, B.12.2-4, 12).
 */
import { type RawData, WebSocket } from 'ws';
import { CartesiaContext, type ContextHost } from './context.js';
import type { CartesiaServerOptions, ReceivedMessage, VoicedPiece } from './options.js';
import { type ErrorSpec, type VersionFeatures, errorEvent, errors } from './protocol.js';
import { OneShotTimer } from './timing.js';
import { changedFields, isUnspeakable, validateGeneration } from './validate.js';

/** What a connection needs from the server that owns it. */
export interface ConnectionHooks {
  options(): CartesiaServerOptions;
  random(): number;
  record(message: ReceivedMessage): void;
  /** The audible voice's tone for a piece about to be spoken (logged by the server). */
  toneFor(piece: Omit<VoicedPiece, 'hz'>): number;
  /** A context generated all its audio (epoch ms `at`). */
  finished(contextId: string, at: number): void;
  /** Claims one active-context slot for `key`; false when the key is at its concurrency limit. */
  acquireContext(key: string): boolean;
  releaseContext(key: string): void;
  /** A context expired (1 s, by default, after its last audio); its id is refused from now on. */
  expired(contextId: string): void;
  closed(connection: CartesiaConnection): void;
}

export interface ConnectionIdentity {
  id: number;
  key: string;
  features: VersionFeatures;
  /** The handshake's X-Request-Id; structured errors derive their request_id from it. */
  requestId: string;
}

/** Ids of released contexts remembered per socket, so late input on them is refused. */
const MAX_REMEMBERED_CONTEXTS = 100_000;
const IDLE_CLOSE_CODE = 1000;
const IDLE_CLOSE_REASON = 'connection idle timeout';

export class CartesiaConnection {
  readonly id: number;
  readonly key: string;
  #ws: WebSocket;
  #identity: ConnectionIdentity;
  #hooks: ConnectionHooks;
  #contexts = new Map<string, CartesiaContext>();
  #releasedIds = new Set<string>();
  #idleTimer = new OneShotTimer();
  #contextHost: ContextHost;
  #silent = false;

  constructor(ws: WebSocket, identity: ConnectionIdentity, hooks: ConnectionHooks) {
    this.#ws = ws;
    this.#identity = identity;
    this.#hooks = hooks;
    this.id = identity.id;
    this.key = identity.key;
    this.#contextHost = {
      connectionId: identity.id,
      options: () => hooks.options(),
      random: () => hooks.random(),
      toneFor: (piece) => hooks.toneFor(piece),
      finished: (contextId) => hooks.finished(contextId, Date.now()),
      send: (event) => this.#send(event),
      errorEvent: (spec, contextId) => this.#errorEvent(spec, contextId),
      noteActivity: () => this.#restartIdleTimer(),
      terminateSocket: () => this.terminate(),
      released: (context, why) => this.#onContextReleased(context, why),
    };
    ws.on('ping', (data) => {
      if (!this.#silent) ws.pong(data);
    });
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => this.#onClose());
    ws.on('error', () => {});
    this.#restartIdleTimer();
  }

  /** Contexts that count toward concurrency: generating, open, or finished but not yet expired. */
  get activeContexts(): number {
    return this.#contexts.size;
  }

  get silent(): boolean {
    return this.#silent;
  }

  /** From now on nothing is answered or sent (pongs included); TCP stays open until the client drops it. */
  silence(): void {
    this.#silent = true;
    this.#idleTimer.cancel();
  }

  /** Abrupt drop without a close frame; the client sees 1006. */
  terminate(): void {
    this.#ws.terminate();
  }

  #send(event: Record<string, unknown>): void {
    if (this.#ws.readyState === WebSocket.OPEN && !this.#silent) this.#ws.send(JSON.stringify(event));
  }

  #errorEvent(spec: ErrorSpec, contextId: string | undefined): Record<string, unknown> {
    return errorEvent(spec, this.#identity.features, contextId, this.#identity.requestId);
  }

  #sendError(spec: ErrorSpec, contextId: string | undefined): void {
    this.#send(this.#errorEvent(spec, contextId));
  }

  #restartIdleTimer(): void {
    this.#idleTimer.start(this.#hooks.options().idleCloseMs, () => {
      if (this.#ws.readyState === WebSocket.OPEN) this.#ws.close(IDLE_CLOSE_CODE, IDLE_CLOSE_REASON);
    });
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#silent) return;
    this.#restartIdleTimer();
    if (isBinary) {
      this.#sendError(errors.invalidRequest('binary frames are not accepted; send JSON text'), undefined);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(rawToString(data));
    } catch {
      this.#sendError(errors.invalidRequest('message is not valid JSON'), undefined);
      return;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.#sendError(errors.invalidRequest('message must be a JSON object'), undefined);
      return;
    }
    const record = message as Record<string, unknown>;
    this.#hooks.record({ connectionId: this.id, message: record, receivedAt: Date.now() });
    if ('cancel' in record) this.#onCancel(record);
    else this.#onGeneration(record);
  }

  #onCancel(message: Record<string, unknown>): void {
    const contextId = typeof message.context_id === 'string' ? message.context_id : undefined;
    if (message.cancel !== true || !contextId) {
      this.#sendError(
        errors.invalidRequest('a cancel request needs context_id and cancel: true'),
        contextId,
      );
      return;
    }
    // Cancelling an unknown or finished context is silently accepted, like any late cancel.
    this.#contexts.get(contextId)?.cancel();
  }

  #onGeneration(message: Record<string, unknown>): void {
    const contextId =
      typeof message.context_id === 'string' && message.context_id.length > 0
        ? message.context_id
        : undefined;
    const existing = contextId === undefined ? undefined : this.#contexts.get(contextId);
    if (contextId !== undefined && (this.#releasedIds.has(contextId) || (existing && !existing.acceptsInput))) {
      this.#refuseClosedContext(contextId, existing);
      return;
    }

    const options = this.#hooks.options();
    const validation = validateGeneration(message, this.#identity.features, options, 'ws');
    if (!validation.ok) {
      if (existing) existing.fail(validation.error);
      else this.#sendError(validation.error, contextId);
      return;
    }
    const input = validation.request;

    if (existing) {
      const changed = changedFields(existing.request.invariant, input.invariant);
      if (changed.length > 0) existing.fail(errors.contextParamsChanged(changed));
      else existing.accept(input);
      return;
    }

    if (isUnspeakable(input.transcript)) {
      this.#sendError(errors.emptyFirstTranscript(), contextId);
      return;
    }
    if (!this.#hooks.acquireContext(this.key)) {
      this.#sendError(errors.concurrencyLimited(options.concurrencyLimit), contextId);
      return;
    }
    const context = new CartesiaContext(this.#contextHost, input);
    this.#contexts.set(context.id, context);
    context.accept(input);
  }

  /**
   * Input for a context whose input already ended: an error; a still-generating one is stopped.
   * An id that no longer exists (expired, cancelled) gets the configurable `expiredContextError`.
   */
  #refuseClosedContext(contextId: string, existing: CartesiaContext | undefined): void {
    const closed = errors.contextClosed(contextId);
    if (existing && existing.state === 'active') existing.fail(closed);
    else if (existing) this.#sendError(closed, contextId);
    else this.#sendError({ ...closed, ...this.#hooks.options().expiredContextError }, contextId);
  }

  #onContextReleased(context: CartesiaContext, why: 'expired' | 'ended'): void {
    if (this.#contexts.get(context.id) !== context) return;
    if (why === 'expired') this.#hooks.expired(context.id);
    this.#contexts.delete(context.id);
    this.#releasedIds.add(context.id);
    if (this.#releasedIds.size > MAX_REMEMBERED_CONTEXTS) {
      const oldest = this.#releasedIds.values().next().value;
      if (oldest !== undefined) this.#releasedIds.delete(oldest);
    }
    this.#hooks.releaseContext(this.key);
  }

  #onClose(): void {
    this.#idleTimer.cancel();
    for (const context of [...this.#contexts.values()]) context.release();
    this.#hooks.closed(this);
  }
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
