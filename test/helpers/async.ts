/** Bounded waiting for tests: every await either settles or fails with what it was waiting for. */
import type { EventEmitter } from 'node:events';

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The value of `promise` if it settles within `ms`, else undefined: for waits whose lapse the test reports itself. */
export async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves with the first `event` whose payload satisfies `match`. */
export function nextEvent<T>(
  emitter: EventEmitter,
  event: string,
  match: (payload: T) => boolean = () => true,
): Promise<T> {
  return new Promise((resolve) => {
    const listener = (payload: T) => {
      if (!match(payload)) return;
      emitter.off(event, listener);
      resolve(payload);
    };
    emitter.on(event, listener);
  });
}
