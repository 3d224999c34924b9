/**
 * One agent per call. When livekit-server restarts mid-call, the caller's rejoin recreates the
 * room and the server dispatches a NEW job to it, while the call's own job (which holds the
 * conversation) reconnects through rtc-node: two agents in one room, both answering. Which one
 * stays is decided here, the same way in every job and on every worker:
 *
 * - every agent of ours carries, from its join on, when its job was accepted (`SINCE_ATTRIBUTE`,
 *   set through the accept, so it is there the moment the participant appears);
 * - the agent accepted first stays (ties: the smaller identity); any other agent of ours leaves as
 *   soon as it sees it. An agent that never sees an older one stays: when the call's own job does
 *   not come back, the new one carries on.
 *
 * Also here: the worker declines a job for a room where it already runs a live job (the same
 * restart seen from the one worker that serves the call), so no second agent even starts.
 */
import type { JobRequest } from '@livekit/agents';
import { readDispatchMetadata } from '../recovery/dispatch-metadata.js';

/** When the agent's job was accepted (epoch ms, decimal), on its participant from the join on. */
export const SINCE_ATTRIBUTE = 'firstword.agent.since';
/** Stamped on every agent participant by the framework: the worker's agent name. */
export const AGENT_NAME_ATTRIBUTE = 'lk.agent.name';

/** An agent's claim to the call. */
export interface AgentClaim {
  identity: string;
  /** Epoch ms its job was accepted; Infinity when unknown (it then yields to any agent that knows). */
  since: number;
}

/** What the rule reads of a participant. */
export interface ParticipantLike {
  identity: string;
  attributes: Readonly<Record<string, string>>;
}

/** The claim of an agent participant of `agentName`; undefined for anyone else. */
export function claimOf(participant: ParticipantLike, agentName: string): AgentClaim | undefined {
  if (participant.attributes[AGENT_NAME_ATTRIBUTE] !== agentName) return undefined;
  const raw = participant.attributes[SINCE_ATTRIBUTE];
  const since = raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : Infinity;
  return { identity: participant.identity, since };
}

/**
 * This job's own claim, from its accept (the job process gets the accept's arguments): without
 * the stamp (an accept made elsewhere) it yields to any agent that has one.
 */
export function claimOfAccept(accept: { identity: string; attributes?: Readonly<Record<string, string>> }): AgentClaim {
  return claimOf({ identity: accept.identity, attributes: { ...accept.attributes, [AGENT_NAME_ATTRIBUTE]: '' } }, '')!;
}

/** True when `a` stays over `b`: accepted earlier, or at the same time with the smaller identity. */
export function outranks(a: AgentClaim, b: AgentClaim): boolean {
  if (a.since !== b.since) return a.since < b.since;
  return a.identity < b.identity;
}

/** The agent `self` must leave the call to, or undefined when `self` stays. */
export function yieldTo(self: AgentClaim, others: readonly AgentClaim[]): AgentClaim | undefined {
  let senior: AgentClaim | undefined;
  for (const other of others) {
    if (other.identity === self.identity || !outranks(other, self)) continue;
    if (!senior || outranks(other, senior)) senior = other;
  }
  return senior;
}

/** What the request handler reads of the worker: its running jobs and their rooms. */
export interface WorkerWithJobs {
  readonly activeJobs: readonly { job: { id: string; room?: { name: string } } }[];
}

type Request = Pick<JobRequest, 'id' | 'accept' | 'reject'> & { readonly room?: { name: string }; readonly job?: { metadata?: string } };
type RequestFunc = (request: Pick<JobRequest, 'id' | 'accept' | 'reject'> & { replaces?: string }) => Promise<void>;

export interface OneAgentOptions {
  /** The worker, once it exists (the request handler is built before it). */
  worker: () => WorkerWithJobs | undefined;
  /** ms. @defaultValue Date.now */
  now?: () => number;
  /** Told of each declined job. */
  onDecline?: (fields: { jobId: string; runningJob: string }) => void;
}

/**
 * The worker's one request handler: declines a job for a room this worker already serves, else
 * hands the request to `next` (the call cap, or a plain accept) with an accept that stamps
 * `SINCE_ATTRIBUTE`.
 */
export function oneAgentPerRoom(next: RequestFunc | undefined, options: OneAgentOptions): (request: Request) => Promise<void> {
  const now = options.now ?? Date.now;
  return async (request) => {
    const room = request.room?.name;
    // A resumption (src/recovery) takes over from a job whose process died: that job may still be
    // listed as running for a moment, and must not count as the room's agent.
    const replaces = readDispatchMetadata(request.job?.metadata).resume?.resumeOf;
    const running = room
      ? options.worker()?.activeJobs.find((info) => info.job.room?.name === room && info.job.id !== request.id && info.job.id !== replaces)
      : undefined;
    if (running) {
      options.onDecline?.({ jobId: request.id, runningJob: running.job.id });
      await request.reject();
      return;
    }
    const stamped = {
      id: request.id,
      ...(replaces !== undefined ? { replaces } : {}),
      reject: () => request.reject(),
      accept: () => request.accept('', '', '', { [SINCE_ATTRIBUTE]: String(now()) }),
    };
    await (next ?? ((r: typeof stamped) => r.accept()))(stamped);
  };
}
