/**
 * A job handing its call over (./lost-room.ts) and its worker's main process, over the framework's
 * own IPC channel to the job process (the framework ignores message cases it does not know). The
 * job asks; the worker stops counting the job against its call cap and answers once LiveKit has
 * been told it has room (src/lifecycle/load-reports.ts): a worker at its cap reports itself full,
 * and LiveKit sends no job to a full worker, nor retries a dispatch that found none.
 */

export const HAND_OVER_REQUEST = 'firstwordHandOverRequest';
export const HAND_OVER_READY = 'firstwordHandOverReady';

interface ChannelMessage {
  case?: unknown;
  value?: { jobId?: unknown };
}

const isMessage = (message: unknown, kind: string, jobId: string): boolean =>
  typeof message === 'object' && message !== null && (message as ChannelMessage).case === kind && (message as ChannelMessage).value?.jobId === jobId;

/** What the job side uses of its process (injectable for tests). */
export interface JobProcessChannel {
  send?: (message: unknown) => unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * Job side: asks the worker to make room for the job's successor; true once it has, false after
 * `timeoutMs` without an answer. Outside a worker (no IPC channel) there is no one to ask: true.
 */
export function askWorkerForRoom(jobId: string, timeoutMs: number, channel: JobProcessChannel = process): Promise<boolean> {
  if (typeof channel.send !== 'function') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      channel.off('message', onMessage);
      resolve(ok);
    };
    const onMessage = (message: unknown) => {
      if (isMessage(message, HAND_OVER_READY, jobId)) done(true);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    channel.on('message', onMessage);
    channel.send!({ case: HAND_OVER_REQUEST, value: { jobId } });
  });
}

/** Main side: the job id when `message` is a hand-over request, and the answer to send back. */
export function handOverRequestOf(message: unknown): { jobId: string; ready: { case: string; value: { jobId: string } } } | undefined {
  const jobId = (message as ChannelMessage | undefined)?.value?.jobId;
  if (typeof jobId !== 'string' || !isMessage(message, HAND_OVER_REQUEST, jobId)) return undefined;
  return { jobId, ready: { case: HAND_OVER_READY, value: { jobId } } };
}
