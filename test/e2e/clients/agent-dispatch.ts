/**
 * Joins a fresh `--room` with the project's join token — dispatching `--agent NAME` when given,
 * nothing otherwise — and watches who else joins. With `--expect agent` it returns once an
 * AGENT-kind participant is in the room and carries `lk.agent.state`; with `--expect none` it
 * watches for `--watch-ms` and reports everyone who joined meanwhile.
 * Prints `{"e2e":"agent-dispatch","ok":true,"participants":[…],…}`.
 */
import { type RemoteParticipant, Room, RoomEvent, dispose } from '@livekit/rtc-node';
import { AGENT_STATE, callerToken, isAgent, kindName } from './agent.js';
import { need, parseArgs, runClient } from './common.js';

const args = parseArgs();
const expect = args.expect ?? 'agent';
const watchMs = Number(args['watch-ms'] ?? 8000);
const timeoutMs = Number(args['timeout-ms'] ?? 45_000);
if (expect !== 'agent' && expect !== 'none') throw new Error('--expect agent|none');

interface Seen {
  identity: string;
  kind: string;
  joinedMs: number;
  attributes: Record<string, string>;
}

runClient('agent-dispatch', timeoutMs, async () => {
  const room = new Room();
  const t0 = Date.now();
  const seen = new Map<string, Seen>();
  let agentReady: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (agentReady = resolve));
  let stateMs: number | undefined;
  const look = (participant: RemoteParticipant) => {
    const entry = seen.get(participant.identity) ?? { identity: participant.identity, kind: kindName(participant.kind), joinedMs: Date.now() - t0, attributes: {} };
    entry.attributes = { ...participant.attributes };
    seen.set(participant.identity, entry);
    if (isAgent(participant) && participant.attributes[AGENT_STATE] !== undefined) {
      stateMs ??= Date.now() - t0;
      agentReady?.();
    }
  };
  room.on(RoomEvent.ParticipantConnected, look);
  room.on(RoomEvent.ParticipantAttributesChanged, (_changed, participant) => {
    if (participant !== room.localParticipant) look(participant as RemoteParticipant);
  });
  await room.connect(need('LIVEKIT_URL'), await callerToken(args.room!, args.identity ?? 'caller', args.agent), { autoSubscribe: false, dynacast: false });
  const connectedMs = Date.now() - t0;
  for (const participant of room.remoteParticipants.values()) look(participant);
  if (expect === 'agent') await ready;
  else await new Promise((resolve) => setTimeout(resolve, watchMs));
  const watchedMs = Date.now() - t0;
  await room.disconnect();
  return { room: args.room, connectedMs, stateMs, watchedMs, participants: [...seen.values()] };
}, dispose);
