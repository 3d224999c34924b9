/**
 * Headless Chromium driven over `--remote-debugging-pipe` (CDP on fds 3/4, NUL-separated JSON):
 * no DevTools port, so nothing to find or reach across the namespace boundary.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { FAKE_MEDIA_FLAGS, HEADLESS_FLAGS } from '../../web/cdp.js';

/** The project's headless flags plus what WebRTC needs without a person. */
export const WEBRTC_CHROMIUM_FLAGS = [
  ...HEADLESS_FLAGS,
  ...FAKE_MEDIA_FLAGS,
  // Host candidates with IP addresses, not .local names nobody in the namespace resolves.
  '--disable-features=WebRtcHideLocalIpsWithMdns',
  '--disable-quic',
];

type Reply = { id?: number; result?: Record<string, unknown>; error?: { message: string }; method?: string; sessionId?: string };

export class PipeChromium {
  #child: ChildProcess;
  #profile: string;
  #input: Writable;
  #nextId = 1;
  #pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  readonly stderr: string[] = [];

  private constructor(child: ChildProcess, profile: string) {
    this.#child = child;
    this.#profile = profile;
    this.#input = child.stdio[3] as Writable;
    let buffer = '';
    (child.stdio[4] as Readable).on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\0')) !== -1) {
        const reply = JSON.parse(buffer.slice(0, end)) as Reply;
        buffer = buffer.slice(end + 1);
        const pending = reply.id === undefined ? undefined : this.#pending.get(reply.id);
        if (!pending) continue;
        this.#pending.delete(reply.id!);
        if (reply.error) pending.reject(new Error(reply.error.message));
        else pending.resolve(reply.result ?? {});
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
  }

  /** `without`: flags of {@link WEBRTC_CHROMIUM_FLAGS} to leave out (e.g. the fake media UI, to use real permissions). */
  static launch(executable: string, extraFlags: string[] = [], { without = [] }: { without?: string[] } = {}): PipeChromium {
    const profile = mkdtempSync(join(tmpdir(), 'e2e-chromium-'));
    const flags = WEBRTC_CHROMIUM_FLAGS.filter((flag) => !without.includes(flag));
    const child = spawn(
      executable,
      [...flags, ...extraFlags, '--remote-debugging-pipe', `--user-data-dir=${profile}`, 'about:blank'],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] },
    );
    return new PipeChromium(child, profile);
  }

  send(method: string, params: Record<string, unknown> = {}, sessionId?: string, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`CDP ${method} timed out`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value) => (clearTimeout(timer), resolve(value)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      });
      this.#input.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  /** Opens `url` in a new tab after installing `initScripts`; returns an evaluator for it. */
  async open(url: string, initScripts: string[] = []): Promise<(expression: string) => Promise<unknown>> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    await this.send('Page.enable', {}, sessionId);
    for (const source of initScripts) await this.send('Page.addScriptToEvaluateOnNewDocument', { source }, sessionId);
    await this.send('Page.navigate', { url }, sessionId);
    return async (expression) => {
      const { result, exceptionDetails } = (await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId)) as {
        result: { value?: unknown };
        exceptionDetails?: { text: string; exception?: { description?: string } };
      };
      if (exceptionDetails) throw new Error(`evaluate failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
      return result.value;
    };
  }

  async close(): Promise<void> {
    await this.send('Browser.close', {}, undefined, 3000).catch(() => {});
    await new Promise<void>((resolve) => {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) return resolve();
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
      this.#child.once('exit', () => (clearTimeout(timer), resolve()));
    });
    rmSync(this.#profile, { recursive: true, force: true });
  }
}
