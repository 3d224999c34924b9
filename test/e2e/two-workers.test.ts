/**
 * Two production workers, one LiveKit server, LiveKit's own dispatch: no scheduler of ours. Each
 * worker reports its load honestly (AGENT_MAX_CALLS: full at that many live calls), so a full
 * worker gets no new rooms; a draining one finishes its calls while every new room goes to the
 * other; no room is ever left without an agent.
 *
 *   1. worker B alone (full at 2 calls): rooms 1–2 are all its own;
 *   2. worker A starts; once B's "full" reached the server, rooms 3–4 go to A;
 *   3. B gets SIGTERM with 2 live calls; rooms 5–6 go to A; B's calls stay up until their
 *      callers leave, then B exits 0.
 *
 * Six calls, not ten: a live call costs this 2-core machine about a quarter of a core (Silero
 * VAD runs on every caller's audio, silence included), and ten starved every job process ("VAD
 * inference is slower than realtime", job processes timing out at start).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshRoom, waitFor } from './agent-calls.js';
import { groupCpuMs } from './process-group.js';
import { settledWithin } from '../helpers/async.js';
import { type E2EStack, type WorkerHandle, requireStack, startStack } from './stack.js';

const available = requireStack();

const AGENT = 'firstword-pair';
/** The agents framework sends each worker's load every 2.5 s: one tick and a margin. */
const LOAD_TICK_MS = 3500;
const CPU_WINDOW_MS = 5000;
/** Worker B is full at this many calls. */
const B_CALLS = 2;
interface CrowdResult {
  ok: boolean;
  error?: string;
  t0Epoch: number;
  rooms: { room: string; agent?: string; joinedMs: number; agentMs?: number }[];
  steps: { step: string; atMs: number }[];
  missingAtEnd: string[];
  leftEpoch: number;
}

/** The crowd client's own deadline: each room waits at most 90 s for its agent, each mark 120 s. */
const CROWD_TIMEOUT_MS = 420_000;

/**
 * Resolves once the crowd wrote `<mark>.json`. The crowd's deadlines are the only ones: if it ends
 * first (a room that got no agent, say), this fails at once with the crowd's own error, instead
 * of polling on for a file that will never come and reporting only that it did not.
 */
function markReached(control: string, crowd: Promise<CrowdResult>): (mark: string) => Promise<void> {
  let ended: CrowdResult | undefined;
  crowd.then(
    (result) => (ended = result),
    (error: Error) => (ended = { ok: false, error: error.message } as CrowdResult),
  );
  return async (mark) => {
    await waitFor(
      `the crowd's mark ${mark}`,
      async () => {
        if (existsSync(join(control, `${mark}.json`))) return true;
        if (ended) throw new Error(`room-crowd ended before ${mark}: ${ended.error ?? 'no error'}; ${JSON.stringify(ended)}`);
        return undefined;
      },
      CROWD_TIMEOUT_MS,
      200,
    );
  };
}

/** The worker whose log names the agent's job (the agent's identity is `agent-<job id>`). */
function servedBy(agentIdentity: string, logs: Record<string, string>): string[] {
  const job = agentIdentity.replace(/^agent-/, '');
  return Object.entries(logs)
    .filter(([, log]) => log.includes(`"${job}"`))
    .map(([name]) => name);
}

describe.skipIf(!available)('two workers behind one LiveKit server', () => {
  let stack: E2EStack;
  let workerB: WorkerHandle;

  beforeAll(async () => {
    stack = await startStack({ tts: 'cartesia', web: false, worker: false });
    workerB = await stack.startWorker({ name: 'worker-b', agentName: AGENT, httpPort: 18091, env: { AGENT_MAX_CALLS: String(B_CALLS) } });
  }, 150_000);

  afterAll(async () => {
    await stack?.stop();
  }, 90_000);

  it('spreads rooms by the load each worker reports, and hands new rooms to the other while one drains', async () => {
    const control = mkdtempSync(join(stack.state.runDir, 'crowd-'));
    const rooms = Array.from({ length: 6 }, (_, i) => freshRoom(`pair-${i + 1}`));
    const steps = [
      { join: rooms.slice(0, B_CALLS) },
      { mark: 'b-full' },
      { join: rooms.slice(B_CALLS, 4) },
      { sigterm: workerB.pid },
      { join: rooms.slice(4) },
      { mark: 'all-live' },
    ];
    // Stamped when it happens, not when the test gets to look.
    const exitB = workerB.exited.then((how) => ({ how, at: Date.now() }));
    const crowd = stack.client('room-crowd', ['--agent', AGENT, '--control', control, '--steps', JSON.stringify(steps)], { timeoutMs: CROWD_TIMEOUT_MS }) as unknown as Promise<CrowdResult>;
    const reached = markReached(control, crowd);

    // Worker A joins once B holds its calls, and after B's "full" had time to reach the server.
    await reached('b-full');
    const [workerA] = await Promise.all([
      stack.startWorker({ name: 'worker-a', agentName: AGENT, httpPort: 18092, env: { AGENT_MAX_CALLS: '10' } }),
      new Promise((resolve) => setTimeout(resolve, LOAD_TICK_MS)),
    ]);
    writeFileSync(join(control, 'b-full.go'), '');

    // What a live call costs: both workers' process trees (job processes, idle spares, the
    // inference process) over a window with every call up.
    await reached('all-live');
    const before = [groupCpuMs(workerA!.pid), groupCpuMs(workerB.pid)];
    const windowStart = Date.now();
    await new Promise((resolve) => setTimeout(resolve, CPU_WINDOW_MS));
    const cpuMs = groupCpuMs(workerA!.pid) - before[0]! + (groupCpuMs(workerB.pid) - before[1]!);
    const windowMs = Date.now() - windowStart;
    writeFileSync(join(control, 'all-live.go'), '');

    const result = await crowd;
    expect(result.ok, `room-crowd: ${result.error}; ${JSON.stringify(result)}`).toBe(true);
    const exitedB = await settledWithin(exitB, 90_000);
    const logs = { 'worker-a': readFileSync(workerA!.logFile, 'utf8'), 'worker-b': readFileSync(workerB.logFile, 'utf8') };
    const owners = result.rooms.map((r) => ({ room: r.room, agentAfterMs: r.agentMs! - r.joinedMs, by: servedBy(r.agent!, logs) }));
    console.info(
      `[test/e2e] two workers: CPU per live call ${((cpuMs / windowMs / rooms.length) * 100).toFixed(1)}% of a core ` +
        `(${Math.round(cpuMs)} ms of CPU in ${windowMs} ms, ${rooms.length} calls, both workers' processes)`,
    );
    console.info(
      `[test/e2e] two workers: ${owners.map((o, i) => `room ${i + 1} → ${o.by.join('+') || '?'} (agent in ${o.agentAfterMs} ms)`).join(', ')}; ` +
        `worker B: ${exitedB?.how ?? 'still running 90 s after the callers left'}${exitedB ? `, ${exitedB.at - result.leftEpoch} ms after the callers left` : ''}`,
    );

    // No room without an agent, and each served by exactly one worker.
    expect(result.rooms.map((r) => r.agent !== undefined)).toEqual(rooms.map(() => true));
    expect(owners.map((o) => o.by.length)).toEqual(rooms.map(() => 1));
    const by = owners.map((o) => o.by[0]);
    expect(by.slice(0, B_CALLS)).toEqual(rooms.slice(0, B_CALLS).map(() => 'worker-b'));
    // B said it was full: A got every room after that, and every room once B was draining.
    expect(by.slice(B_CALLS)).toEqual(rooms.slice(B_CALLS).map(() => 'worker-a'));
    // B's calls stayed up through its drain, until their callers left.
    expect(result.missingAtEnd).toEqual([]);
    expect(logs['worker-b']).toMatch(new RegExp(`"activeJobs":${B_CALLS},[^\\n]*"msg":"draining worker"`));
    expect(logs['worker-b']).not.toMatch(/drain timed out/);
    expect(exitedB, 'worker B did not exit within 90 s of its callers leaving').toBeDefined();
    expect(exitedB!.how).toBe('exit code 0');
    expect(exitedB!.at).toBeGreaterThan(result.leftEpoch);
  }, 480_000);
});
