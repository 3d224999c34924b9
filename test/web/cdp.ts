import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

/** The flags the project runs Chromium with: headless, sandbox-less (root in CI), and quiet. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--remote-debugging-port=0',
];

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/**
 * Just enough of the Chrome DevTools Protocol to open a page and evaluate expressions in
 * it: one WebSocket to the browser, flattened sessions per page.
 */
export class HeadlessChromium {
  #process: ChildProcess;
  #socket: WebSocket;
  #profile: string;
  #nextId = 1;
  #pending = new Map<number, Pending>();
  readonly exceptions: string[] = [];

  private constructor(process: ChildProcess, socket: WebSocket, profile: string) {
    this.#process = process;
    this.#socket = socket;
    this.#profile = profile;
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as {
        id?: number;
        result?: Record<string, unknown>;
        error?: { message: string };
        method?: string;
        params?: { exceptionDetails?: { text?: string; exception?: { description?: string } } };
      };
      if (message.id !== undefined) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error) pending?.reject(new Error(message.error.message));
        else pending?.resolve(message.result ?? {});
      } else if (message.method === 'Runtime.exceptionThrown') {
        const details = message.params?.exceptionDetails;
        this.exceptions.push(details?.exception?.description ?? details?.text ?? 'exception');
      }
    });
  }

  static async launch(executable: string, timeoutMs = 20_000): Promise<HeadlessChromium> {
    const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
    const child = spawn(executable, [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const endpoint = await new Promise<string>((resolve, reject) => {
        let stderr = '';
        const timer = setTimeout(() => reject(new Error(`Chromium did not start within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
        child.stderr!.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`Chromium exited (${code}) before DevTools was ready:\n${stderr}`));
        });
      });
      const socket = new WebSocket(endpoint);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      return new HeadlessChromium(child, socket, profile);
    } catch (error) {
      child.kill('SIGKILL');
      rmSync(profile, { recursive: true, force: true });
      throw error;
    }
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`CDP ${method} timed out`));
      }, 10_000);
      this.#pending.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      this.#socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  /** Opens `url` in a new tab; returns a function evaluating expressions in it. */
  async open(url: string): Promise<(expression: string) => Promise<unknown>> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    await this.send('Runtime.enable', {}, sessionId);
    await this.send('Page.navigate', { url }, sessionId);
    return async (expression) => {
      const { result, exceptionDetails } = (await this.send(
        'Runtime.evaluate',
        { expression, returnByValue: true },
        sessionId,
      )) as { result: { value?: unknown }; exceptionDetails?: { text: string } };
      if (exceptionDetails) throw new Error(`evaluate failed: ${exceptionDetails.text}`);
      return result.value;
    };
  }

  async close(): Promise<void> {
    await this.send('Browser.close').catch(() => {});
    this.#socket.terminate();
    await new Promise<void>((resolve) => {
      if (this.#process.exitCode !== null || this.#process.signalCode !== null) return resolve();
      const timer = setTimeout(() => this.#process.kill('SIGKILL'), 5000);
      this.#process.once('exit', () => (clearTimeout(timer), resolve()));
    });
    rmSync(this.#profile, { recursive: true, force: true });
  }
}

/** Polls `probe` until it returns something other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}
