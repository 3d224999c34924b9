/**
 * Many callers at once, one per room, each joining with the project's token that dispatches
 * `--agent NAME`, and staying until the end. Runs `--steps` (JSON) in order:
 *
 *   {"join": ["room-a", …]}   join these rooms one after another, each once an agent is in it
 *   {"mark": "name"}          write <--control>/name.json (the agents seen so far), then wait for
 *                             the test to create <--control>/name.go (it starts a worker, say)
 *   {"sigterm": PID}          SIGTERM that process (a worker draining with live calls)
 *   {"holdMs": N}             stay N ms
 *
 * then checks that every room still has its agent, and leaves them all. Each caller publishes a
 * microphone that sends silence. Prints
 * `{"e2e":"room-crowd","ok":true,"rooms":[{room, agent, joinedMs, agentMs}],"steps":[…],
 * "missingAtEnd":[…],"leftEpoch"}` (ms since t0Epoch).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AudioFrame,
  AudioSource,
  LocalAudioTrack,
  type Participant,
  type RemoteParticipant,
  Room,
  RoomEvent,
  TrackPublishOptions,
  TrackSource,
  dispose,
} from '@livekit/rtc-node';
import { AGENT_STATE, callerToken, isAgent } from './agent.js';
import { need, parseArgs, runClient } from './common.js';

type Step = { join: string[] } | { mark: string } | { sigterm: number } | { holdMs: number };

interface Call {
  room: string;
  joinedMs: number;
  agentMs?: number;
  agent?: string;
}

const args = parseArgs();
const agentToDispatch = args.agent ?? need('AGENT_NAME');
const steps = JSON.parse(args.steps ?? '[]') as Step[];
const control = args.control;
const agentWaitMs = Number(args['agent-wait-ms'] ?? 90_000);
const t0 = Date.now();
const now = () => Date.now() - t0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the agent participant once one carrying `lk.agent.state` is in `room`. */
function agentIn(room: Room): Promise<RemoteParticipant> {
  return new Promise((resolve, reject) => {
    const look = (participant: RemoteParticipant) => {
      if (!isAgent(participant) || participant.attributes[AGENT_STATE] === undefined) return;
      clearTimeout(timer);
      room.off(RoomEvent.ParticipantConnected, look);
      room.off(RoomEvent.ParticipantAttributesChanged, onAttributes);
      resolve(participant);
    };
    const onAttributes = (_changed: Record<string, string>, participant: Participant) => {
      if (participant !== room.localParticipant) look(participant as RemoteParticipant);
    };
    const timer = setTimeout(() => reject(new Error(`no agent within ${agentWaitMs} ms in ${room.name ?? 'a room'}`)), agentWaitMs);
    room.on(RoomEvent.ParticipantConnected, look);
    room.on(RoomEvent.ParticipantAttributesChanged, onAttributes);
    for (const participant of room.remoteParticipants.values()) look(participant);
  });
}

const MIC_RATE = 16_000;

const MIC_FRAME = MIC_RATE / 50; // 20 ms

/**
 * Every caller publishes a microphone that sends silence, as a browser or a phone line does: a
 * session whose caller never sent audio took 60 s to close once they left.
 */
async function publishSilentMic(room: Room, stopped: () => boolean): Promise<void> {
  const source = new AudioSource(MIC_RATE, 1, 100);
  await room.localParticipant!.publishTrack(LocalAudioTrack.createAudioTrack('microphone', source), new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
  const silence = new Int16Array(MIC_FRAME);
  void (async () => {
    while (!stopped()) await source.captureFrame(new AudioFrame(silence, MIC_RATE, 1, MIC_FRAME));
  })();
}

runClient('room-crowd', Number(args['timeout-ms'] ?? 400_000), async () => {
  const rooms = new Map<string, Room>();
  const calls: Call[] = [];
  const done: Array<{ step: string; atMs: number }> = [];
  let leaving = false;
  try {
    for (const step of steps) {
      if ('join' in step) {
        for (const name of step.join) {
          const room = new Room();
          rooms.set(name, room);
          const call: Call = { room: name, joinedMs: now() };
          calls.push(call);
          const agent = agentIn(room);
          await room.connect(need('LIVEKIT_URL'), await callerToken(name, `caller-${name}`, agentToDispatch), { autoSubscribe: false, dynacast: false });
          await publishSilentMic(room, () => leaving);
          const participant = await agent;
          call.agentMs = now();
          call.agent = participant.identity;
        }
        done.push({ step: `join ${step.join.join(',')}`, atMs: now() });
      } else if ('mark' in step) {
        if (!control) throw new Error('a mark step needs --control DIR');
        writeFileSync(join(control, `${step.mark}.json`), JSON.stringify({ calls, atMs: now() }));
        done.push({ step: `mark ${step.mark}`, atMs: now() });
        const go = join(control, `${step.mark}.go`);
        for (const deadline = Date.now() + 120_000; !existsSync(go); await sleep(100)) {
          if (Date.now() > deadline) throw new Error(`the test never wrote ${go}`);
        }
        done.push({ step: `go ${step.mark}`, atMs: now() });
      } else if ('sigterm' in step) {
        process.kill(step.sigterm, 'SIGTERM');
        done.push({ step: `sigterm ${step.sigterm}`, atMs: now() });
      } else {
        await sleep(step.holdMs);
        done.push({ step: `hold ${step.holdMs}`, atMs: now() });
      }
    }
    // A call is live only while its agent is still in the room.
    const missingAtEnd = calls.filter((c) => ![...(rooms.get(c.room)?.remoteParticipants.values() ?? [])].some((p) => p.identity === c.agent)).map((c) => c.room);
    return { t0Epoch: t0, rooms: calls, steps: done, missingAtEnd, leftEpoch: Date.now() };
  } catch (error) {
    return { ok: false, error: (error as Error).message, t0Epoch: t0, rooms: calls, steps: done };
  } finally {
    leaving = true;
    await Promise.all([...rooms.values()].map((room) => room.disconnect()));
  }
}, dispose);
