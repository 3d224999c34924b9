/**
 * What the fault drills share: callers in the namespace (scripts/faults/caller.ts) as handles the
 * drill can wait on and stop, and the worker's log and process group read around a fault.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DriverEvent, runDriver } from '../../bench/room/stack-run.js';
import { processGroup } from '../../test/e2e/process-group.js';
import type { StackState } from '../stack/state.js';
import type { FaultCallerPlan } from './caller.js';

/**
 * What the drills' callers say and the OpenAI fake answers: the same question each turn; once the
 * model is sent a conversation that already has the first answer, it answers "As I said" (the
 * conversation survived whatever the drill did).
 */
export const CONVERSATION = {
  user: 'What time does the pharmacy open tomorrow?',
  reply: 'The pharmacy opens at nine. It closes at six.',
  replyWithHistory: 'As I said, the pharmacy opens at nine.',
  /** The fake's `--script` file body. */
  script(): string {
    return `${JSON.stringify({ script: [{ match: 'pharmacy', earlier: 'opens at nine', reply: this.replyWithHistory }, { match: 'pharmacy', reply: this.reply }] })}\n`;
  },
} as const;

export interface CallerHandle {
  name: string;
  events: DriverEvent[];
  exited: Promise<number | null>;
  /** Resolves with the first event `match` accepts (or undefined after `ms`). */
  next(match: (e: DriverEvent) => boolean, ms: number): Promise<DriverEvent | undefined>;
  /** Ends the hold: the caller takes its last turn (if planned) and leaves. */
  stop(): void;
}

export function startCaller(state: StackState, work: string, name: string, plan: Omit<FaultCallerPlan, 'stopFile'>, note: (line: string) => void): CallerHandle {
  const stopFile = join(work, `${name}.stop`);
  const planFile = join(work, `${name}.json`);
  // A stop file left by an earlier run would end this caller's hold at once.
  rmSync(stopFile, { force: true });
  writeFileSync(planFile, JSON.stringify({ ...plan, stopFile }));
  const events: DriverEvent[] = [];
  const waiters = new Set<() => void>();
  const exited = runDriver(
    state,
    planFile,
    // The caller's own deadline (scripts/faults/caller.ts) comes first.
    Math.max(300_000, plan.joinDeadlineMs + plan.holdMaxMs + 180_000),
    (e) => {
      events.push(e);
      note(`${name}: ${e.bench} ${JSON.stringify(e).slice(0, 200)}`);
      for (const w of [...waiters]) w();
    },
    () => {},
    join('scripts', 'faults', 'caller.ts'),
  ).then((code) => {
    for (const w of [...waiters]) w();
    return code;
  });
  let done = false;
  void exited.then(() => (done = true));
  return {
    name,
    events,
    exited,
    next(match, ms) {
      return new Promise((resolve) => {
        const check = () => {
          const found = events.find(match);
          if (found || done) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(found);
          }
        };
        const timer = setTimeout(() => (waiters.delete(check), resolve(undefined)), ms);
        waiters.add(check);
        check();
      });
    },
    stop: () => writeFileSync(stopFile, ''),
  };
}

export interface LogLine {
  time: number;
  level: number;
  msg: string;
  pid?: number;
  [key: string]: unknown;
}

export function logLines(file: string): LogLine[] {
  if (!existsSync(file)) return [];
  const out: LogLine[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // Partial.
    }
  }
  return out;
}

/** Warnings and errors from `since`, counted by message (the framework's stall reports left out: the host's load, not the fault). */
export function warningsSince(file: string, since: number, until = Infinity): string[] {
  const counts = new Map<string, number>();
  for (const l of logLines(file)) {
    if (l.time < since || l.time > until || l.level < 40) continue;
    const msg = String(l.msg ?? '').slice(0, 110);
    if (/event loop blocked|process not scheduled/.test(msg)) continue;
    counts.set(msg, (counts.get(msg) ?? 0) + 1);
  }
  return [...counts].map(([msg, n]) => (n > 1 ? `${msg} (×${n})` : msg));
}

/** Live members of the worker's process group. */
export const liveCount = (pgid: number): number => processGroup(pgid).filter((m) => m.state !== 'Z').length;

/** Waits until the group is back to `idle` members (bounded); the ms it took, or undefined. */
export async function settle(pgid: number, idle: number, ms = 90_000): Promise<number | undefined> {
  const t0 = Date.now();
  for (const deadline = t0 + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
    if (liveCount(pgid) <= idle) return Date.now() - t0;
  }
  return undefined;
}
