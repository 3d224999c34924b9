/**
 * livekit-server killed (SIGKILL) and started again in the middle of a call. The caller's rejoin
 * recreates the room and the server dispatches a second job to it, while the call's own job
 * reconnects. Afterwards the room has exactly one agent, the call's own (or, when its rebuilt
 * connection never hears the caller or is never heard, the successor it handed the call to), and the caller's next
 * turn is answered from the conversation so far (the OpenAI fake answers "As I said, ..." only
 * when the chat it is sent already holds the first answer).
 *
 * The caller is the fault drill's (scripts/faults/caller.ts): rtc-node in the stack's namespace,
 * speaking real (eSpeak) speech; after the restart it lists the room's agents through the
 * server's API for 20 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEvent } from '../../bench/room/stack-run.js';
import { CONVERSATION, logLines, startCaller } from '../../scripts/faults/drill.js';
import { restartComponent } from '../../scripts/stack/stack.js';
import { isBrokenRoomHandOver } from '../../src/recovery/lost-room.js';
import { freshRoom, waitFor } from './agent-calls.js';
import { startFaultStack } from './fault-stack.js';
import { type E2EStack, requireStack } from './stack.js';

const available = requireStack();
const AGENT = 'firstword-restart';

describe.skipIf(!available)('livekit-server restarted during a call', () => {
  let stack: E2EStack;
  let work: string;
  let clip: { file: string; firstVoiced: number; lastVoiced: number };

  beforeAll(async () => {
    ({ stack, work, clip } = await startFaultStack('server-restart', AGENT));
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 90_000);

  it("keeps the call's own agent alone in the room, and it answers the next turn with the conversation so far", async () => {
    const room = freshRoom('restart');
    const worker = stack.state.processes.find((p) => p.name === 'worker')!;
    const caller = startCaller(
      stack.state,
      work,
      'restart-a',
      { room, agentName: AGENT, joinDeadlineMs: 90_000, clip, transcript: CONVERSATION.user, turnFirst: true, turnAtEnd: true, holdMaxMs: 180_000, agentsWatchMs: 20_000 },
      () => {},
    );
    const isTurn = (e: DriverEvent) => e.bench === 'turn' || e.bench === 'error';
    const first = await caller.next(isTurn, 150_000);
    expect(first, JSON.stringify(caller.events)).toMatchObject({ bench: 'turn', ok: true });
    // (Preemptive drafts on partial transcripts ask the model too: a turn may get several replies.)
    expect(first!.replies).toContain(CONVERSATION.reply);
    const firstAgent = String(caller.events.find((e) => e.bench === 'listening')?.agent);
    const registered = () => logLines(worker.logFile).filter((l) => l.msg === 'registered worker').length;
    const registeredBefore = registered();

    const { goneAt, readyAt } = await restartComponent(stack.state, 'livekit-server');
    console.info(`[test/e2e] server restart: livekit-server down ${readyAt - goneAt} ms (kill → ready)`);
    // The worker's own reconnect, then the caller's: its rejoin recreates the room and the server
    // dispatches a second job for it, which this worker declines (it serves the room already).
    await waitFor('the worker registered again', async () => (registered() > registeredBefore ? true : undefined), 60_000);
    caller.stop();
    await caller.exited;

    const agents = caller.events.find((e) => e.bench === 'agents');
    expect(agents, JSON.stringify(caller.events)).toBeDefined();
    expect(agents!.mostListed, JSON.stringify(caller.events)).toBe(1);
    // The call's own agent stays; or, when its rebuilt connection never carried the caller's audio
    // or its own (rtc-node now and then comes back so), it handed the call to a successor with the
    // history.
    const handedOver = logLines(worker.logFile).filter((l) => isBrokenRoomHandOver(l.msg));
    if (handedOver.length === 0) expect(agents!.agents).toEqual([firstAgent]);
    else expect(agents!.agents).toEqual([expect.not.stringMatching(firstAgent)]);
    const after = caller.events.find((e) => e.bench === 'turn' && e.label === 'after');
    expect(after, JSON.stringify(caller.events)).toMatchObject({ ok: true });
    // The model answered the question with the first answer in the chat, and never without it.
    expect(after!.replies).toContain(CONVERSATION.replyWithHistory);
    expect(after!.replies).not.toContain(CONVERSATION.reply);

    const log = logLines(worker.logFile);
    const job = firstAgent.replace(/^agent-/, '');
    const declined = log.filter((l) => l.msg === 'this worker already runs the agent of that room: declining a second');
    console.info(`[test/e2e] server restart: agents listed afterwards ${JSON.stringify(agents!.agents)} (at most ${String(agents!.mostListed)} at once); second jobs declined: ${declined.length}; handed over for not hearing or not being heard: ${handedOver.map((l) => String(l.msg)).join(' / ') || 0}`);
    expect(declined.map((l) => l.runningJob)).toEqual([job]);
  }, 420_000);
});
