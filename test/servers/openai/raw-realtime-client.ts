/** A bare `ws` client of the realtime endpoint with bounded waits, for protocol-level tests. */
import WebSocket from 'ws';
import { withTimeout } from '../../helpers/async.js';

export type ServerEvent = Record<string, unknown> & { type: string };

export class RawRealtimeClient {
  readonly events: ServerEvent[] = [];
  closeCode: number | undefined;
  #waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.events.push(JSON.parse(data.toString()) as ServerEvent);
      for (const wake of this.#waiters) wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      for (const wake of this.#waiters) wake();
    });
  }

  /** `baseUrl` is the server's `http://…/v1`; the query defaults to what the plugin sends. */
  static async connect(baseUrl: string, { key = 'test-key', query = 'intent=transcription&model=gpt-4o-transcribe' } = {}): Promise<RawRealtimeClient> {
    const url = `${baseUrl.replace(/^http/, 'ws')}/realtime?${query}`;
    const ws = new WebSocket(url, { headers: { Authorization: `Bearer ${key}` } });
    const client = new RawRealtimeClient(ws);
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      }),
      3000,
      'realtime upgrade',
    );
    return client;
  }

  /** Resolves with the refused upgrade's status and JSON body. */
  static refused(baseUrl: string, { key = 'test-key', query = 'intent=transcription', path = '/realtime' } = {}): Promise<{ status: number; body: unknown }> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}?${query}`, { headers: { Authorization: `Bearer ${key}` } });
    return withTimeout(
      new Promise((resolve, reject) => {
        ws.once('unexpected-response', (_req, res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown }));
        });
        ws.once('open', () => reject(new Error('upgrade was accepted')));
        ws.once('error', () => {});
      }),
      3000,
      'refused upgrade',
    );
  }

  send(event: Record<string, unknown> | string): void {
    this.ws.send(typeof event === 'string' ? event : JSON.stringify(event));
  }

  append(samples: Int16Array): void {
    this.send({ type: 'input_audio_buffer.append', audio: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength).toString('base64') });
  }

  of(type: string): ServerEvent[] {
    return this.events.filter((e) => e.type === type);
  }

  /** The `count`-th (1-based) event of `type`. */
  async waitFor(type: string, count = 1, timeoutMs = 3000): Promise<ServerEvent> {
    await this.#until(() => this.of(type).length >= count, `${count}× ${type} (got ${this.events.map((e) => e.type).join(', ')})`, timeoutMs);
    return this.of(type)[count - 1]!;
  }

  async waitForClose(timeoutMs = 3000): Promise<number> {
    await this.#until(() => this.closeCode !== undefined, 'close', timeoutMs);
    return this.closeCode!;
  }

  #until(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
    if (condition()) return Promise.resolve();
    let wake!: () => void;
    const done = new Promise<void>((resolve) => {
      wake = () => {
        if (condition()) resolve();
      };
    });
    this.#waiters.add(wake);
    return withTimeout(done, timeoutMs, what).finally(() => this.#waiters.delete(wake));
  }

  close(): void {
    this.ws.terminate();
  }
}

/** `ms` of a 24 kHz tone at amplitude `amp` (0..1): speech as an energy detector sees it. */
export function tone(ms: number, amp = 0.3, rate = 24_000): Int16Array {
  const out = new Int16Array(Math.round((rate * ms) / 1000));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(Math.sin((2 * Math.PI * 220 * i) / rate) * amp * 32767);
  return out;
}

export function silence(ms: number, rate = 24_000): Int16Array {
  return new Int16Array(Math.round((rate * ms) / 1000));
}
