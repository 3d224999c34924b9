import WebSocket from 'ws';

export type ServerMessage =
  | { kind: 'json'; body: Record<string, unknown> & { type: string; request_id?: number } }
  | { kind: 'binary'; bytes: Buffer };

/** A raw Resemble-protocol client that records everything the server sends. */
export class RawClient {
  readonly messages: ServerMessage[] = [];
  readonly socket: WebSocket;
  #waiters: Array<() => void> = [];
  closeCode?: number;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data, isBinary) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      this.messages.push(isBinary ? { kind: 'binary', bytes } : { kind: 'json', body: JSON.parse(bytes.toString('utf8')) });
      this.#notify();
    });
    socket.on('close', (code) => {
      this.closeCode = code;
      this.#notify();
    });
  }

  static async connect(url: string, apiKey: string | undefined): Promise<RawClient> {
    const headers = apiKey === undefined ? {} : { Authorization: `Bearer ${apiKey}` };
    const socket = new WebSocket(`${url}/stream`, { headers });
    const client = new RawClient(socket);
    await withTimeout(new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    }), 5000, 'connect');
    return client;
  }

  send(body: unknown): void {
    this.socket.send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** Resolves once `predicate` holds over the messages received so far. */
  async waitFor(predicate: (messages: ServerMessage[]) => boolean, label: string, timeoutMs = 10_000): Promise<void> {
    await withTimeout(new Promise<void>((resolve) => {
      const check = () => {
        if (predicate(this.messages) || this.closeCode !== undefined) {
          this.#waiters = this.#waiters.filter((w) => w !== check);
          resolve();
        }
      };
      this.#waiters.push(check);
      check();
    }), timeoutMs, label);
    if (!predicate(this.messages)) throw new Error(`socket closed (${this.closeCode}) before ${label}`);
  }

  waitForTerminal(requestId: number): Promise<void> {
    return this.waitFor(
      (messages) => messages.some((m) => m.kind === 'json' && m.body.request_id === requestId && (m.body.type === 'audio_end' || m.body.type === 'error')),
      `end of request ${requestId}`,
    );
  }

  /** PCM of one request from JSON audio frames. */
  audioOf(requestId: number): Buffer {
    return Buffer.concat(
      this.messages.flatMap((m) =>
        m.kind === 'json' && m.body.type === 'audio' && m.body.request_id === requestId
          ? [Buffer.from(String(m.body.audio_content), 'base64')]
          : [],
      ),
    );
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((resolve) => this.socket.once('close', resolve));
    this.socket.terminate();
    await withTimeout(closed, 2000, 'close');
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

export function pcmRequest(overrides: Record<string, unknown>): Record<string, unknown> {
  return {
    voice_uuid: 'local-espeak-ng',
    precision: 'PCM_16',
    output_format: 'wav',
    sample_rate: 16000,
    no_audio_header: true,
    binary_response: false,
    ...overrides,
  };
}

export function withTimeout<T>(promise: Promise<T>, ms: number, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${label}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
