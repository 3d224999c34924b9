/**
 * Replays a token trace against the clock: every token leaves at (request arrival + atMs) or
 * later, never earlier, so a benchmark can hold "the same LLM" fixed across runs. One timer at a
 * time; `cancel()` clears it (client gone, server closing).
 */
import { performance } from 'node:perf_hooks';
import type { ReplyTrace, TimedToken } from './tokenize.js';

export interface Replay {
  cancel(): void;
}

export function replayTrace(
  trace: ReplyTrace,
  /** `performance.now()` when the request arrived. */
  arrivedAt: number,
  onTokens: (tokens: TimedToken[]) => void,
  onDone: () => void,
): Replay {
  const tokens = trace.tokens;
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;

  const tick = (): void => {
    timer = undefined;
    if (cancelled) return;
    const elapsed = performance.now() - arrivedAt;
    const due: TimedToken[] = [];
    while (next < tokens.length && tokens[next]!.atMs <= elapsed) due.push(tokens[next++]!);
    if (due.length > 0) onTokens(due);
    if (cancelled) return;
    if (next >= tokens.length) {
      onDone();
      return;
    }
    // Timers may fire a fraction of a millisecond early; tick re-arms until the token is due.
    timer = setTimeout(tick, Math.max(1, Math.ceil(tokens[next]!.atMs - elapsed)));
  };

  tick();
  return {
    cancel: () => {
      cancelled = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** When the last token is due (0 for an empty trace): a non-streamed reply is sent then. */
export function traceEndMs(trace: ReplyTrace): number {
  return trace.tokens.at(-1)?.atMs ?? 0;
}
