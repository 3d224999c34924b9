import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeResumeMetadata } from '../../src/recovery/dispatch-metadata.js';
import { type AgentClaim, SINCE_ATTRIBUTE, claimOf, claimOfAccept, oneAgentPerRoom, outranks, yieldTo } from '../../src/rooms/one-agent.js';

const AGENT = 'firstword';
const agent = (identity: string, since?: number, agentName = AGENT) => ({
  identity,
  attributes: { 'lk.agent.name': agentName, ...(since === undefined ? {} : { [SINCE_ATTRIBUTE]: String(since) }) },
});

describe('which agent of a call stays', () => {
  it.each([
    { name: 'the earlier accept stays, the later one leaves', self: { identity: 'agent-new', since: 2000 }, others: [{ identity: 'agent-old', since: 1000 }], leavesTo: 'agent-old' },
    { name: 'the earlier one stays when the later one joins', self: { identity: 'agent-old', since: 1000 }, others: [{ identity: 'agent-new', since: 2000 }], leavesTo: undefined },
    { name: 'alone, it stays (the old job never came back)', self: { identity: 'agent-new', since: 2000 }, others: [], leavesTo: undefined },
    { name: 'the same moment: the smaller identity stays', self: { identity: 'agent-b', since: 1000 }, others: [{ identity: 'agent-a', since: 1000 }], leavesTo: 'agent-a' },
    { name: 'an unstamped agent yields to a stamped one', self: { identity: 'agent-a', since: Infinity }, others: [{ identity: 'agent-z', since: 5 }], leavesTo: 'agent-z' },
    { name: 'of several older ones, it leaves to the oldest', self: { identity: 'agent-c', since: 3 }, others: [{ identity: 'agent-b', since: 2 }, { identity: 'agent-a', since: 1 }], leavesTo: 'agent-a' },
    { name: 'itself listed among the others is no reason to leave', self: { identity: 'agent-a', since: 1 }, others: [{ identity: 'agent-a', since: 1 }], leavesTo: undefined },
  ])('$name', ({ self, others, leavesTo }) => {
    expect(yieldTo(self, others)?.identity).toBe(leavesTo);
  });

  const claims = fc.uniqueArray(
    fc.record({ identity: fc.string({ minLength: 1, maxLength: 6 }), since: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(Infinity)) }),
    { minLength: 1, maxLength: 6, selector: (c) => c.identity },
  );

  it('whatever agents meet in a room and in whatever order each looks, exactly one stays', () => {
    fc.assert(
      fc.property(claims, (all) => {
        const staying = all.filter((self) => yieldTo(self, all) === undefined);
        expect(staying).toHaveLength(1);
        // ... and every other one leaves to that same agent.
        for (const self of all) if (self !== staying[0]) expect(yieldTo(self, [...all].reverse())).toEqual(staying[0]);
      }),
    );
  });

  it('outranks is a strict order: never both ways, and only an agent ties with itself', () => {
    fc.assert(
      fc.property(claims, (all) => {
        for (const a of all) for (const b of all) expect(outranks(a, b) && outranks(b, a)).toBe(false);
        for (const a of all) for (const b of all) if (a !== b) expect(outranks(a, b) || outranks(b, a)).toBe(true);
      }),
    );
  });

  it('reads claims only from agents of its own agent name', () => {
    expect(claimOf(agent('agent-1', 42), AGENT)).toEqual({ identity: 'agent-1', since: 42 });
    expect(claimOf(agent('agent-2'), AGENT)).toEqual({ identity: 'agent-2', since: Infinity });
    expect(claimOf(agent('agent-3', 42, 'someone-else'), AGENT)).toBeUndefined();
    expect(claimOf({ identity: 'caller', attributes: {} }, AGENT)).toBeUndefined();
    expect(claimOf({ identity: 'x', attributes: { 'lk.agent.name': AGENT, [SINCE_ATTRIBUTE]: '12abc' } }, AGENT)?.since).toBe(Infinity);
    expect(claimOfAccept({ identity: 'agent-9', attributes: { [SINCE_ATTRIBUTE]: '7' } })).toEqual<AgentClaim>({ identity: 'agent-9', since: 7 });
    expect(claimOfAccept({ identity: 'agent-9' }).since).toBe(Infinity);
  });
});

/** A job request as the framework hands it over, recording the answer. */
function request(id: string, room: string) {
  const answer: { value?: string; attributes?: Record<string, string> } = {};
  return {
    id,
    room: { name: room },
    answer,
    accept: async (_name?: string, _identity?: string, _metadata?: string, attributes?: Record<string, string>) => void Object.assign(answer, { value: 'accepted', attributes }),
    reject: async () => void (answer.value = 'rejected'),
  };
}

describe('the worker declines a second agent for a room it serves', () => {
  it('declines a job for a room with a running job of its own, and says which', async () => {
    const declined: unknown[] = [];
    const worker = { activeJobs: [{ job: { id: 'AJ_old', room: { name: 'call-1' } } }] };
    const handle = oneAgentPerRoom(undefined, { worker: () => worker, now: () => 1234, onDecline: (fields) => declined.push(fields) });
    const again = request('AJ_new', 'call-1');
    const other = request('AJ_other', 'call-2');
    await handle(again);
    await handle(other);
    expect(again.answer.value).toBe('rejected');
    expect(declined).toEqual([{ jobId: 'AJ_new', runningJob: 'AJ_old' }]);
    expect(other.answer).toEqual({ value: 'accepted', attributes: { [SINCE_ATTRIBUTE]: '1234' } });
  });

  it('hands every other request to the next handler, whose accept stamps the claim', async () => {
    const seen: string[] = [];
    const next = async (r: { id: string; accept: () => Promise<void>; reject: () => Promise<void> }) => {
      seen.push(r.id);
      await (r.id === 'full' ? r.reject() : r.accept());
    };
    const handle = oneAgentPerRoom(next, { worker: () => undefined, now: () => 99 });
    const taken = request('taken', 'call-1');
    const full = request('full', 'call-2');
    await handle(taken);
    await handle(full);
    expect(seen).toEqual(['taken', 'full']);
    expect(taken.answer).toEqual({ value: 'accepted', attributes: { [SINCE_ATTRIBUTE]: '99' } });
    expect(full.answer.value).toBe('rejected');
  });

  it('lets through the resumption of a job whose process died, while that job is still listed, but not a second one', async () => {
    const worker = { activeJobs: [{ job: { id: 'AJ_dead', room: { name: 'call-1' } } }] };
    const handle = oneAgentPerRoom(undefined, { worker: () => worker });
    const resume = { ...request('AJ_resume', 'call-1'), job: { metadata: encodeResumeMetadata({ id: 'AJ_dead', metadata: undefined }, []) } };
    const resumesAnother = { ...request('AJ_other', 'call-1'), job: { metadata: encodeResumeMetadata({ id: 'AJ_elsewhere', metadata: undefined }, []) } };
    await handle(resume);
    await handle(resumesAnother);
    expect(resume.answer.value).toBe('accepted');
    expect(resumesAnother.answer.value).toBe('rejected');
  });

  it('tells the next handler (the call cap) which dead job a resumption replaces', async () => {
    const seen: Array<string | undefined> = [];
    const next = async (r: { replaces?: string; accept: () => Promise<void> }) => {
      seen.push(r.replaces);
      await r.accept();
    };
    const handle = oneAgentPerRoom(next, { worker: () => undefined });
    await handle({ ...request('AJ_resume', 'call-1'), job: { metadata: encodeResumeMetadata({ id: 'AJ_dead', metadata: undefined }, []) } });
    await handle(request('AJ_plain', 'call-2'));
    expect(seen).toEqual(['AJ_dead', undefined]);
  });

  it('accepts again once the room\'s job has ended', async () => {
    const worker = { activeJobs: [{ job: { id: 'AJ_old', room: { name: 'call-1' } } }] };
    const handle = oneAgentPerRoom(undefined, { worker: () => worker });
    worker.activeJobs = [];
    const later = request('AJ_new', 'call-1');
    await handle(later);
    expect(later.answer.value).toBe('accepted');
  });
});
