/**
 * What the worker last told LiveKit about its load. LiveKit sends no job to a worker whose last
 * report said full, and a dispatch that finds no available worker is dropped, not retried
 * (livekit-server 1.13 `pkg/agent/client.go`, `pkg/service/agentservice.go`). So a worker at its
 * call cap that resumes a call whose job process died (src/recovery) must first have told LiveKit
 * it has room again; the framework reports the load every 2.5 s, computed by `loadFunc`, which is
 * why the reports are watched here, at the one place every report passes through.
 */
export interface LoadReports<Server> {
  /** `ServerOptions.loadFunc`: the given one, watched. */
  loadFunc(server: Server): Promise<number>;
  /**
   * Resolves true once LiveKit has been told the worker is available: at once when the last report
   * said so, else at the first later report that does; false after `timeoutMs` without one.
   */
  available(timeoutMs: number): Promise<boolean>;
}

export function watchLoadReports<Server>(loadFunc: (server: Server) => Promise<number>, threshold: number): LoadReports<Server> {
  // Until the first report LiveKit takes the worker as available (it registers as such).
  let lastAvailable = true;
  const waiters = new Set<() => void>();
  return {
    async loadFunc(server) {
      const load = await loadFunc(server);
      lastAvailable = load < threshold;
      // After the framework's own continuation, which sends this report.
      if (lastAvailable) setImmediate(() => [...waiters].forEach((wake) => wake()));
      return load;
    },
    available(timeoutMs) {
      if (lastAvailable) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ok: boolean) => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(ok);
        };
        const wake = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        waiters.add(wake);
      });
    },
  };
}
