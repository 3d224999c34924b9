import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';

/** The flags the project runs Chromium with: headless, sandbox-less (root in CI), and quiet. */
export const HEADLESS_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
];

/** ...with DevTools on a port of its own (this CDP client connects to it). */
export const CHROMIUM_FLAGS = [...HEADLESS_FLAGS, '--remote-debugging-port=0'];

/**
 * For a page that talks to a real agent: a fake microphone (a tone) granted without a prompt,
 * and audio (the `<audio>` element and Web Audio) allowed to start without a click.
 */
export const FAKE_MEDIA_FLAGS = [
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
];

/** Evaluates an expression in the page (awaiting it if it is a promise) and returns its value. */
export type Evaluate = (expression: string) => Promise<unknown>;

export interface PageHandle {
  evaluate: Evaluate;
  /** Any CDP command in this page's session. */
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Saves a PNG of the page (the whole page when `fullPage`) and returns its path. */
  screenshot(path: string, options?: { fullPage?: boolean }): Promise<string>;
}

/** A browser log entry (Log.entryAdded): CSP violations, failed loads, console errors… */
export interface LogEntry {
  source: string;
  level: string;
  text: string;
  url?: string;
}

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
  readonly logs: LogEntry[] = [];

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
        params?: { exceptionDetails?: { text?: string; exception?: { description?: string } }; entry?: LogEntry };
      };
      if (message.id !== undefined) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error) pending?.reject(new Error(message.error.message));
        else pending?.resolve(message.result ?? {});
      } else if (message.method === 'Runtime.exceptionThrown') {
        const details = message.params?.exceptionDetails;
        this.exceptions.push(details?.exception?.description ?? details?.text ?? 'exception');
      } else if (message.method === 'Log.entryAdded' && message.params?.entry) {
        const { source, level, text, url } = message.params.entry;
        this.logs.push({ source, level, text, url });
      }
    });
  }

  static async launch(executable: string, timeoutMs = 20_000, extraFlags: readonly string[] = []): Promise<HeadlessChromium> {
    const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
    const child = spawn(executable, [...CHROMIUM_FLAGS, ...extraFlags, `--user-data-dir=${profile}`, 'about:blank'], {
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
  async open(url: string): Promise<Evaluate> {
    return (await this.openPage(url)).evaluate;
  }

  /** Opens `url` in a new tab (`width`×`height` CSS pixels); returns a handle on it. */
  async openPage(url: string, viewport = { width: 1000, height: 900 }): Promise<PageHandle> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    const send = (method: string, params: Record<string, unknown> = {}) => this.send(method, params, sessionId);
    await send('Runtime.enable');
    await send('Log.enable');
    await send('Page.enable');
    await send('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false });
    await send('Page.navigate', { url });
    const evaluate: Evaluate = async (expression) => {
      const { result, exceptionDetails } = (await send('Runtime.evaluate', {
        expression,
        returnByValue: true,
        awaitPromise: true,
      })) as { result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } };
      if (exceptionDetails) {
        throw new Error(`evaluate failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      }
      return result.value;
    };
    const screenshot = async (path: string, options: { fullPage?: boolean } = {}) => {
      const { data } = (await send('Page.captureScreenshot', {
        format: 'png',
        captureBeyondViewport: options.fullPage ?? false,
        ...(options.fullPage
          ? { clip: { x: 0, y: 0, width: viewport.width, height: await pageHeight(evaluate), scale: 1 } }
          : {}),
      })) as { data: string };
      writeFileSync(path, Buffer.from(data, 'base64'));
      return path;
    };
    return { evaluate, send, screenshot };
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

async function pageHeight(evaluate: Evaluate): Promise<number> {
  return Math.ceil(Number(await evaluate('document.documentElement.scrollHeight')));
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
