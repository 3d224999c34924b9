/**
 * AGENT_MAX_CALLS as a hard cap. The load the worker reports (worker-load.ts: at least calls /
 * cap, full at 1) reaches LiveKit only every 2.5 s, so a burst of calls inside one interval would all be accepted; the
 * job request handler therefore also counts, and refuses a job beyond the cap itself. A refused
 * job goes to another worker, or to none: the page server then answers "busy" (src/web/rooms.ts).
 */
import type { JobRequest } from '@livekit/agents';

/** What the cap reads of `AgentServer`. */
export interface ServerWithJobs {
  readonly activeJobs: readonly { job: { id: string } }[];
}

export interface CallCapOptions {
  maxCalls: number;
  /** ms. @defaultValue Date.now */
  now?: () => number;
  /** How long an accepted job counts before it shows among the running ones. @defaultValue 30 s */
  reservationMs?: number;
  /** Told of each refused job. */
  onRefuse?: (fields: { jobId: string; calls: number; maxCalls: number }) => void;
}

export interface CallCap {
  /** `ServerOptions.loadFunc`: the share of the cap in use (also how the cap learns of the server). */
  loadFunc(server: ServerWithJobs): Promise<number>;
  /**
   * `ServerOptions.requestFunc`: accept while under the cap, else reject. A job that `replaces` one
   * whose process died (src/recovery) takes that job's place: the dead one, maybe still listed
   * for a moment, is not counted against it.
   */
  requestFunc(request: Pick<JobRequest, 'id' | 'accept' | 'reject'> & { replaces?: string }): Promise<void>;
  /** Calls counted now: running, plus accepted and not yet running, less the released. */
  calls(): number;
  /** Stops counting a running job that is handing its call to a successor (src/recovery/lost-room.ts). */
  release(jobId: string): void;
}

export function createCallCap(options: CallCapOptions): CallCap {
  const now = options.now ?? Date.now;
  const reservationMs = options.reservationMs ?? 30_000;
  const accepted = new Map<string, number>();
  const released = new Set<string>();
  let server: ServerWithJobs | undefined;

  const calls = (except?: string) => {
    const running = new Set((server?.activeJobs ?? []).map((info) => info.job.id));
    const t = now();
    for (const [id, at] of accepted) if (running.has(id) || t - at > reservationMs) accepted.delete(id);
    for (const id of released) if (!running.has(id)) released.delete(id);
    const uncounted = new Set([...released, ...(except !== undefined ? [except] : [])].filter((id) => running.has(id)));
    return running.size + accepted.size - uncounted.size;
  };

  return {
    async loadFunc(current) {
      server = current;
      return Math.min(1, calls() / options.maxCalls);
    },
    async requestFunc(request) {
      const counted = calls(request.replaces);
      if (counted >= options.maxCalls) {
        options.onRefuse?.({ jobId: request.id, calls: counted, maxCalls: options.maxCalls });
        await request.reject();
        return;
      }
      accepted.set(request.id, now());
      await request.accept();
    },
    calls: () => calls(),
    release: (jobId) => void released.add(jobId),
  };
}
