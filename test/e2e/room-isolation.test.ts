/**
 * Rooms no stranger can enter, against the real stack (livekit-server, the production worker
 * capped at two calls, the page server as `npm run web` runs it): what a second browser session
 * and an intruder try, and what the server answers (test/e2e/clients/room-isolation.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientResult, type E2EStack, requireStack, startStack } from './stack.js';

const available = requireStack();

interface Join {
  joined: boolean;
  error?: string;
}
interface Isolation extends ClientResult {
  a: { status: number; room: string; identity: string; setCookie: boolean; agent: string };
  b: { status: number; room: string; identity: string };
  bNamesA: { status: number; error: string; message: string; room: string | null };
  bForged: { status: number; room: string | null };
  bAgain: { status: number; room: string | null };
  edited: Join;
  guessed: Join;
  expired: Join;
  third: Join;
  participantsOfA: string[];
  aStillConnected: boolean;
  c: { status: number; error: string | null; message: string | null };
}

describe.skipIf(!available)('rooms no stranger can enter (real stack)', () => {
  let stack: E2EStack;
  let result: Isolation;

  beforeAll(async () => {
    // Two calls per worker: sessions A and B fill it, C finds it busy.
    stack = await startStack({ workerEnv: { AGENT_MAX_CALLS: '2' } });
    const run = await stack.client('room-isolation', ['--timeout-ms', '100000'], { timeoutMs: 110_000 });
    if (!run.ok) throw new Error(`room-isolation failed: ${run.error}`);
    result = run as Isolation;
    console.info(`[test/e2e] room isolation: ${JSON.stringify(result)}`);
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('gives each browser session its own server-named room, and the agent joins it', () => {
    expect(result.a).toMatchObject({ status: 200, setCookie: true });
    expect(result.a.room).toMatch(/^web-[A-Za-z0-9_-]{22}$/);
    expect(result.a.identity).toMatch(/^caller-[A-Za-z0-9_-]{22}$/);
    expect(result.a.agent).toMatch(/^agent-/);
    expect(result.b.status).toBe(200);
    expect(result.b.room).not.toBe(result.a.room);
    expect(result.b.identity).not.toBe(result.a.identity);
  });

  it("never hands a second session the first one's room, whatever it asks", () => {
    expect(result.bNamesA).toMatchObject({ status: 400, error: 'invalid_request', room: null });
    expect(result.bNamesA.message).toMatch(/the server chooses the room and identity/);
    // a cookie naming A's room with another session's signature is not A's session
    expect(result.bForged.room).not.toBe(result.a.room);
    // B's own cookie brings B back to B's room
    expect(result.bAgain).toEqual({ status: 200, room: result.b.room });
  });

  it("refuses an edited, a forged and an expired token for A's room at the server", () => {
    for (const attempt of [result.edited, result.guessed, result.expired]) {
      expect(attempt.joined).toBe(false);
      expect(attempt.error).toBeTruthy();
    }
  });

  it('refuses a third participant even with a valid token, and the caller keeps its call', () => {
    expect(result.third.joined).toBe(false);
    expect(result.participantsOfA).toEqual([result.a.agent, result.a.identity].sort());
    expect(result.aStillConnected).toBe(true);
  });

  it('answers busy when the worker is at AGENT_MAX_CALLS', () => {
    expect(result.c).toMatchObject({ status: 503, error: 'busy' });
  });
});
