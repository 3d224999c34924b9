import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { HAND_OVER_READY, HAND_OVER_REQUEST, askWorkerForRoom, handOverRequestOf } from '../../src/recovery/hand-over-channel.js';

/** A job process's side of the IPC channel, its sent messages recorded. */
function channel() {
  const emitter = new EventEmitter();
  const sent: unknown[] = [];
  return Object.assign(emitter, { sent, send: (message: unknown) => sent.push(message) });
}

describe('a job asking its worker for room for its successor', () => {
  it('asks once and resolves when its own answer comes, not another job\'s', async () => {
    const process = channel();
    let answered: boolean | undefined;
    void askWorkerForRoom('AJ_1', 5000, process).then((ok) => (answered = ok));
    expect(process.sent).toEqual([{ case: HAND_OVER_REQUEST, value: { jobId: 'AJ_1' } }]);
    process.emit('message', { case: HAND_OVER_READY, value: { jobId: 'AJ_2' } });
    process.emit('message', { case: 'pingRequest', value: { timestamp: 1 } });
    await Promise.resolve();
    expect(answered).toBeUndefined();
    process.emit('message', { case: HAND_OVER_READY, value: { jobId: 'AJ_1' } });
    await Promise.resolve();
    expect(answered).toBe(true);
    expect(process.listenerCount('message')).toBe(0);
  });

  it('gives up after its timeout, and outside a worker has no one to ask', async () => {
    vi.useFakeTimers();
    try {
      const process = channel();
      const waiting = askWorkerForRoom('AJ_1', 7000, process);
      await vi.advanceTimersByTimeAsync(7001);
      expect(await waiting).toBe(false);
      expect(process.listenerCount('message')).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    expect(await askWorkerForRoom('AJ_1', 7000, new EventEmitter())).toBe(true);
  });

  it('the main process reads a request and builds its answer; anything else is not one', () => {
    expect(handOverRequestOf({ case: HAND_OVER_REQUEST, value: { jobId: 'AJ_1' } })).toEqual({ jobId: 'AJ_1', ready: { case: HAND_OVER_READY, value: { jobId: 'AJ_1' } } });
    for (const other of [undefined, null, 'x', { case: 'pongResponse', value: { timestamp: 1 } }, { case: HAND_OVER_REQUEST, value: {} }, { case: HAND_OVER_READY, value: { jobId: 'AJ_1' } }])
      expect(handOverRequestOf(other)).toBeUndefined();
  });
});
