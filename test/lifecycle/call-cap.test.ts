import { describe, expect, it } from 'vitest';
import { createCallCap } from '../../src/lifecycle/call-cap.js';

/** A job request as the framework hands it over, recording the answer. */
function request(id: string) {
  const answer: { value?: 'accepted' | 'rejected' } = {};
  return { id, answer, accept: async () => void (answer.value = 'accepted'), reject: async () => void (answer.value = 'rejected') };
}

describe('AGENT_MAX_CALLS as a hard cap', () => {
  it('refuses a burst beyond the cap before any load report, and says so', async () => {
    const refused: unknown[] = [];
    const cap = createCallCap({ maxCalls: 2, now: () => 0, onRefuse: (fields) => refused.push(fields) });
    const burst = ['j1', 'j2', 'j3', 'j4'].map(request);
    for (const r of burst) await cap.requestFunc(r);
    expect(burst.map((r) => r.answer.value)).toEqual(['accepted', 'accepted', 'rejected', 'rejected']);
    expect(refused).toEqual([
      { jobId: 'j3', calls: 2, maxCalls: 2 },
      { jobId: 'j4', calls: 2, maxCalls: 2 },
    ]);
  });

  it('counts running jobs once (not again as accepted), frees a slot when a call ends, and reports load as the share in use', async () => {
    let t = 0;
    const cap = createCallCap({ maxCalls: 2, now: () => t });
    const server = { activeJobs: [] as { job: { id: string } }[] };
    await cap.requestFunc(request('j1'));
    server.activeJobs = [{ job: { id: 'j1' } }];
    expect(await cap.loadFunc(server)).toBe(0.5);
    await cap.requestFunc(request('j2'));
    server.activeJobs.push({ job: { id: 'j2' } });
    expect(await cap.loadFunc(server)).toBe(1);
    const third = request('j3');
    await cap.requestFunc(third);
    expect(third.answer.value).toBe('rejected');

    server.activeJobs = [{ job: { id: 'j2' } }]; // j1's call ended
    t += 1000;
    const fourth = request('j4');
    await cap.requestFunc(fourth);
    expect(fourth.answer.value).toBe('accepted');
    expect(cap.calls()).toBe(2);
  });

  it('stops counting an accepted job that never started running after the reservation', async () => {
    let t = 0;
    const cap = createCallCap({ maxCalls: 1, now: () => t, reservationMs: 30_000 });
    await cap.loadFunc({ activeJobs: [] });
    await cap.requestFunc(request('lost'));
    expect(cap.calls()).toBe(1);
    t += 30_001;
    expect(cap.calls()).toBe(0);
    const next = request('next');
    await cap.requestFunc(next);
    expect(next.answer.value).toBe('accepted');
  });

  it('lets a job that replaces a dead one (a resumed call) take its place at the cap, and no other job', async () => {
    const cap = createCallCap({ maxCalls: 2, now: () => 0 });
    await cap.loadFunc({ activeJobs: [{ job: { id: 'dead' } }, { job: { id: 'other' } }] });
    const stranger = request('new');
    await cap.requestFunc(stranger);
    expect(stranger.answer.value).toBe('rejected');
    const resumed = { ...request('resumed'), replaces: 'dead' };
    await cap.requestFunc(resumed);
    expect(resumed.answer.value).toBe('accepted');
    // Replacing a job that is not running frees nothing.
    const bogus = { ...request('bogus'), replaces: 'gone-long-ago' };
    await cap.requestFunc(bogus);
    expect(bogus.answer.value).toBe('rejected');
  });

  it('stops counting a released job (one handing its call over) while it is still running', async () => {
    const cap = createCallCap({ maxCalls: 2, now: () => 0 });
    const server = { activeJobs: [{ job: { id: 'leaving' } }, { job: { id: 'other' } }] };
    expect(await cap.loadFunc(server)).toBe(1);
    cap.release('leaving');
    expect(await cap.loadFunc(server)).toBe(0.5);
    const successor = request('successor');
    await cap.requestFunc(successor);
    expect(successor.answer.value).toBe('accepted');
    // Once gone, the job is forgotten: the same id running again counts.
    server.activeJobs = [{ job: { id: 'other' } }, { job: { id: 'successor' } }];
    expect(cap.calls()).toBe(2);
    server.activeJobs.push({ job: { id: 'leaving' } });
    expect(cap.calls()).toBe(3);
  });
});
