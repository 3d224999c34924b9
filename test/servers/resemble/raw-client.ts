/**
 * A bare `ws` client for driving the local protocol servers in tests: records every frame, and
 * every wait is bounded (rejects after `timeoutMs`, clearing its timer).
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

export type ServerFrame =
  | { kind: 'json'; value: Record<string, unknown> }
  | { kind: 'binary'; bytes: Buffer };

export interface CloseInfo {
  code: number;
  reason: string;
}

export function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class RawClient {
  readonly ws: WebSocket;
  readonly frames: ServerFrame[] = [];
  readonly closed: Promise<CloseInfo>;
  #wake: Array<() => void> = [];

  private constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data, isBinary) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      this.frames.push(
        isBinary ? { kind: 'binary', bytes } : { kind: 'json', value: JSON.parse(bytes.toString()) },
      );
      this.#notify();
    });
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.#notify();
      });
    });
  }

  static async connect(
    url: string,
    opts: { key?: string | null; path?: string; closeTimeout?: number } = {},
  ): Promise<RawClient> {
    const key = opts.key === undefined ? 'test-key' : opts.key;
    const headers: Record<string, string> = key === null ? {} : { Authorization: `Bearer ${key}` };
    const ws = new WebSocket(`${url}${opts.path ?? '/stream'}`, {
      headers,
      ...(opts.closeTimeout === undefined ? {} : { closeTimeout: opts.closeTimeout }),
    });
    const client = new RawClient(ws);
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      }),
      5000,
      'the WebSocket to open',
    );
    ws.on('error', () => {});
    return client;
  }

  /** Resolves with the HTTP status and JSON body of a refused upgrade; rejects if it opens. */
  static async refusal(
    url: string,
    opts: { key?: string | null; path?: string } = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const key = opts.key === undefined ? 'test-key' : opts.key;
    const ws = new WebSocket(`${url}${opts.path ?? '/stream'}`, {
      headers: key === null ? {} : { Authorization: `Bearer ${key}` },
    });
    ws.on('error', () => {});
    return withTimeout(
      new Promise((resolve, reject) => {
        ws.once('open', () => {
          ws.terminate();
          reject(new Error('upgrade was accepted'));
        });
        ws.once('unexpected-response', (_req, res: IncomingMessage) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => {
            ws.terminate();
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
          });
        });
      }),
      5000,
      'the upgrade refusal',
    );
  }

  send(request: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(request));
  }

  /** Waits until `predicate` holds for the frames received so far (or the socket closes). */
  async until(predicate: (frames: ServerFrame[]) => boolean, timeoutMs = 3000, what = 'frames'): Promise<ServerFrame[]> {
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (predicate(this.frames)) resolve();
          else if (this.ws.readyState === WebSocket.CLOSED) reject(new Error(`socket closed while waiting for ${what}`));
          else this.#wake.push(check);
        };
        check();
      }),
      timeoutMs,
      what,
    );
    return this.frames;
  }

  /** Waits for the JSON frame matching `match`. */
  async json(match: (value: Record<string, unknown>) => boolean, timeoutMs = 3000): Promise<Record<string, unknown>> {
    const find = (frames: ServerFrame[]) =>
      frames.find((f): f is Extract<ServerFrame, { kind: 'json' }> => f.kind === 'json' && match(f.value));
    await this.until((frames) => find(frames) !== undefined, timeoutMs, 'a matching JSON frame');
    return find(this.frames)!.value;
  }

  audioEnd(requestId: number, timeoutMs = 3000): Promise<Record<string, unknown>> {
    return this.json((v) => v.type === 'audio_end' && v.request_id === requestId, timeoutMs);
  }

  waitClosed(timeoutMs = 3000): Promise<CloseInfo> {
    return withTimeout(this.closed, timeoutMs, 'the socket to close');
  }

  terminate(): void {
    this.ws.terminate();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = [];
    for (const check of wake) check();
  }
}

/** Concatenated audio of one request from JSON frames (base64 `audio_content`). */
export function jsonAudio(frames: ServerFrame[], requestId: number): Buffer {
  return Buffer.concat(
    frames
      .filter((f) => f.kind === 'json' && f.value.type === 'audio' && f.value.request_id === requestId)
      .map((f) => Buffer.from(String((f as { value: Record<string, unknown> }).value.audio_content), 'base64')),
  );
}
