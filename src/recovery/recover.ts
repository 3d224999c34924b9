/**
 * What the worker's main process does when a job process dies during a call: say so in one error
 * line, take the dead agent out of the room (LiveKit would keep it there until its ~20 s
 * timeout, and the caller would hear nothing meanwhile), and dispatch a new agent to the same
 * room with the history the dead one left in its attributes (./history.ts).
 *
 * The dead agent goes first: a handler that keeps one agent per room then sees none to clash with.
 */
import { maskIdentity } from '../sip/call.js';
import { encodeResumeMetadata } from './dispatch-metadata.js';
import { HISTORY_ATTRIBUTE, type HistoryTurn, decodeHistory } from './history.js';
import { type JobProcessExit, classifyExit } from './job-exits.js';

/** LiveKit's ParticipantInfo.Kind.AGENT. */
export const AGENT_KIND = 4;

export interface RoomParticipant {
  identity: string;
  kind: number;
  attributes: Record<string, string>;
  /** The tracks the server has received media for (TrackInfo.type: 0 audio, 1 video). */
  tracks?: ReadonlyArray<{ type: number }>;
}

/** The parts of livekit-server-sdk's RoomServiceClient and AgentDispatchClient used here. */
export interface RecoveryApi {
  listParticipants(room: string): Promise<RoomParticipant[]>;
  removeParticipant(room: string, identity: string): Promise<void>;
  createDispatch(room: string, agentName: string, options: { metadata: string }): Promise<{ id: string }>;
}

export interface RecoveryLogger {
  error(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
  info(fields: Record<string, unknown>, msg: string): void;
}

export type RecoveryPlan =
  | { action: 'none'; why: string }
  | { action: 'remove'; why: string }
  | { action: 'resume'; history: HistoryTurn[]; historyError?: string };

/**
 * Whether there is a call to resume. The dead agent gone from the room means its job had already
 * left the call (it ended, and then its process did); no caller left means no one to talk to,
 * though the dead agent is still taken out.
 */
export function planRecovery(participants: readonly RoomParticipant[], deadAgent: string): RecoveryPlan {
  const dead = participants.find((p) => p.identity === deadAgent);
  if (!dead) return { action: 'none', why: 'the agent had already left the room' };
  if (!participants.some((p) => p.kind !== AGENT_KIND)) return { action: 'remove', why: 'no caller left in the room' };
  const history = decodeHistory(dead.attributes[HISTORY_ATTRIBUTE]);
  return history.ok ? { action: 'resume', history: history.value } : { action: 'resume', history: [], historyError: history.error };
}

export interface RecoveryOutcome {
  plan: RecoveryPlan['action'] | 'failed';
  dispatchId?: string;
}

/**
 * Handles one job process's exit; a normal end (exit code 0) is left alone. The error line waits
 * for one look at the room: a process that died after its agent had left (killed while shutting
 * down, say) ended no call, and gets a warning instead. Never throws: a failed step is logged and
 * the rest skipped.
 */
export interface RecoveryOptions {
  agentName: string;
  logger: RecoveryLogger;
  /**
   * Resolves once LiveKit may send this worker the new job (true), or false when it waited in vain:
   * a worker that last reported itself full gets no dispatch (src/lifecycle/load-reports.ts).
   */
  readyToServe?: () => Promise<boolean>;
}

export async function recoverFromExit(exit: JobProcessExit, api: RecoveryApi, options: RecoveryOptions): Promise<RecoveryOutcome | undefined> {
  const { unexpected, how } = classifyExit(exit.code, exit.signal);
  if (!unexpected) return undefined;
  const { logger } = options;
  const roomName = exit.info.job.room?.name;
  const fields = { room: roomName ? maskIdentity(roomName) : null, job: exit.info.job.id, jobPid: exit.pid ?? null, code: exit.code, signal: exit.signal };
  const deadAgent = exit.info.acceptArguments.identity;
  const died = () => logger.error(fields, `job process died during a call (${how})`);
  const failed = (error: unknown): RecoveryOutcome => {
    logger.warn({ room: fields.room, job: fields.job, error: (error as Error).message }, 'could not resume the call');
    return { plan: 'failed' };
  };
  let plan: RecoveryPlan;
  try {
    plan = roomName ? planRecovery(await api.listParticipants(roomName), deadAgent) : { action: 'none', why: 'the job had no room' };
  } catch (error) {
    died();
    return failed(error);
  }
  if (plan.action === 'none') {
    logger.warn({ ...fields, why: plan.why }, `job process ended abnormally after its call (${how})`);
    return { plan: 'none' };
  }
  died();
  try {
    await api.removeParticipant(roomName!, deadAgent);
    if (plan.action === 'remove') {
      logger.info({ room: fields.room, job: fields.job, why: plan.why }, 'removed the dead agent; no call to resume');
      return { plan: 'remove' };
    }
    if (plan.historyError) logger.warn({ room: fields.room, job: fields.job, error: plan.historyError }, 'the dead agent left no readable history; resuming without it');
    const metadata = encodeResumeMetadata({ id: exit.info.job.id, metadata: exit.info.job.metadata }, plan.history, 'its job process died');
    if (options.readyToServe && !(await options.readyToServe())) {
      logger.warn({ room: fields.room, job: fields.job }, 'LiveKit still takes this worker as full; dispatching the resumed call anyway (another worker may take it)');
    }
    const dispatch = await api.createDispatch(roomName!, options.agentName, { metadata });
    logger.info({ room: fields.room, job: fields.job, dispatch: dispatch.id, historyTurns: plan.history.length }, 'dispatched a new agent to resume the call');
    return { plan: 'resume', dispatchId: dispatch.id };
  } catch (error) {
    return failed(error);
  }
}
