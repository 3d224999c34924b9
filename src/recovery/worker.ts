/**
 * The worker's main process side of call recovery: watches its job processes and, when one dies
 * during a call, resumes the call on the LiveKit server (./recover.ts).
 */
import { log } from '@livekit/agents';
import { AgentDispatchClient, RoomServiceClient } from 'livekit-server-sdk';
import type { AppConfig } from '../config/index.js';
import { apiHost } from '../sip/setup.js';
import { watchHandOverRequests, watchJobProcessExits } from './job-exits.js';
import { type RecoveryApi, recoverFromExit } from './recover.js';

export function liveKitRecoveryApi(livekit: { url: string; apiKey: string; apiSecret: string }): RecoveryApi {
  const host = apiHost(livekit.url);
  const rooms = new RoomServiceClient(host, livekit.apiKey, livekit.apiSecret);
  const dispatches = new AgentDispatchClient(host, livekit.apiKey, livekit.apiSecret);
  return {
    listParticipants: (room) => rooms.listParticipants(room),
    removeParticipant: (room, identity) => rooms.removeParticipant(room, identity),
    createDispatch: (room, agentName, options) => dispatches.createDispatch(room, agentName, options),
  };
}

/** The server API recovery uses, or undefined without LiveKit credentials in the configuration. */
export function recoveryApiOf(config: Pick<AppConfig, 'livekit'>): RecoveryApi | undefined {
  const { url, apiKey, apiSecret } = config.livekit;
  return url && apiKey && apiSecret ? liveKitRecoveryApi({ url, apiKey, apiSecret }) : undefined;
}

/**
 * Starts watching. Without LiveKit credentials in the configuration (the framework's own
 * `--url`/`--api-key` flags) there is no server API to call: recovery is off, with one line
 * saying so. A framework whose internals moved turns it off the same way, never the worker.
 */
export interface WorkerRoom {
  /** Resolves once LiveKit may send this worker a new job (it last reported room for one), or false. */
  readyToServe(): Promise<boolean>;
  /** Stops counting a job handing its call over (the call cap). */
  release(jobId: string): void;
}

export function startJobRecovery(config: Pick<AppConfig, 'livekit' | 'agentName'>, room?: WorkerRoom): void {
  const api = recoveryApiOf(config);
  if (!api) {
    process.stderr.write('job recovery is off: LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET are needed to resume a call whose job process died\n');
    return;
  }
  watchJobProcessExits((exit) => {
    void recoverFromExit(exit, api, { agentName: config.agentName ?? '', logger: log(), ...(room ? { readyToServe: room.readyToServe } : {}) });
  }).catch((error: Error) => {
    process.stderr.write(`job recovery is off: ${error.message}\n`);
  });
  // A job that lost its room hands its call over itself (./lost-room.ts); it asks for room first.
  if (room) {
    void watchHandOverRequests((request) => {
      room.release(request.jobId);
      void room.readyToServe().then(() => request.ready());
    }).catch(() => {}); // said once above, by the exits' watch
  }
}
