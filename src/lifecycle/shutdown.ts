import { log } from '@livekit/agents';

/** The part of the agents `AgentServer` a graceful stop needs (a fake is enough in tests). */
export interface Drainable {
  /** Stop taking jobs; resolve when running jobs have ended, reject after `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
  /** Disconnect and stop the job processes (ending any still running). */
  close(): Promise<void>;
  readonly activeJobCount: number;
}

type ProcessLike = Pick<NodeJS.Process, 'on' | 'off'>;
type ShutdownLogger = Pick<ReturnType<typeof log>, 'info' | 'warn' | 'error'>;

export interface GracefulShutdownOptions {
  /** Longest wait for running calls to end. @defaultValue 30 min */
  drainTimeoutMs: number;
  /**
   * Longest wait for `close()` when the drain timed out and calls are being ended.
   * @defaultValue 75 s (job processes get 60 s to exit)
   */
  closeTimeoutMs: number;
  /**
   * Longest wait for `close()` after a clean drain, when only idle (prewarmed) processes
   * remain. One still starting up misses the framework's shutdown request and is only
   * killed after 60 s; no call is at stake, so we stop waiting and exit 0 — the process
   * exits by itself once orphaned, and PM2/systemd/Docker kill the group anyway.
   * @defaultValue 10 s
   */
  idleCloseTimeoutMs: number;
  /** Signals that start a drain. PM2 sends SIGINT unless its daemon runs with PM2_KILL_SIGNAL=SIGTERM. */
  signals: readonly NodeJS.Signals[];
  /** A repeat of one of these forces an immediate exit (Ctrl-C twice at a terminal). */
  forceOnRepeat: readonly NodeJS.Signals[];
  /** Also drain on PM2's `shutdown` IPC message (`shutdown_with_message: true`). */
  shutdownMessage: boolean;
  exit: (code: number) => void;
  logger?: ShutdownLogger;
  target: ProcessLike;
}

const defaults: GracefulShutdownOptions = {
  drainTimeoutMs: 30 * 60 * 1000,
  closeTimeoutMs: 75 * 1000,
  idleCloseTimeoutMs: 10 * 1000,
  signals: ['SIGTERM', 'SIGINT'],
  forceOnRepeat: ['SIGINT'],
  shutdownMessage: true,
  exit: (code) => process.exit(code),
  target: process,
};

/** Exit codes: 0 every call ended on its own; 1 calls were cut or closing failed; 130 forced. */
export const EXIT_DRAINED = 0;
export const EXIT_CUT_SHORT = 1;
export const EXIT_FORCED = 130;

function settleWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

export interface ShutdownHandle {
  /** Starts (or joins) the shutdown; resolves with the exit code just before `exit` is called. */
  shutdown(reason: string): Promise<number>;
  /** Removes the listeners (tests; a worker never needs it). */
  dispose(): void;
}

/**
 * Stops the worker the way a phone service needs: on SIGTERM/SIGINT (or PM2's shutdown
 * message) it stops accepting calls, waits for the live ones to end, then closes and
 * exits 0. The framework's own CLI exits 143/130 even after a clean drain (which systemd
 * records as a failure) and dies on a second SIGTERM; here a repeated SIGTERM is logged
 * and ignored, and only a repeated SIGINT forces the exit.
 */
export function installGracefulShutdown(
  worker: Drainable,
  opts: Partial<GracefulShutdownOptions> = {},
): ShutdownHandle {
  const options = { ...defaults, ...opts };
  const logger = options.logger ?? log();
  let running: Promise<number> | undefined;

  const run = async (reason: string): Promise<number> => {
    const { drainTimeoutMs } = options;
    logger.info({ reason, activeJobs: worker.activeJobCount, drainTimeoutMs }, 'draining worker');
    let code = EXIT_DRAINED;
    try {
      await settleWithin(worker.drain(drainTimeoutMs), drainTimeoutMs + 1000, 'drain');
      logger.info({ reason }, 'all jobs finished');
    } catch (error) {
      code = EXIT_CUT_SHORT;
      const activeJobs = worker.activeJobCount;
      logger.error({ error, activeJobs }, 'drain timed out; ending remaining jobs');
    }
    const drained = code === EXIT_DRAINED;
    try {
      const closeTimeoutMs = drained ? options.idleCloseTimeoutMs : options.closeTimeoutMs;
      await settleWithin(worker.close(), closeTimeoutMs, 'close');
    } catch (error) {
      if (drained) {
        logger.warn({ error }, 'idle job processes still starting; leaving them to exit on their own');
      } else {
        code = EXIT_CUT_SHORT;
        logger.error({ error }, 'worker did not close cleanly');
      }
    }
    logger.info({ code }, 'worker stopped');
    return code;
  };

  const shutdown = (reason: string): Promise<number> => {
    if (running) return running;
    running = run(reason).then((code) => {
      options.exit(code);
      return code;
    });
    return running;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (running && options.forceOnRepeat.includes(signal)) {
      logger.warn({ signal }, 'second signal: exiting without waiting for jobs');
      options.exit(EXIT_FORCED);
      return;
    }
    if (running) {
      logger.warn({ signal, activeJobs: worker.activeJobCount }, 'already draining; signal ignored');
      return;
    }
    void shutdown(signal);
  };

  const onMessage = (message: unknown) => {
    if (message === 'shutdown') onSignal('SIGTERM');
  };

  const listeners = options.signals.map((signal) => {
    const listener = () => onSignal(signal);
    options.target.on(signal, listener);
    return [signal, listener] as const;
  });
  if (options.shutdownMessage) options.target.on('message', onMessage);

  return {
    shutdown,
    dispose: () => {
      for (const [signal, listener] of listeners) options.target.off(signal, listener);
      if (options.shutdownMessage) options.target.off('message', onMessage);
    },
  };
}
