import type { EventEmitter } from 'node:events';
import { AgentServer, ServerOptions, WorkerError, cli, initializeLogger, log } from '@livekit/agents';
import { type AppConfig, CONFIG_DEFAULTS, DEFAULT_DRAIN_TIMEOUT_S } from '../config/index.js';
import { signalReadyOnRegistration, type SendToParent } from './ready.js';
import { type Drainable, type GracefulShutdownOptions, installGracefulShutdown } from './shutdown.js';

/** What `runWorker` uses of `AgentServer`. */
export interface WorkerServer {
  readonly event: Pick<EventEmitter, 'once' | 'off'>;
  readonly activeJobs: readonly unknown[];
  run(): Promise<void>;
  drain(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface RunWorkerOptions {
  /** @defaultValue `info` (the worker passes LOG_LEVEL) */
  logLevel: string;
  /** @defaultValue 30 min (the worker passes SHUTDOWN_DRAIN_TIMEOUT_S) */
  drainTimeoutMs: number;
  createServer: (options: ServerOptions) => WorkerServer;
  sendToParent?: SendToParent;
  shutdown?: Partial<GracefulShutdownOptions>;
  exit: (code: number) => void;
  /** LIVEKIT_URL / _API_KEY / _API_SECRET / _WORKER_TOKEN, which win over the agent file's options, as in the framework's CLI. */
  livekit: AppConfig['livekit'];
}

/**
 * Adapts `AgentServer` to the shutdown module. `AgentServer.drain()` also waits for idle
 * job processes to exit, and one that is still starting (after boot, or replacing a
 * finished call) misses the shutdown request and holds the drain for 60 s. The drain we
 * care about is over when no job is running, so that is watched for directly.
 *
 * A job process that has not started yet also makes `drain()` reject at once ("runner not
 * started") after it has already stopped the worker taking jobs. That is no reason to end the
 * calls in progress: only the framework's own timeout is passed on; otherwise the running jobs
 * are waited for (the shutdown module bounds the wait).
 */
export function drainableServer(server: WorkerServer, pollMs = 250): Drainable {
  return {
    drain: (timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        let poll: NodeJS.Timeout | undefined;
        const finish = (error?: unknown) => {
          clearInterval(poll);
          if (error === undefined) resolve();
          else reject(error instanceof Error ? error : new Error(String(error)));
        };
        const failed = (error: unknown) => {
          if (error instanceof WorkerError && error.message === 'timed out draining') return finish(error);
          if (server.activeJobs.length === 0) return finish();
          log().warn({ error: String(error), activeJobs: server.activeJobs.length }, 'drain could not join every process; waiting for the running calls');
        };
        server.drain(timeoutMs).then(() => finish(), failed);
        const check = () => {
          if (server.activeJobs.length === 0) finish();
        };
        poll = setInterval(check, pollMs);
        check();
      }),
    close: () => server.close(),
    get activeJobCount() {
      return server.activeJobs.length;
    },
  };
}

const defaults = (): RunWorkerOptions => ({
  logLevel: CONFIG_DEFAULTS.logLevel,
  drainTimeoutMs: DEFAULT_DRAIN_TIMEOUT_S * 1000,
  createServer: (options) => new AgentServer(options),
  exit: (code) => process.exit(code),
  livekit: {},
});

/** The runner's settings from the worker's configuration. */
export function runWorkerSettings(config: AppConfig): Pick<RunWorkerOptions, 'logLevel' | 'drainTimeoutMs' | 'livekit'> {
  return { logLevel: config.logLevel ?? CONFIG_DEFAULTS.logLevel, drainTimeoutMs: config.lifecycle.drainTimeoutMs, livekit: config.livekit };
}

/**
 * Production worker (`start`) for process managers. Does what the framework's `start`
 * does (same `AgentServer`, production defaults: 8081 health port, prewarmed idle job
 * processes, load threshold), plus the two things the framework's CLI does not expose:
 * a `ready` message to PM2 when the worker has registered with LiveKit, and a stop that
 * drains calls and exits 0 (see shutdown.ts).
 */
export async function runWorker(
  serverOptions: ServerOptions,
  opts: Partial<RunWorkerOptions> = {},
): Promise<void> {
  const options = { ...defaults(), ...opts };
  initializeLogger({ pretty: false, level: options.logLevel });
  const logger = log();

  // Rebuilt like the framework's CLI does, but an unset load threshold (the dev default,
  // Infinity, baked in when the agent file built its options) gets the production default
  // (0.7) back: a worker that never reports itself full takes calls until the CPU chokes.
  // The credentials come from the environment first, as the CLI's `--url`/`--api-key`
  // options do: `ServerOptions` defaults wsURL to ws://localhost:7880, which would
  // otherwise shadow LIVEKIT_URL.
  const { production: _ignored, loadThreshold, ...rest } = serverOptions;
  const server = options.createServer(
    new ServerOptions({
      ...rest,
      wsURL: options.livekit.url || rest.wsURL,
      apiKey: options.livekit.apiKey || rest.apiKey,
      apiSecret: options.livekit.apiSecret || rest.apiSecret,
      workerToken: options.livekit.workerToken || rest.workerToken,
      loadThreshold: loadThreshold === Infinity && !rest.simulation ? undefined : loadThreshold,
      production: true,
      logLevel: options.logLevel,
    }),
  );

  signalReadyOnRegistration(server.event, options.sendToParent);
  installGracefulShutdown(drainableServer(server), {
    drainTimeoutMs: options.drainTimeoutMs,
    exit: options.exit,
    ...options.shutdown,
  });

  try {
    await server.run();
  } catch (error) {
    // e.g. LiveKit unreachable after every retry: exit non-zero so the manager restarts us.
    logger.fatal({ error }, 'worker failed');
    options.exit(1);
  }
}

/**
 * The agent file's entry point: `start` (what PM2, systemd and Docker run) goes through
 * `runWorker`; everything else (`dev`, `connect`, `console`, `download-files`, and the
 * job subprocesses that import the agent file) stays with the framework's `cli.runApp`.
 * `start` flags other than `--log-level` also fall back to the framework, with a warning.
 */
export function runAgentApp(
  serverOptions: ServerOptions,
  argv: readonly string[] = process.argv,
  settings: Partial<RunWorkerOptions> = {},
): void {
  const [command, ...flags] = argv.slice(2);
  if (command !== 'start') {
    cli.runApp(serverOptions);
    return;
  }
  let logLevel: string | undefined;
  const unsupported: string[] = [];
  for (let i = 0; i < flags.length; i += 1) {
    const flag = flags[i]!;
    if (flag === '--log-level' && flags[i + 1]) logLevel = flags[(i += 1)];
    else if (flag.startsWith('--log-level=')) logLevel = flag.slice('--log-level='.length);
    else unsupported.push(flag);
  }
  if (unsupported.length > 0) {
    console.warn(
      `start: ${unsupported.join(' ')} not handled by the graceful runner; using the framework's start ` +
        '(no PM2 ready signal, exit code 143 on SIGTERM). Configure through the environment instead.',
    );
    cli.runApp(serverOptions);
    return;
  }
  void runWorker(serverOptions, logLevel ? { ...settings, logLevel } : settings);
}
