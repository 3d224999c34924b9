/** Starts bench/server-process.ts as a child process and talks to it over IPC. */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { KeyUsage, ServerReply, ServerRequest, ServerSpec } from './server-process.js';

export type { KeyUsage, ServerSpec } from './server-process.js';

const SERVER_SCRIPT = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const REPLY_TIMEOUT_MS = 15_000;

export class RemoteServers {
  readonly urls: Record<string, string>;
  readonly #child: ChildProcess;
  #nextId = 1;

  private constructor(child: ChildProcess, urls: Record<string, string>) {
    this.#child = child;
    this.urls = urls;
  }

  static async start(servers: Record<string, ServerSpec>): Promise<RemoteServers> {
    const child = fork(SERVER_SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    // Every lane's in-flight request listens for the child's exit: dozens at once, not a leak.
    child.setMaxListeners(0);
    const started = await request(child, { type: 'start', servers }, (m) => m.type === 'started');
    if (started.type !== 'started') throw new Error('server process did not start');
    return new RemoteServers(child, started.urls);
  }

  /** What each key did since it was last asked (server-process.ts); asking starts a new window. */
  async usage(keys: string[]): Promise<Record<string, KeyUsage>> {
    const id = this.#nextId++;
    const answer = await request(this.#child, { type: 'usage', id, keys }, (m) => m.type === 'usage' && m.id === id);
    return answer.type === 'usage' ? answer.usage : {};
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.send({ type: 'stop' } satisfies ServerRequest);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

function request(child: ChildProcess, message: ServerRequest, match: (reply: ServerReply) => boolean): Promise<ServerReply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`server process: no reply to ${message.type}`)), REPLY_TIMEOUT_MS);
    const onMessage = (reply: ServerReply) => {
      if (reply.type === 'error') finish(new Error(`server process: ${reply.message}`));
      else if (match(reply)) finish(undefined, reply);
    };
    const onExit = (code: number | null) => finish(new Error(`server process exited (${code})`));
    function finish(error?: Error, reply?: ServerReply): void {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(reply!);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(message);
  });
}
