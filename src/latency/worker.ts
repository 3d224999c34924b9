/**
 * The turn budget as the LiveKit worker runs it: one log line per turn in every job process and,
 * with `METRICS_PORT`, a scrape endpoint in the main process fed by the job processes' pushes
 * (see metrics-server.ts for why the endpoint cannot live in the jobs).
 */
import { log, type tts, type voice } from '@livekit/agents';
import type { Room } from '@livekit/rtc-node';
import type { AppConfig, MetricsHost } from '../config/index.js';
import { LatencyMetrics, toTurnSample } from './metrics.js';
import { type MetricsServer, createTurnPusher, pushHostFor, startMetricsServer } from './metrics-server.js';
import { watchMediaPath } from './media-path.js';
import { type TurnBudget, type TurnBudgetOptions, attachTurnBudget } from './turn-budget.js';
import type { CallerFrames } from '../stt/shared-vad.js';
import { followCallerVoice } from './voice-arrival.js';

export interface JobTurnBudget {
  budget: TurnBudget;
  /** Sends what is still in flight; for the job's shutdown callbacks. */
  close(): Promise<void>;
}

/**
 * Job process: attach before `session.start()`. With `room`, the figures are on the caller's
 * clock: timed from when the caller's voice last reached the agent (`callerFrames`: what the
 * session hears), plus the room's legs.
 */
export function attachJobTurnBudget(
  session: voice.AgentSession,
  opts: { agent: voice.Agent; tts: tts.TTS; config: AppConfig; logger?: TurnBudgetOptions['logger']; room?: { room: Room; callerFrames: CallerFrames } },
): JobTurnBudget {
  const voiceTap = opts.room ? followCallerVoice(opts.room.callerFrames) : undefined;
  const path = opts.room ? watchMediaPath(opts.room.room) : undefined;
  const budget = attachTurnBudget(session, {
    agent: opts.agent,
    tts: opts.tts,
    ...(opts.logger !== undefined ? { logger: opts.logger } : {}),
    ...(voiceTap ? { voiceArrivals: voiceTap.arrivals } : {}),
    ...(path ? { mediaPath: path.estimator } : {}),
  });
  const closeBudget = (): void => {
    budget.close();
    voiceTap?.close();
    path?.close();
  };
  const { port, host } = opts.config.metrics;
  if (port === undefined) return { budget, close: async () => closeBudget() };
  const pusher = createTurnPusher({ port, host: pushHostFor(host) });
  budget.on('turn', (report) => pusher.push(toTurnSample(report)));
  return {
    budget,
    close: async () => {
      closeBudget();
      await pusher.close();
    },
  };
}

/** Main process: the scrape endpoint, or nothing when `METRICS_PORT` is unset. */
/** Who can read the metrics, said at start so an exposed endpoint is never a surprise. */
export function metricsReach(host: MetricsHost): string {
  return host === '0.0.0.0' || host === '::' ? 'every interface: anyone who reaches this host can read it (METRICS_HOST)' : 'loopback only (METRICS_HOST)';
}

export async function startWorkerMetrics(config: AppConfig): Promise<MetricsServer | undefined> {
  const { port, host } = config.metrics;
  if (port === undefined) return undefined;
  const server = await startMetricsServer({ port, host, metrics: new LatencyMetrics() });
  const reach = metricsReach(host);
  try {
    log().info({ url: `${server.url}/metrics`, reach }, 'turn metrics endpoint listening');
  } catch {
    // The CLI sets up logging on its own schedule; the endpoint does not wait for it.
    process.stderr.write(`turn metrics endpoint listening on ${server.url}/metrics (${reach})\n`);
  }
  return server;
}
