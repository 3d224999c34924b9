/**
 * What a live check is: a small function that sends something to a provider, observes what comes
 * back and concludes what it means. One that cannot run (network, auth, a bug) becomes
 * "could not check: <reason>" and the run goes on.
 */
import type { WebSocket } from 'ws';
import { DEFAULT_POOL_OPTIONS } from '@firstword/agents-plugin-tts/protocol';
import { ProbeSocket } from './probe-socket.js';

/** Every wait of a check is bounded; these are the bounds (tests shrink them), and what to leave out. */
export interface CheckSettings {
  /** Longest wait for something the provider owes: audio, an answer to a request, a pong. */
  answerMs: number;
  /** How long to keep listening for what may never come (`audio_end` after an error, chunks after a cancel). */
  graceMs: number;
  /** Quiet after a context's last chunk that counts as "its audio is out" when no `flush_done` says so. */
  quietMs: number;
  /** Idle time after a context's last audio before the next message, one context per value. */
  expiryDelaysMs: number[];
  /** How long the idle-timeout check keeps a silent socket open. 0 skips it. */
  idleWaitMs: number;
  /** Pause before retrying a context refused for the plan's concurrency (finished contexts count for ~1 s). */
  concurrencyRetryMs: number;
  /** Sockets the connection-limit check may open on the key (it opens one more). 0 skips it. */
  connectionLimit: number;
  /** Checks whose id is listed here are left out (e.g. costly ones). */
  skipIds: string[];
}

export const LIVE_SETTINGS: CheckSettings = {
  answerMs: 15_000,
  graceMs: 2_000,
  quietMs: 600,
  expiryDelaysMs: [500, 1000, 1500, 2000, 3000],
  // Longer than the pool's idle refresh: a close before it would find pooled sockets dead.
  idleWaitMs: DEFAULT_POOL_OPTIONS.maxIdleMs + 60_000,
  concurrencyRetryMs: 1_500,
  connectionLimit: 0,
  skipIds: [],
};

export interface Finding {
  /** What went out (markdown). */
  sent: string;
  /** What came back: measured values and frames verbatim (markdown lines). */
  observed: string[];
  /** What it means for the open question and for firstword's code. */
  conclusion: string;
}

export interface CheckScope<T> {
  target: T;
  settings: CheckSettings;
  /** Opens a socket that is dropped when the check ends, however it ends. */
  open(connect: () => Promise<WebSocket>): Promise<ProbeSocket>;
}

export interface Check<T> {
  id: string;
  title: string;
  /** The open question it settles (docs/provider-fidelity.md). */
  question: string;
  run(scope: CheckScope<T>): Promise<Finding>;
  /** Safety net over the check's own bounded waits. @defaultValue 12 × answerMs */
  limitMs?(settings: CheckSettings): number;
  /** Why this check does not run with these settings (e.g. a zero wait); undefined runs it. */
  skip?(settings: CheckSettings, target: T): string | undefined;
  /**
   * `background`: mostly waiting on a socket of its own, so it runs beside the others;
   * `alone`: it loads the key (many sockets), so it runs after everything else.
   */
  schedule?: 'background' | 'alone';
}

export interface CheckResult {
  id: string;
  title: string;
  question: string;
  finding?: Finding;
  couldNotCheck?: string;
  skipped?: string;
}

export async function runCheck<T>(check: Check<T>, target: T, settings: CheckSettings): Promise<CheckResult> {
  const head = { id: check.id, title: check.title, question: check.question };
  const skipped = settings.skipIds.includes(check.id) ? 'left out (--skip)' : check.skip?.(settings, target);
  if (skipped) return { ...head, skipped };
  const sockets: ProbeSocket[] = [];
  const scope: CheckScope<T> = {
    target,
    settings,
    open: async (connect) => {
      const socket = new ProbeSocket(await connect());
      sockets.push(socket);
      return socket;
    },
  };
  const limitMs = check.limitMs?.(settings) ?? 12 * settings.answerMs;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${Math.round(limitMs / 1000)} s`)), limitMs);
  });
  try {
    return { ...head, finding: await Promise.race([check.run(scope), limit]) };
  } catch (error) {
    return { ...head, couldNotCheck: reasonOf(error) };
  } finally {
    clearTimeout(timer);
    for (const socket of sockets) socket.terminate();
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map((e: unknown) => reasonOf(e)).join('; ');
  }
  if (error instanceof Error) return error.message || error.name || String(error);
  return String(error);
}
