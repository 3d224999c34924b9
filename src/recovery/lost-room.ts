/**
 * A job whose connection to its room is lost for good (livekit-server restarted and the session
 * could not be resumed, say) is ended by the framework. Meanwhile the restarted server may have
 * offered the room to this worker again, which declined while this job was still listed
 * (src/rooms/one-agent.ts): the caller would be left alone. So the job hands its call over before
 * it ends: if a caller is still in the room, it takes its own agent out and dispatches a
 * resumption of itself with the history so far (the dispatch a dead job process gets, ./recover.ts).
 */
import type { JobContext } from '@livekit/agents';
import { DisconnectReason, RoomEvent } from '@livekit/rtc-node';
import { encodeResumeMetadata } from './dispatch-metadata.js';
import type { HistoryTurn } from './history.js';
import { askWorkerForRoom } from './hand-over-channel.js';
import { type HearingWatchOptions, type ListeningRoom, watchHearing } from './hearing-after-reconnect.js';
import { AGENT_KIND, type RecoveryApi, type RoomParticipant } from './recover.js';
import { type SpeakingRoom, type SpeakingWatchOptions, publishesAudio, watchSpeaking } from './speaking-after-reconnect.js';

/**
 * The ways an agent is out of a room on purpose (it left, or was put out: by recovery, an operator,
 * a second connection of its own): no hand-over. Every other end is checked with the server,
 * including the room closing: a call that ended normally lists no one then, and is left alone.
 */
const DELIBERATE = new Set<number>([DisconnectReason.CLIENT_INITIATED, DisconnectReason.DUPLICATE_IDENTITY, DisconnectReason.PARTICIPANT_REMOVED]);

export const isLostConnection = (reason: number | undefined): boolean => !DELIBERATE.has(reason ?? DisconnectReason.UNKNOWN_REASON);

export interface HandOver {
  room: string;
  jobId: string;
  /** The agent's identity (taken out of the room, where the server may still list it). */
  identity: string;
  agentName: string;
  /** The job's own dispatch metadata, passed on. */
  originalMetadata: string | undefined;
  history: () => readonly HistoryTurn[];
}

/** The job's logger, which names the job on every line. */
interface HandOverLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

export type HandOverOutcome = 'dispatched' | 'no caller' | 'another agent' | 'failed';

/** What the room holds for a hand-over: a caller, and no other agent of ours. */
export function handOverPlan(participants: readonly RoomParticipant[], self: string): 'dispatch' | 'no caller' | 'another agent' {
  const others = participants.filter((p) => p.identity !== self);
  if (others.some((p) => Number(p.kind) === AGENT_KIND)) return 'another agent';
  return others.length > 0 ? 'dispatch' : 'no caller';
}

export interface HandOverOptions {
  /** How long the server's API is retried. @defaultValue 10 s */
  patienceMs?: number;
  /** Resolves once the job's own worker has made room for the successor (false: it did not say so in time). */
  readyToServe?: () => Promise<boolean>;
}

/**
 * Hands the call over (see the top of this file). The server may still be coming back: its API is
 * retried for up to `patienceMs`. Never throws.
 */
export async function handOverCall(call: HandOver, api: RecoveryApi, logger: HandOverLogger, options: HandOverOptions = {}, why = 'it lost its room'): Promise<HandOverOutcome> {
  const deadline = Date.now() + (options.patienceMs ?? 10_000);
  let asked = false;
  let lastError = '';
  while (Date.now() < deadline) {
    try {
      const plan = handOverPlan(await api.listParticipants(call.room), call.identity);
      if (plan !== 'dispatch') {
        logger.info({ why: plan }, 'no call to hand over');
        return plan;
      }
      await api.removeParticipant(call.room, call.identity).catch(() => {}); // already gone
      if (options.readyToServe && !asked) {
        asked = true;
        if (!(await options.readyToServe())) logger.warn({}, 'the worker did not say it has room for the successor; dispatching it anyway (another worker may take it)');
      }
      const metadata = encodeResumeMetadata({ id: call.jobId, metadata: call.originalMetadata }, call.history(), why);
      const dispatch = await api.createDispatch(call.room, call.agentName, { metadata });
      logger.warn({ dispatch: dispatch.id, historyTurns: call.history().length, why }, 'lost the connection to the room; dispatched a new agent to carry on the call');
      return 'dispatched';
    } catch (error) {
      lastError = (error as Error).message;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  logger.warn({ error: lastError }, 'lost the connection to the room and could not hand the call over');
  return 'failed';
}

/** Two of the framework's 2.5 s load reports, and some: how long the job waits for its worker's room. */
const WORKER_ROOM_WAIT_MS = 7000;

/** The warning of a job whose room came back unable to hear its caller (./hearing-after-reconnect.ts). */
export const ROOM_BACK_DEAF = "the room came back but the caller's audio never reached the agent; handing the call over";

/** The warning of a job whose room came back with its own audio never reaching the server (./speaking-after-reconnect.ts). */
export const ROOM_BACK_MUTE = "the room came back but the server never received the agent's audio; handing the call over";

/** Whether a log line is a job handing its call over because its room came back broken. */
export const isBrokenRoomHandOver = (msg: unknown): boolean => msg === ROOM_BACK_DEAF || msg === ROOM_BACK_MUTE;

/** How long a room may stay reconnecting before the job takes it as lost (others came back in ~5 s). */
export const RECONNECT_PATIENCE_MS = 12_000;

/** What the watch needs of rtc-node's Room. */
export interface WatchedRoom extends ListeningRoom, SpeakingRoom {
  on(event: RoomEvent.Disconnected, listener: (reason?: number) => void): unknown;
  on(event: RoomEvent.Reconnecting | RoomEvent.Reconnected, listener: () => void): unknown;
  off(event: RoomEvent, listener: (...args: never[]) => void): unknown;
}

/**
 * Hands the call over when the room connection ends in a way the job did not choose, stays
 * reconnecting past `patienceMs` (after a server restart rtc-node may go on trying for a long time
 * while the room is without its agent), or comes back unable to hear its caller
 * (./hearing-after-reconnect.ts) or to be heard (./speaking-after-reconnect.ts); then `leave`
 * ends the job. `settled` resolves once any hand-over is done.
 */
export function watchForLostRoom(
  room: WatchedRoom,
  call: HandOver,
  api: RecoveryApi,
  logger: HandOverLogger,
  leave: (why: string) => void,
  options: HandOverOptions & { reconnectPatienceMs?: number; hearing?: HearingWatchOptions; speaking?: SpeakingWatchOptions } = {},
): { settled(): Promise<unknown>; stop(): void } {
  const patienceMs = options.reconnectPatienceMs ?? RECONNECT_PATIENCE_MS;
  let handingOver: Promise<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let hearing: { stop(): void } | undefined;
  let speaking: { stop(): void } | undefined;
  const handOver = (why: string) => (handingOver ??= handOverCall(call, api, logger, options, why));
  const onReconnecting = () => {
    hearing?.stop();
    speaking?.stop();
    timer ??= setTimeout(() => {
      logger.warn({ afterMs: patienceMs }, 'the room connection did not come back; handing the call over');
      void handOver('its room connection did not come back').then(() => leave('the room connection did not come back'));
    }, patienceMs);
  };
  const quiet = () => {
    clearTimeout(timer);
    timer = undefined;
    hearing?.stop();
    speaking?.stop();
  };
  /** The first watch to find the room broken hands the call over; the other one stops asking. */
  const cameBackBroken = (warning: string, fields: Record<string, unknown>, without: string) => {
    quiet();
    logger.warn(fields, warning);
    void handOver(`its room came back without ${without}`).then(() => leave(`the room came back without ${without}`));
  };
  const onReconnected = () => {
    quiet();
    hearing = watchHearing(room, (tracks) => cameBackBroken(ROOM_BACK_DEAF, { tracks }, "the caller's audio"), options.hearing);
    if (!publishesAudio(room)) return;
    speaking = watchSpeaking(api, call.room, call.identity, () => cameBackBroken(ROOM_BACK_MUTE, {}, "the agent's audio"), options.speaking);
  };
  const onDisconnected = (reason?: number) => {
    quiet();
    const named = DisconnectReason[reason ?? DisconnectReason.UNKNOWN_REASON] ?? reason;
    logger.info({ reason: named }, 'the room connection ended');
    if (isLostConnection(reason)) void handOver(`its room connection ended (${named})`);
  };
  room.on(RoomEvent.Reconnecting, onReconnecting);
  room.on(RoomEvent.Reconnected, onReconnected);
  room.on(RoomEvent.Disconnected, onDisconnected);
  return {
    settled: () => handingOver ?? Promise.resolve(),
    stop() {
      quiet();
      room.off(RoomEvent.Reconnecting, onReconnecting);
      room.off(RoomEvent.Reconnected, onReconnected);
      room.off(RoomEvent.Disconnected, onDisconnected);
    },
  };
}

/**
 * The job's watch (`watchForLostRoom`); its shutdown waits for a hand-over. Without server
 * credentials (`api` undefined) there is no one to ask: nothing is watched.
 */
export function handOverIfRoomLost(ctx: JobContext<object>, api: RecoveryApi | undefined, history: () => readonly HistoryTurn[], logger: HandOverLogger): void {
  const room = ctx.job.room?.name;
  if (!api || !room) return;
  const call = { room, jobId: ctx.job.id, identity: ctx.info.acceptArguments.identity, agentName: ctx.job.agentName, originalMetadata: ctx.job.metadata, history };
  // Its worker counts this job until it has left: asked first to stop, so it can take the successor.
  const watch = watchForLostRoom(ctx.room, call, api, logger, (why) => ctx.shutdown(why), { readyToServe: () => askWorkerForRoom(ctx.job.id, WORKER_ROOM_WAIT_MS) });
  ctx.addShutdownCallback(async () => {
    watch.stop();
    await watch.settled();
  });
}
