/**
 * The two legs of a room between the caller and the agent, estimated from the agent's own WebRTC
 * stats: the caller's voice needs one to reach the agent, the agent's voice the other to reach
 * the caller. The caller's clock is the agent's figures plus both.
 *
 * Each leg is one Opus packet (20 ms: a packet leaves once its last sample was captured), the
 * network through the SFU (its round trip, once: two hops of half a round trip each), and a
 * receiver's jitter buffer. Into the agent, the buffer is the agent's own, as it held audio
 * lately (`jitterBufferDelay` over `jitterBufferEmittedCount`, between two polls): it grows when
 * the agent's machine is busy. Out to the caller, the caller's buffer cannot be seen: it is taken
 * as the agent buffer's target (`jitterBufferTargetDelay`), what the same libwebrtc buffer aims
 * at for this network without the agent's load — a browser and rtc-node share it. The round trip
 * is the agent's own to the SFU: a caller farther from the SFU than the agent adds the difference,
 * so for remote callers the legs are a lower bound. (How close this came in rooms:
 * docs/latency.md.)
 */
import type { Room } from '@livekit/rtc-node';

export const OPUS_PACKET_MS = 20;
const POLL_MS = 5000;
/** Until the first estimate: a call's first turn comes a few seconds after its audio starts. */
const FIRST_POLL_MS = 1000;

export interface MediaPath {
  /** Caller's voice → the agent's input. */
  inputMs: number;
  /** The agent's output → the caller's ears. */
  outputMs: number;
  /** The agent's jitter buffer: what it held lately, and what it aims at. */
  jitterBufferMs: number;
  jitterBufferTargetMs: number;
  roundTripMs: number;
}

/** The fields of rtc-node's `getRtcStats()` entries this reads (`stats.case` / `stats.value`). */
interface StatsEntry {
  stats: { case?: string; value?: unknown };
}
interface InboundAudio {
  stream?: { kind?: string };
  inbound?: { jitterBufferDelay?: number; jitterBufferTargetDelay?: number; jitterBufferEmittedCount?: bigint | number };
}
interface CandidatePair {
  candidatePair?: { nominated?: boolean; currentRoundTripTime?: number };
}

interface JitterTotals {
  delaySeconds: number;
  targetSeconds: number;
  emitted: number;
}

function inboundAudioTotals(entries: StatsEntry[]): JitterTotals | undefined {
  let delaySeconds = 0;
  let targetSeconds = 0;
  let emitted = 0;
  for (const { stats } of entries) {
    if (stats.case !== 'inboundRtp') continue;
    const value = stats.value as InboundAudio;
    if (value.stream?.kind !== 'audio' || !value.inbound) continue;
    delaySeconds += value.inbound.jitterBufferDelay ?? 0;
    targetSeconds += value.inbound.jitterBufferTargetDelay ?? 0;
    emitted += Number(value.inbound.jitterBufferEmittedCount ?? 0);
  }
  return emitted > 0 ? { delaySeconds, targetSeconds, emitted } : undefined;
}

function roundTripSeconds(entries: StatsEntry[]): number | undefined {
  const trips = entries
    .filter(({ stats }) => stats.case === 'candidatePair')
    .map(({ stats }) => (stats.value as CandidatePair).candidatePair)
    .filter((pair) => pair?.nominated && typeof pair.currentRoundTripTime === 'number')
    .map((pair) => pair!.currentRoundTripTime!);
  return trips.length > 0 ? Math.max(...trips) : undefined;
}

/**
 * Folds successive stats snapshots into the current estimate. The jitter buffer is the mean over
 * the samples emitted since the previous snapshot (what the buffer holds now, not since the call
 * began); when nothing was emitted since, the previous figure stands.
 */
export class MediaPathEstimator {
  #previous: JitterTotals | undefined;
  #jitterBufferMs: number | undefined;
  #jitterBufferTargetMs: number | undefined;
  #roundTripMs: number | undefined;

  /** One snapshot: every entry of both peer connections (a single-PC session has them all in one). */
  update(entries: StatsEntry[]): void {
    const totals = inboundAudioTotals(entries);
    if (totals) {
      // A new track restarts the counters: measure it from zero.
      const previous = this.#previous && this.#previous.emitted <= totals.emitted ? this.#previous : { delaySeconds: 0, targetSeconds: 0, emitted: 0 };
      const emitted = totals.emitted - previous.emitted;
      // Totals summed over streams can step back when a stream ends: such a poll measures nothing.
      if (emitted > 0 && totals.delaySeconds >= previous.delaySeconds && totals.targetSeconds >= previous.targetSeconds) {
        this.#jitterBufferMs = ((totals.delaySeconds - previous.delaySeconds) / emitted) * 1000;
        this.#jitterBufferTargetMs = ((totals.targetSeconds - previous.targetSeconds) / emitted) * 1000;
      }
      this.#previous = totals;
    }
    const trip = roundTripSeconds(entries);
    if (trip !== undefined) this.#roundTripMs = trip * 1000;
  }

  /** Undefined until the agent has received audio (nothing to measure a buffer on). */
  current(): MediaPath | undefined {
    if (this.#jitterBufferMs === undefined || this.#jitterBufferTargetMs === undefined) return undefined;
    const roundTripMs = this.#roundTripMs ?? 0;
    return {
      inputMs: Math.round(OPUS_PACKET_MS + roundTripMs + this.#jitterBufferMs),
      outputMs: Math.round(OPUS_PACKET_MS + roundTripMs + this.#jitterBufferTargetMs),
      jitterBufferMs: Math.round(this.#jitterBufferMs),
      jitterBufferTargetMs: Math.round(this.#jitterBufferTargetMs),
      roundTripMs: Math.round(roundTripMs),
    };
  }
}

/** Polls the job room's stats every second until the first estimate, then every 5 s. */
export function watchMediaPath(room: Pick<Room, 'getRtcStats'>, estimator = new MediaPathEstimator()): { estimator: MediaPathEstimator; close(): void } {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async (): Promise<void> => {
    try {
      const stats = await room.getRtcStats();
      if (!closed) estimator.update([...stats.subscriberStats, ...stats.publisherStats] as unknown as StatsEntry[]);
    } catch {
      // Not connected (yet, or any more): keep the last estimate.
    }
    if (closed) return;
    timer = setTimeout(() => void poll(), estimator.current() ? POLL_MS : FIRST_POLL_MS);
    timer.unref();
  };
  void poll();
  return {
    estimator,
    close: () => {
      closed = true;
      clearTimeout(timer);
    },
  };
}
