/**
 * The job's side of "one agent per call" (one-agent.ts): watches the room for the other agents of
 * this worker's agent name and, the first time one of them outranks this job's agent, says so
 * once. Looked at on join, whenever a participant joins or its attributes change, and after every
 * reconnect (rtc-node rebuilds its participants then).
 */
import { type Room, RoomEvent } from '@livekit/rtc-node';
import { type AgentClaim, claimOf, yieldTo } from './one-agent.js';

export interface AgentGuardOptions {
  /** This job's agent (`claimOfAccept`). */
  self: AgentClaim;
  agentName: string;
  /** Called at most once, with the agent this one leaves the call to. */
  onYield: (senior: AgentClaim) => void;
}

/** Starts watching `room` (connected); returns the stop. */
export function guardOneAgent(room: Room, options: AgentGuardOptions): () => void {
  let done = false;
  const check = () => {
    if (done) return;
    const others = [...room.remoteParticipants.values()].flatMap((p) => claimOf(p, options.agentName) ?? []);
    const senior = yieldTo(options.self, others);
    if (!senior) return;
    done = true;
    options.onYield(senior);
  };
  const events = [RoomEvent.ParticipantConnected, RoomEvent.ParticipantAttributesChanged, RoomEvent.Reconnected] as const;
  for (const event of events) room.on(event, check);
  check();
  return () => {
    done = true;
    for (const event of events) room.off(event, check);
  };
}
