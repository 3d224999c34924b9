/**
 * One agent per call (one-agent.ts), wired for src/agent.ts: the worker's request handler and the
 * job's watch on its room.
 */
import { AgentServer, type JobContext, type ServerOptions } from '@livekit/agents';
import { guardOneAgent } from './agent-guard.js';
import { type WorkerWithJobs, claimOfAccept, oneAgentPerRoom } from './one-agent.js';

export { SINCE_ATTRIBUTE, type AgentClaim, claimOf, outranks, yieldTo } from './one-agent.js';

type CapRequestFunc = Parameters<typeof oneAgentPerRoom>[0];

interface Logger {
  info(fields: Record<string, unknown>, msg: string): void;
}

/**
 * The worker's one request handler (`next`: the call cap's, if any) and the factory that lets it
 * see the worker's running jobs (`RunWorkerOptions.createServer`; without it, under the
 * framework's own CLI, nothing is declined and the jobs sort it out among themselves).
 */
export function oneAgentRequests(next: CapRequestFunc | undefined, logger: () => Logger) {
  let worker: WorkerWithJobs | undefined;
  return {
    requestFunc: oneAgentPerRoom(next, {
      worker: () => worker,
      onDecline: (fields) => logger().info(fields, 'this worker already runs the agent of that room: declining a second'),
    }),
    createServer: (options: ServerOptions) => {
      const server = new AgentServer(options);
      worker = server;
      return server;
    },
  };
}

/**
 * Leaves the call (ends the job) as soon as an agent of ours that outranks this one is in the
 * room: after a server restart, the call's own job, which has the conversation, comes back.
 */
export function keepOneAgentPerCall(ctx: JobContext<object>, logger: Logger): void {
  const stop = guardOneAgent(ctx.room, {
    self: claimOfAccept(ctx.info.acceptArguments),
    agentName: ctx.job.agentName,
    onYield: (senior) => {
      logger.info({ agent: ctx.info.acceptArguments.identity, stays: senior.identity }, 'an earlier agent of this call is in the room: leaving the call to it');
      ctx.shutdown('an earlier agent of this call is in the room');
    },
  });
  ctx.addShutdownCallback(async () => stop());
}
