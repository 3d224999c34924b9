/** Starts bench/server-process.ts as a child process and talks to it over IPC. */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ServerReply, ServerRequest, ServerSpec } from './server-process.js';
import type { Language, Provider } from './scenarios.js';

export type { ServerSpec };

/** The name of the server for a provider and language. */
export const serverName = (provider: Provider, language: Language): string => `${provider}-${language}`;

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
    const started = await request(child, { type: 'start', servers }, (m) => m.type === 'started');
    if (started.type !== 'started') throw new Error('server process did not start');
    return new RemoteServers(child, started.urls);
  }

  /**
   * What the Cartesia servers received for each context id (forgotten once asked): non-blank
   * transcripts, and the connection that carried them.
   */
  async chunkCounts(contextIds: string[]): Promise<{ counts: Record<string, number>; connections: Record<string, number> }> {
    const id = this.#nextId++;
    const answer = await request(this.#child, { type: 'chunks', id, contextIds }, (m) => m.type === 'chunks' && m.id === id);
    return answer.type === 'chunks' ? { counts: answer.counts, connections: answer.connections } : { counts: {}, connections: {} };
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
