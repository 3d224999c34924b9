/**
 * Rooms for browser callers, made by the page server before it hands out a token: the server
 * names the room, bounds it to one caller (agents do not count against LiveKit's
 * `maxParticipants`, so 1 admits exactly the caller and its agent), dispatches the agent for
 * that caller, and waits until a worker has taken the job. No worker taking it — every worker at
 * AGENT_MAX_CALLS or none running — is the "busy" answer: the room is deleted and the page is
 * told so, instead of a caller waiting in a room no agent will join.
 */
import { AgentDispatchClient, RoomAgentDispatch, RoomServiceClient } from 'livekit-server-sdk';

export interface RoomRequest {
  room: string;
  /** The only caller the agent will listen to (RoomIO's participant identity). */
  callerIdentity: string;
  /** How long the room waits for its caller before LiveKit closes it. */
  emptyTimeoutSeconds: number;
}

export type ProvisionResult = { ok: true } | { ok: false; busy: true };

export interface RoomProvisioner {
  /** Creates the room with its agent dispatched; busy when no worker takes the job in time. */
  provision(request: RoomRequest): Promise<ProvisionResult>;
  /** True while LiveKit still has the room (a caller coming back to it). */
  exists(room: string): Promise<boolean>;
}

/** Dispatch metadata the worker reads to know whom to talk to (src/agent.ts). */
export function dispatchMetadata(callerIdentity: string): string {
  return JSON.stringify({ caller: callerIdentity });
}

/** LiveKit's JobStatus.JS_FAILED. */
const JOB_FAILED = 3;

export interface LiveKitRoomOptions {
  /** http(s):// or ws(s):// address of the LiveKit server's API. */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** Unset: automatic dispatch (the worker joins every new room). */
  agentName?: string;
  /** How long a worker has to take the job. @defaultValue 10 s */
  assignTimeoutMs?: number;
  /** @defaultValue 150 ms */
  pollMs?: number;
}

export function liveKitRooms(options: LiveKitRoomOptions): RoomProvisioner {
  const rooms = new RoomServiceClient(options.url, options.apiKey, options.apiSecret);
  const dispatches = new AgentDispatchClient(options.url, options.apiKey, options.apiSecret);
  const assignTimeoutMs = options.assignTimeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 150;

  const assigned = async (room: string): Promise<boolean> => {
    const deadline = Date.now() + assignTimeoutMs;
    for (;;) {
      const list = await dispatches.listDispatch(room);
      const jobs = list.flatMap((dispatch) => dispatch.state?.jobs ?? []);
      if (jobs.some((job) => job.state?.status !== JOB_FAILED)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };

  return {
    async provision(request) {
      await rooms.createRoom({
        name: request.room,
        maxParticipants: 1,
        emptyTimeout: request.emptyTimeoutSeconds,
        departureTimeout: 20,
        // With no agent name the server's default dispatch (every worker) is created anyway.
        ...(options.agentName
          ? { agents: [new RoomAgentDispatch({ agentName: options.agentName, metadata: dispatchMetadata(request.callerIdentity) })] }
          : {}),
      });
      if (await assigned(request.room)) return { ok: true };
      await rooms.deleteRoom(request.room).catch(() => {});
      return { ok: false, busy: true };
    },
    async exists(room) {
      return (await rooms.listRooms([room])).length > 0;
    },
  };
}
