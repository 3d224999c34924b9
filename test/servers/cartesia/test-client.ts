/**
 * A raw `ws` client for exercising the local Cartesia server in tests: records every event,
 * waits (always bounded) for events or the close, and decodes a context's audio.
 */
import WebSocket from 'ws';
import { tagForText, tagRuns, samplesForText } from '../audio-tag.js';

export const TEST_VOICE = 'f786b574-daa5-4673-aa0c-cbe3e8534c02';
export const LEGACY_VERSION = '2025-04-16';
export const STRUCTURED_VERSION = '2026-03-01';

export type ServerEvent = Record<string, unknown>;

export interface ConnectOptions {
  key?: string;
  version?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

function buildUrl(base: string, query: Record<string, string> | undefined): string {
  const url = new URL(`${base}/tts/websocket`);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  return url.toString();
}

function defaultHeaders(options: ConnectOptions): Record<string, string> {
  return {
    ...(options.key === undefined ? {} : { 'X-API-Key': options.key }),
    ...(options.version === undefined ? {} : { 'Cartesia-Version': options.version }),
    ...options.headers,
  };
}

/** A generation message with sane defaults; `extra` overrides any field. */
export function generation(contextId: string, transcript: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model_id: 'sonic-3',
    voice: { mode: 'id', id: TEST_VOICE },
    output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 24000 },
    language: 'en',
    context_id: contextId,
    transcript,
    continue: true,
    max_buffer_delay_ms: 0,
    ...extra,
  };
}

function bounded<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class RawCartesiaClient {
  readonly events: ServerEvent[] = [];
  readonly responseHeaders: Record<string, string | string[] | undefined>;
  #ws: WebSocket;
  #waiters = new Set<() => void>();
  #closed: Promise<{ code: number; reason: string }>;

  private constructor(ws: WebSocket, headers: Record<string, string | string[] | undefined>) {
    this.#ws = ws;
    this.responseHeaders = headers;
    ws.on('message', (data) => {
      this.events.push(JSON.parse(data.toString()) as ServerEvent);
      for (const wake of [...this.#waiters]) wake();
    });
    this.#closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        for (const wake of [...this.#waiters]) wake();
      });
    });
  }

  static async connect(baseUrl: string, options: ConnectOptions = {}, timeoutMs = 3000): Promise<RawCartesiaClient> {
    const opts = { key: 'test-key', version: STRUCTURED_VERSION, ...options };
    const ws = new WebSocket(buildUrl(baseUrl, opts.query), { headers: defaultHeaders(opts) });
    ws.on('error', () => {});
    const headers = await bounded(
      new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
        ws.once('upgrade', (res) => resolve(res.headers));
        ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
        ws.once('error', reject);
      }),
      timeoutMs,
      'the upgrade',
    );
    if (ws.readyState !== WebSocket.OPEN) await bounded(new Promise((r) => ws.once('open', r)), timeoutMs, 'open');
    return new RawCartesiaClient(ws, headers);
  }

  send(message: Record<string, unknown> | string): void {
    this.#ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The first event (already received or future) matching `predicate`. */
  async waitFor(predicate: (event: ServerEvent) => boolean, timeoutMs = 3000, what = 'an event'): Promise<ServerEvent> {
    const find = (): ServerEvent | undefined => this.events.find(predicate);
    const found = find();
    if (found) return found;
    let wake: (() => void) | undefined;
    try {
      return await bounded(
        new Promise<ServerEvent>((resolve, reject) => {
          wake = () => {
            const event = find();
            if (event) resolve(event);
            else if (this.#ws.readyState === WebSocket.CLOSED) reject(new Error(`socket closed while waiting for ${what}`));
          };
          this.#waiters.add(wake);
        }),
        timeoutMs,
        what,
      );
    } finally {
      if (wake) this.#waiters.delete(wake);
    }
  }

  waitForType(type: string, contextId: string, timeoutMs = 3000): Promise<ServerEvent> {
    return this.waitFor((e) => e.type === type && e.context_id === contextId, timeoutMs, `${type} of ${contextId}`);
  }

  /** Events of one context, in arrival order. */
  of(contextId: string, type?: string): ServerEvent[] {
    return this.events.filter((e) => e.context_id === contextId && (type === undefined || e.type === type));
  }

  /** Concatenated audio bytes of a context's chunk events. */
  audioOf(contextId: string): Buffer {
    return Buffer.concat(this.of(contextId, 'chunk').map((e) => Buffer.from(e.data as string, 'base64')));
  }

  closed(timeoutMs = 3000): Promise<{ code: number; reason: string }> {
    return bounded(this.#closed, timeoutMs, 'the close');
  }

  ping(timeoutMs = 3000): Promise<void> {
    const pong = new Promise<void>((resolve) => this.#ws.once('pong', () => resolve()));
    this.#ws.ping();
    return bounded(pong, timeoutMs, 'a pong');
  }

  close(): void {
    this.#ws.terminate();
  }
}

/** The tag runs the server must produce for these pieces, in order (pcm_s16le). */
export function expectedRuns(pieces: string[], sampleRate: number, msPerChar: number): Array<{ tag: number; samples: number }> {
  return pieces.map((p) => ({ tag: tagForText(p), samples: samplesForText(p, sampleRate, msPerChar) }));
}

export function runsOf(pcm16: Buffer): Array<{ tag: number; samples: number }> {
  const samples = new Int16Array(pcm16.buffer.slice(pcm16.byteOffset, pcm16.byteOffset + pcm16.length));
  return tagRuns(samples);
}

/** Status, headers and body of a refused upgrade. */
export async function refusedUpgrade(
  baseUrl: string,
  options: ConnectOptions,
  timeoutMs = 3000,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Record<string, unknown> }> {
  const ws = new WebSocket(buildUrl(baseUrl, options.query), { headers: defaultHeaders(options) });
  ws.on('error', () => {});
  try {
    return await bounded(
      new Promise((resolve, reject) => {
        ws.once('open', () => reject(new Error('upgrade was accepted')));
        ws.once('unexpected-response', (_req, res) => {
          const parts: Buffer[] = [];
          res.on('data', (part: Buffer) => parts.push(part));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: JSON.parse(Buffer.concat(parts).toString()) as Record<string, unknown>,
            }),
          );
        });
      }),
      timeoutMs,
      'the refused upgrade',
    );
  } finally {
    ws.terminate();
  }
}
