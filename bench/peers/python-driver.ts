/**
 * The TypeScript end of bench/peers/python/driver.py: one child process per Python peer, many
 * sessions (one per bench lane) over JSON lines. Every time in a reply is the Python process's own
 * (ms after it read the turn), so no two clocks are ever compared.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Trace } from '../llm.js';
import type { TaggedFrame } from './tags.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const VENV_PYTHON = `${ROOT}.venv-peers/bin/python`;
const DRIVER = fileURLToPath(new URL('./python/driver.py', import.meta.url));
const READY_TIMEOUT_MS = 60_000;

export interface SessionSetup {
  provider: 'cartesia' | 'resemble';
  /** Cartesia: the server's http base; Resemble: its ws base (the peers append their paths). */
  url: string;
  apiKey: string;
  language: string;
  sampleRate: number;
}

export interface DriverReady {
  peer: string;
  python: string;
  versions: Record<string, string>;
}

type Reply = { ev: string; session?: string; turn?: number; message?: string; frames?: Array<[number, number, number[]]> } & Record<string, unknown>;

export class PythonDriver {
  readonly peer: string;
  readonly #child: ChildProcess;
  readonly #waiting = new Map<string, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  #exited: Error | undefined;
  #stderrTail: string[] = [];
  #nextTurn = 1;

  private constructor(peer: string, child: ChildProcess) {
    this.peer = peer;
    this.#child = child;
    createInterface({ input: child.stdout! }).on('line', (line) => this.#onLine(line));
    child.stdin!.on('error', () => {}); // a driver that died is reported by 'exit' below
    // The peers' own logs (warnings and tracebacks): kept for the error message, not printed.
    createInterface({ input: child.stderr! }).on('line', (line) => {
      this.#stderrTail.push(line);
      if (this.#stderrTail.length > 20) this.#stderrTail.shift();
    });
    child.once('exit', (code, signal) => {
      this.#exited = new Error(`${peer} driver exited (${signal ?? code})${this.#tail()}`);
      for (const w of this.#waiting.values()) w.reject(this.#exited);
      this.#waiting.clear();
    });
  }

  /** Starts `driver.py <peer>` in the peers' venv; resolves once its framework has loaded. */
  static async start(peer: string): Promise<{ driver: PythonDriver; ready: DriverReady }> {
    if (!existsSync(VENV_PYTHON)) throw new Error(`no ${VENV_PYTHON} (bash scripts/peers/ensure-venv.sh builds it)`);
    const child = spawn(VENV_PYTHON, [DRIVER, peer], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1' } });
    const driver = new PythonDriver(peer, child);
    const ready = await driver.#expect('ready', READY_TIMEOUT_MS);
    return { driver, ready: { peer, python: String(ready.python), versions: ready.versions as Record<string, string> } };
  }

  async open(session: string, setup: SessionSetup): Promise<void> {
    await this.#ask(`opened:${session}`, { op: 'open', session, ...setup }, READY_TIMEOUT_MS);
  }

  /** Speaks one turn; `bargeInAfterFrames` > 0 ends it once that many audible frames arrived. */
  async turn(session: string, trace: Trace, options: { timeoutMs: number; bargeInAfterFrames?: number }): Promise<TaggedFrame[]> {
    const turn = this.#nextTurn++;
    const command = {
      op: 'turn',
      session,
      turn,
      tokens: trace.tokens,
      at: trace.at,
      bargeInAfterFrames: options.bargeInAfterFrames ?? 0,
      timeoutMs: options.timeoutMs,
    };
    // The driver bounds the turn itself; this only guards against a driver that stopped answering.
    const reply = await this.#ask(`done:${session}:${turn}`, command, options.timeoutMs + 10_000);
    return (reply.frames ?? []).map(([at, ms, tags]) => ({ at, ms, tags }));
  }

  async close(session: string): Promise<void> {
    if (this.#exited) return;
    await this.#ask(`closed:${session}`, { op: 'close', session }, 15_000);
  }

  async stop(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  #onLine(line: string): void {
    let reply: Reply;
    try {
      reply = JSON.parse(line) as Reply;
    } catch {
      return; // not the protocol (should not happen: the driver keeps stdout for it)
    }
    const key =
      reply.ev === 'done' || (reply.ev === 'error' && reply.op === 'turn')
        ? `done:${reply.session}:${reply.turn}`
        : reply.ev === 'error'
          ? `${reply.op === 'open' ? 'opened' : 'closed'}:${reply.session}`
          : reply.ev === 'ready' || reply.ev === 'fatal'
            ? 'ready'
            : `${reply.ev}:${reply.session}`;
    const waiter = this.#waiting.get(key);
    if (!waiter) return;
    this.#waiting.delete(key);
    if (reply.ev === 'error' || reply.ev === 'fatal') waiter.reject(new Error(`${this.peer}: ${reply.message}${this.#tail()}`));
    else waiter.resolve(reply);
  }

  #expect(key: string, timeoutMs: number): Promise<Reply> {
    if (this.#exited) return Promise.reject(this.#exited);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(key);
        reject(new Error(`${this.peer} driver: no ${key.split(':')[0]} within ${timeoutMs} ms${this.#tail()}`));
      }, timeoutMs);
      this.#waiting.set(key, {
        resolve: (r) => (clearTimeout(timer), resolve(r)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
  }

  #ask(key: string, command: Record<string, unknown>, timeoutMs: number): Promise<Reply> {
    const answer = this.#expect(key, timeoutMs);
    this.#child.stdin!.write(`${JSON.stringify(command)}\n`);
    return answer;
  }

  #tail(): string {
    const last = this.#stderrTail.filter((l) => l.trim()).slice(-3);
    return last.length ? ` — stderr: ${last.join(' | ')}` : '';
  }
}
