/**
 * What the bench reads in a worker's JSON log (pino, one object a line; job processes log into the
 * worker's stdout): the framework's capacity flips, and each job process's start-up marks.
 */
import { readFileSync } from 'node:fs';
import type { ProcessMarks } from './cost.js';
import type { Transition } from './print.js';

function* records(text: string, needle: string): Generator<Record<string, unknown>> {
  for (const line of text.split('\n')) {
    if (!line.startsWith('{') || !line.includes(needle)) continue;
    try {
      yield JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A partial line.
    }
  }
}

const readLog = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** The framework's own lines when the worker's status flips (src: @livekit/agents worker.ts). */
export function capacityTransitions(logFile: string): Transition[] {
  const out: Transition[] = [];
  for (const v of records(readLog(logFile), 'capacity, marking as')) {
    out.push({ time: v.time as number, full: String(v.msg).includes('unavailable'), load: v.load as number | undefined });
  }
  return out;
}

/**
 * Each job process's "job process ready" (end of prewarm), "acknowledgements ready" (ours only:
 * the phrases prepared after it) and "session started" times, by pid: pino puts the process's
 * pid on every line.
 */
export function processMarks(text: string): Map<number, ProcessMarks> {
  const marks = new Map<number, ProcessMarks>();
  for (const needle of ['"job process ready"', '"acknowledgements ready"', '"session started"']) {
    for (const v of records(text, needle)) {
      if (typeof v.pid !== 'number' || typeof v.time !== 'number') continue;
      const entry = marks.get(v.pid) ?? { pid: v.pid };
      if (v.msg === 'job process ready') entry.readyAt ??= v.time;
      else if (v.msg === 'acknowledgements ready') entry.preparedAt ??= v.time;
      else if (v.msg === 'session started') entry.sessionAt ??= v.time;
      else continue;
      marks.set(v.pid, entry);
    }
  }
  return marks;
}

export const processMarksOf = (logFile: string): Map<number, ProcessMarks> => processMarks(readLog(logFile));
