/**
 * A job process SIGKILLed mid-call, on the real stack: the worker's main process notices at
 * once, logs one error line, takes the dead agent out of the room and dispatches a new one, which
 * apologises to the caller ("Sorry — where were we?") and answers the next turn. The caller is the
 * fault drills' rtc-node caller (scripts/faults/caller.ts) speaking real speech; the job's process
 * is found the way `npm run faults` finds it (its "caller joined" line names its pid).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverEvent } from '../../bench/room/stack-run.js';
import { CONVERSATION, type CallerHandle, logLines, startCaller } from '../../scripts/faults/drill.js';
import { RESUME_GREETINGS } from '../../src/recovery/greeting.js';
import { RESUMING_CALL } from '../../src/recovery/dispatch-metadata.js';
import { startFaultStack } from './fault-stack.js';
import { type E2EStack, requireStack } from './stack.js';

const available = requireStack();

const AGENT = 'firstword-recovery';
const note = (line: string) => process.stderr.write(`  ${line}\n`);

describe.skipIf(!available)('a job process killed mid-call', () => {
  let stack: E2EStack;
  let work: string;
  let clip: { file: string; firstVoiced: number; lastVoiced: number };

  beforeAll(async () => {
    ({ stack, work, clip } = await startFaultStack('job-recovery', AGENT));
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  }, 90_000);

  it('removes the dead agent, and a new one apologises and answers the next turn', async () => {
    const worker = stack.state.processes.find((p) => p.name === 'worker')!;
    const room = `recovery-${Date.now().toString(36)}`;
    const plan = { room, agentName: AGENT, joinDeadlineMs: 90_000, clip, transcript: CONVERSATION.user, turnFirst: true, turnAtEnd: true, holdMaxMs: 120_000 };
    const caller: CallerHandle = startCaller(stack.state, work, 'recovery', plan, note);
    try {
      const first = await caller.next((e) => e.bench === 'turn' || e.bench === 'error', 150_000);
      expect(first?.bench, JSON.stringify(caller.events)).toBe('turn');
      const deadAgent = String(caller.events.find((e) => e.bench === 'listening')?.agent);
      const job = deadAgent.replace(/^agent-/, '');
      const jobPid = logLines(worker.logFile).find((l) => l.msg === 'caller joined' && l.job === job)?.pid;
      expect(jobPid, `no "caller joined" line for ${job}`).toBeTypeOf('number');
      // Killed once the first turn (the caller's words and the reply) is in the agent's saved
      // history, as the caller sees its attributes.
      const saved = await caller.next((e) => e.bench === 'history' && e.agent === deadAgent && Number(e.turns) >= 2, 60_000);
      expect(saved, JSON.stringify(caller.events)).toBeDefined();

      const killedAt = Date.now();
      process.kill(jobPid!, 'SIGKILL');
      const heard = await caller.next((e) => e.bench === 'heard', 60_000);
      caller.stop();
      const after = await caller.next((e) => (e.bench === 'turn' && e.label === 'after') || e.bench === 'error', 120_000);
      await caller.exited;

      const events = (what: string) => caller.events.filter((e: DriverEvent) => e.bench === 'event' && String(e.what).startsWith(what));
      const left = events(`participant left: ${deadAgent}`)[0];
      const newAgent = String(heard?.agent ?? '');
      const lines = logLines(worker.logFile).filter((l) => l.time >= killedAt);
      const died = lines.filter((l) => l.level >= 50);
      const resumed = lines.find((l) => l.msg === RESUMING_CALL);
      const received = await stack.exec(process.execPath, ['-e', "fetch(process.env.STACK_CARTESIA_URL + '/_control/received').then((r) => r.text()).then((t) => process.stdout.write(t))"]);
      const spoken = (JSON.parse(received.stdout) as { messages: { receivedAt: number; message: { transcript?: string } }[] }).messages
        .filter((m) => m.receivedAt >= killedAt)
        .map((m) => m.message.transcript ?? '')
        .join('');
      console.info(
        `[test/e2e] job recovery: dead agent gone ${left ? `${Number(left.at) - killedAt} ms` : 'never'} after the kill; ` +
          `new agent heard ${heard ? `${Number(heard.at) - killedAt} ms` : 'never'} after the kill; next turn: ${after?.ok ? `first sound ${Math.round(Number(after.firstSoundMs))} ms` : `no reply (${String(after?.error)})`}`,
      );

      // One error line, naming the job and the signal, and no other error.
      expect(died.map((l) => l.msg)).toEqual(['job process died during a call (signal SIGKILL)']);
      expect(died[0]).toMatchObject({ job, signal: 'SIGKILL', jobPid, room });
      // The dead agent was taken out; a different one took over and is the only agent left.
      expect(left, JSON.stringify(caller.events)).toBeDefined();
      expect(heard, JSON.stringify(caller.events)).toBeDefined();
      expect(newAgent).not.toBe(deadAgent);
      expect(events('agent in the room at the end')[0]?.agents).toEqual([newAgent]);
      // The new agent spoke the apology, in English (the caller's language).
      expect(resumed).toMatchObject({ resumeOf: job, why: 'its job process died', language: 'en' });
      // Chunks may split the sentence anywhere: compared without the spaces between them.
      expect(spoken.replace(/\s+/g, '')).toContain(RESUME_GREETINGS.en!.replace(/\s+/g, ''));
      // It was given the first turn (the caller's words and the reply), which had been answered.
      expect(first, JSON.stringify(caller.events)).toMatchObject({ ok: true });
      expect(Number(resumed!.historyTurns)).toBeGreaterThanOrEqual(2);
      // And the call goes on, from the conversation so far: the model answered the next question
      // with the first answer in the chat it was sent, and never without it.
      expect(after, JSON.stringify(caller.events)).toMatchObject({ ok: true });
      expect(after!.replies).toContain(CONVERSATION.replyWithHistory);
      expect(after!.replies).not.toContain(CONVERSATION.reply);
    } finally {
      caller.stop();
      await caller.exited;
    }
  }, 420_000);
});
