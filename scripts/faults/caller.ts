/**
 * One caller of a fault drill (`npm run faults`), run INSIDE the stack's namespace:
 *
 *   tsx scripts/faults/caller.ts PLAN.json
 *
 * Joins `room` (dispatching `agentName`), waits until the agent listens, optionally takes a spoken
 * turn, then stays until `stopFile` exists, noting what the connection and the agent do meanwhile
 * (reconnecting, the agent leaving, another agent taking over); then optionally asks the server
 * which agents are in the room (`agents`: watched for a while after a restart) and takes another
 * turn (does an agent still answer, with the conversation so far?) and leaves. One JSON line per
 * event with a `bench` key: `listening`, `turn` (with the model's replies), `event`, `heard` (a
 * replacement agent's first sound), `history` (how many turns an agent's saved history holds,
 * src/recovery/history.ts), `agents`, `done`; `error` when it cannot go on.
 */
import { ParticipantKind, type Room, RoomEvent, TrackKind, dispose } from '@livekit/rtc-node';
import { stackRoomService, stackVariable } from '../stack/in-namespace.js';
import { existsSync, readFileSync } from 'node:fs';
import { decodeWav } from '../../src/local-voice/wav.js';
import { joinCaller } from '../../bench/room/caller.js';
import { Control } from '../../bench/room/control.js';
import type { TurnSpec } from '../../bench/room/plan.js';
import { type Caller, runTurn } from '../../bench/room/turn.js';
import { HISTORY_ATTRIBUTE, decodeHistory } from '../../src/recovery/history.js';

export interface FaultCallerPlan {
  room: string;
  agentName: string;
  joinDeadlineMs: number;
  clip: { file: string; firstVoiced: number; lastVoiced: number };
  transcript: string;
  turnFirst: boolean;
  turnAtEnd: boolean;
  /** Stay until this file exists (bounded by `holdMaxMs`). */
  stopFile?: string;
  holdMaxMs: number;
  /** Before the last turn, watch which agents the server lists in the room for this long, and report them. */
  agentsWatchMs?: number;
  /** During the hold, take a turn this often (a soak's caller: `npm run soak`). */
  turnEveryMs?: number;
  /** During the hold, take a turn (`reconnected`) as soon as the connection is back after a server restart. */
  turnOnReconnect?: boolean;
}

const emit = (kind: string, body: Record<string, unknown> = {}) => process.stdout.write(`${JSON.stringify({ bench: kind, at: Date.now(), ...body })}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The level runTurn takes for the agent's sound (its `threshold`). */
const LOUD = 300;

async function main(): Promise<void> {
  const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as FaultCallerPlan;
  const { sampleRate, samples } = decodeWav(readFileSync(plan.clip.file));
  if (sampleRate !== 48_000) throw new Error(`${plan.clip.file}: ${sampleRate} Hz`);
  const clips = new Map([['speech', { samples, firstVoiced: plan.clip.firstVoiced, lastVoiced: plan.clip.lastVoiced }]]);
  const control = new Control(stackVariable('STACK_OPENAI_URL'), stackVariable('STACK_CARTESIA_URL'));
  const started = Date.now();
  const caller = await joinCaller(plan.room, plan.room, plan.agentName, started + plan.joinDeadlineMs);
  const agent = [...caller.room.remoteParticipants.values()].find((p) => p.kind === ParticipantKind.AGENT);
  emit('listening', { afterMs: caller.listeningAt - started, agent: agent?.identity ?? null });
  // The most agents this caller saw in the room at once.
  const agentsHere = () => [...caller.room.remoteParticipants.values()].filter((p) => p.kind === ParticipantKind.AGENT).length;
  let mostAgents = agentsHere();
  caller.room.on(RoomEvent.ParticipantConnected, () => (mostAgents = Math.max(mostAgents, agentsHere())));
  caller.room.on(RoomEvent.ParticipantAttributesChanged, (changed, participant) => {
    if (participant.kind !== ParticipantKind.AGENT || !(HISTORY_ATTRIBUTE in changed)) return;
    const history = decodeHistory(changed[HISTORY_ATTRIBUTE]);
    emit('history', { agent: participant.identity, turns: history.ok ? history.value.length : null, ...(history.ok ? {} : { error: history.error }) });
  });
  // A replacement agent (a job process died; the worker dispatched another): the caller's ear
  // follows its track (bench/room/caller.ts); noted here is when it is first heard.
  let heardFrom = agent?.identity;
  caller.room.on(RoomEvent.TrackSubscribed, (track, _publication, participant) => {
    if (track.kind !== TrackKind.KIND_AUDIO || participant.kind !== ParticipantKind.AGENT || participant.identity === heardFrom) return;
    heardFrom = participant.identity;
    const subscribedAt = Date.now();
    emit('event', { what: `agent audio from ${participant.identity}`, agent: true });
    void caller.ear.until(() => caller.ear.firstLoud(subscribedAt, LOUD), subscribedAt + 60_000).then((frame) => {
      if (frame) emit('heard', { agent: participant.identity, at: caller.ear.arrivalOf(frame) });
    });
  });
  caller.room.on(RoomEvent.ConnectionStateChanged, (state) => emit('event', { what: `connection state ${state}` }));
  caller.room.on(RoomEvent.Reconnecting, () => emit('event', { what: 'reconnecting' }));
  let reconnectedAt: number | undefined;
  caller.room.on(RoomEvent.Reconnected, () => {
    reconnectedAt ??= Date.now();
    emit('event', { what: 'reconnected' });
  });
  caller.room.on(RoomEvent.Disconnected, (reason) => emit('event', { what: `disconnected (${String(reason)})` }));
  caller.room.on(RoomEvent.ParticipantDisconnected, (p) => emit('event', { what: `participant left: ${p.identity}`, agent: p.kind === ParticipantKind.AGENT }));
  caller.room.on(RoomEvent.ParticipantConnected, (p) => emit('event', { what: `participant joined: ${p.identity}`, agent: p.kind === ParticipantKind.AGENT }));
  let turnId = 0;
  const turn = async (label: string) => {
    const spec: TurnSpec = { id: turnId++, strategy: 'firstword', kind: 'turn', scenario: label, language: 'en', clip: 'speech', transcript: plan.transcript, msPerChar: 60, pauseBeforeMs: 200 };
    const startedAt = Date.now();
    try {
      if (reconnectedAt !== undefined) {
        const microphone = await caller.microphoneOnServer(10_000);
        if (microphone.republished > 0) {
          const tries = `${microphone.republished} time${microphone.republished === 1 ? '' : 's'}${microphone.errors.length > 0 ? ` (${microphone.errors.join('; ')})` : ''}`;
          emit('event', { what: `microphone published again ${tries}: the server did not carry it after the reconnect; ${microphone.listed ? 'now it does' : 'still not'}` });
        }
      }
      const before = (await control.openaiStats()).chatReplies.length;
      const r = await runTurn(spec, caller, control, clips, LOUD);
      // Every reply the model gave during the turn: two agents in the room each ask for one.
      const replies = (await control.openaiStats()).chatReplies.slice(before);
      emit('turn', { label, startedAt, ok: r.ok, firstSoundMs: r.callerWaitMs ?? null, heardAt: r.firstAudioAt ?? null, gaps: r.gaps ?? null, error: r.error ?? null, commits: r.commits ?? null, replies });
    } catch (error) {
      emit('turn', { label, startedAt, ok: false, error: String(error) });
    }
  };
  if (plan.turnFirst) await turn('first');
  const holdUntil = Date.now() + plan.holdMaxMs;
  const holding = () => Date.now() < holdUntil && !(plan.stopFile && existsSync(plan.stopFile));
  if (plan.turnOnReconnect) {
    while (holding() && reconnectedAt === undefined) await sleep(100);
    if (reconnectedAt !== undefined) await turn('reconnected');
    while (holding()) await sleep(200);
  } else if (plan.turnEveryMs !== undefined) {
    for (let n = 1, nextAt = Date.now() + plan.turnEveryMs; holding(); await sleep(200)) {
      if (Date.now() < nextAt) continue;
      await turn(`hold-${n++}`);
      nextAt = Date.now() + plan.turnEveryMs;
    }
  } else if (plan.stopFile) {
    while (holding()) await sleep(200);
  }
  const agentStill = [...caller.room.remoteParticipants.values()].some((p) => p.kind === ParticipantKind.AGENT);
  const agents = [...caller.room.remoteParticipants.values()].filter((p) => p.kind === ParticipantKind.AGENT).map((p) => p.identity);
  emit('event', { what: `agent in the room at the end: ${agentStill}`, agentStill, agents });
  if (plan.agentsWatchMs !== undefined) {
    const listed = await agentsOver(caller.room, plan.room, plan.agentsWatchMs);
    emit('agents', { ...listed, first: agent?.identity ?? null, mostSeenAtOnce: mostAgents });
  }
  if (plan.turnAtEnd) await turn('after');
  caller.ear.close();
  await caller.leave();
  emit('done', { leftAt: Date.now() });
}

/**
 * The agents the server lists in `room` over `ms` from the caller's reconnection (right after a
 * restart the server still lists the room's participants from before it, kept in Redis; a new
 * job's agent takes seconds to join): the last list and the most listed at once.
 */
async function agentsOver(room: Room, name: string, ms: number): Promise<{ agents: string[]; mostListed: number }> {
  for (const deadline = Date.now() + ms; !room.isConnected && Date.now() < deadline; ) await sleep(200);
  const api = stackRoomService();
  let agents: string[] = [];
  let mostListed = 0;
  for (const deadline = Date.now() + ms; Date.now() < deadline; await sleep(500)) {
    try {
      // rtc-node's ParticipantKind is the protocol's ParticipantInfo.Kind (AGENT = 4).
      agents = (await api.listParticipants(name)).filter((p) => Number(p.kind) === Number(ParticipantKind.AGENT)).map((p) => p.identity);
    } catch {
      agents = []; // the server not back yet
    }
    mostListed = Math.max(mostListed, agents.length);
  }
  return { agents, mostListed };
}

/** Past its hold and a last turn, a caller that still runs is stuck: it says so and exits. */
const planned = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Pick<FaultCallerPlan, 'holdMaxMs' | 'joinDeadlineMs'>;
const hardStop = setTimeout(
  () => {
    emit('error', { error: 'caller deadline passed' });
    process.exit(3);
  },
  Math.max(300_000, planned.joinDeadlineMs + planned.holdMaxMs + 120_000),
);
main().then(
  async () => {
    clearTimeout(hardStop);
    await Promise.race([dispose(), sleep(2000)]).catch(() => {});
    process.exit(0);
  },
  async (error: unknown) => {
    emit('error', { error: error instanceof Error ? error.message : String(error) });
    await Promise.race([dispose(), sleep(2000)]).catch(() => {});
    process.exit(1);
  },
);
