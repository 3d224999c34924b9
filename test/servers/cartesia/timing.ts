/** Cancellable waits and a seeded PRNG: every timer the server starts can be stopped by an AbortSignal. */

import { seededRandom } from '../prng.js';
export class AbortedWait extends Error {
  constructor() {
    super('wait aborted');
  }
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Resolves after `ms` (0 → next macrotask via setImmediate, so concurrent streams interleave);
 * rejects with `AbortedWait` once `signal` aborts. Waits longer than a timer can hold never resolve.
 */
export function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(new AbortedWait());
  return new Promise((resolve, reject) => {
    let clear = (): void => {};
    const onAbort = (): void => {
      clear();
      reject(new AbortedWait());
    };
    const done = (): void => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    if (ms <= 0) {
      const handle = setImmediate(done);
      clear = () => clearImmediate(handle);
    } else if (ms <= MAX_TIMER_MS) {
      const handle = setTimeout(done, ms);
      clear = () => clearTimeout(handle);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A restartable one-shot timer whose callback never runs after `cancel()`. */
export class OneShotTimer {
  #handle: NodeJS.Timeout | undefined;

  start(ms: number, callback: () => void): void {
    this.cancel();
    if (ms > MAX_TIMER_MS) return;
    this.#handle = setTimeout(() => {
      this.#handle = undefined;
      callback();
    }, ms);
  }

  cancel(): void {
    if (this.#handle) clearTimeout(this.#handle);
    this.#handle = undefined;
  }

  get pending(): boolean {
    return this.#handle !== undefined;
  }
}

export { seededRandom };

export function isAbort(error: unknown): boolean {
  return error instanceof AbortedWait;
}
