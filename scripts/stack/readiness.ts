/**
 * Bounded waits. Readiness is always observed (a probe answers, a log line appears), never
 * assumed after a sleep; a component that exits while we wait fails at once with its log.
 */
import { readFileSync } from 'node:fs';
import { PROBE_SCRIPT } from './layout.js';
import { inNamespace, runSync } from './netns.js';
import { type Started, logTail } from './processes.js';

export async function poll<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number; process?: Started },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    const proc = options.process;
    if (proc?.hasExited()) {
      throw new Error(`${proc.record.name} exited (${await proc.exited}) before ${what}; log ${proc.record.logFile}:\n${logTail(proc.record.logFile)}`);
    }
    if (Date.now() >= deadline) {
      const log = proc ? `; log ${proc.record.logFile}:\n${logTail(proc.record.logFile)}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 150));
  }
}

/**
 * How long one probe process may take, start included. Each probe is a fresh Node process, which
 * a starved host (load 37 on 2 cores) takes seconds to start: a bound below that cost fails every
 * attempt however long the wait around it (livekit-server answered, yet no probe lived to see
 * it). A refused connection still fails at once, so this bound only lets a slow success finish.
 */
const PROBE_TIMEOUT_MS = 20_000;

/** GET inside the namespace answers 200 (and `body`, if given). */
export function httpReady(namespace: string, url: string, body?: string): boolean {
  const [cmd, args] = inNamespace(namespace, process.execPath, [PROBE_SCRIPT, url, ...(body === undefined ? [] : [body])]);
  return runSync(cmd, args, PROBE_TIMEOUT_MS).code === 0;
}

export function redisReady(namespace: string, port: number): boolean {
  const [cmd, args] = inNamespace(namespace, 'redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping']);
  const result = runSync(cmd, args, 5000);
  return result.code === 0 && result.stdout.trim() === 'PONG';
}

function lines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

/** The first line of `file` that parses as a JSON object and passes `accept`. */
export function jsonLine<T>(file: string, accept: (value: Record<string, unknown>) => boolean): T | undefined {
  return jsonLines<T>(file, accept)[0];
}

/** Every line of `file` that parses as a JSON object and passes `accept`, in order. */
export function jsonLines<T>(file: string, accept: (value: Record<string, unknown>) => boolean): T[] {
  const found: T[] = [];
  for (const line of lines(file)) {
    if (!line.startsWith('{')) continue;
    try {
      const value = JSON.parse(line) as Record<string, unknown>;
      if (value && typeof value === 'object' && accept(value)) found.push(value as T);
    } catch {
      // A partial line still being written, or plain text.
    }
  }
  return found;
}
