import { describe, expect, it, vi } from 'vitest';
import { watchLoadReports } from '../../src/lifecycle/load-reports.js';

describe('the load reported to LiveKit, watched', () => {
  it('passes the load through and answers at once while the last report said available', async () => {
    const reports = watchLoadReports(async (calls: number) => calls / 2, 1);
    expect(await reports.available(0)).toBe(true); // registered as available
    expect(await reports.loadFunc(1)).toBe(0.5);
    expect(await reports.available(0)).toBe(true);
  });

  it('after a full report, waits for the next report that says available', async () => {
    vi.useFakeTimers();
    try {
      const reports = watchLoadReports(async (calls: number) => calls / 2, 1);
      await reports.loadFunc(2);
      let answered: boolean | undefined;
      void reports.available(10_000).then((ok) => (answered = ok));
      await reports.loadFunc(2); // still full: the dead job still listed
      await vi.advanceTimersByTimeAsync(10);
      expect(answered).toBeUndefined();
      await reports.loadFunc(1);
      await vi.advanceTimersByTimeAsync(10);
      expect(answered).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives up after the timeout when no report says available', async () => {
    vi.useFakeTimers();
    try {
      const reports = watchLoadReports(async () => 1, 1);
      await reports.loadFunc(undefined);
      const waiting = reports.available(5000);
      await vi.advanceTimersByTimeAsync(5001);
      expect(await waiting).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
