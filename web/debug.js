// @ts-check
/**
 * The test hook, installed only when the page's URL has `?debug=1`:
 *
 *   window.__firstword = {
 *     room,          // the current livekit-client Room (undefined when not connected)
 *     stats(),       // Promise of the agent track's inbound-rtp audio stats, or null
 *     state(),       // what the page shows, as data (connection, agent, transcript, level…)
 *   }
 *
 * `inboundAudioStats` is pure.
 */

/**
 * @typedef {{
 *   packetsReceived: number,
 *   packetsLost: number,
 *   bytesReceived: number,
 *   totalAudioEnergy: number,
 *   totalSamplesDuration: number,
 *   audioLevel: number | null,
 *   jitter: number | null,
 *   concealedSamples: number,
 *   trackIdentifier: string | null,
 * }} InboundAudioStats
 * @typedef {{ forEach(callback: (value: any) => void): void }} StatsReportLike
 * @typedef {{ getRTCStatsReport(): Promise<StatsReportLike | undefined>, receiver?: { getStats(): Promise<StatsReportLike> } }} AudioTrackLike
 */

/** @param {unknown} value */
const count = (value) => (typeof value === 'number' ? value : 0);
/** @param {unknown} value */
const maybe = (value) => (typeof value === 'number' ? value : null);

/**
 * The inbound audio RTP entry of a stats report (`RTCStatsReport` or anything with `forEach`).
 * When there are several, the one that received the most packets.
 *
 * @param {StatsReportLike | undefined | null} report
 * @returns {InboundAudioStats | null}
 */
export function inboundAudioStats(report) {
  /** @type {Record<string, unknown> | null} */
  let best = null;
  report?.forEach((entry) => {
    if (entry?.type !== 'inbound-rtp' || (entry.kind ?? entry.mediaType) !== 'audio') return;
    if (!best || count(entry.packetsReceived) > count(best.packetsReceived)) best = entry;
  });
  if (!best) return null;
  const stats = /** @type {Record<string, unknown>} */ (best);
  return {
    packetsReceived: count(stats.packetsReceived),
    packetsLost: count(stats.packetsLost),
    bytesReceived: count(stats.bytesReceived),
    totalAudioEnergy: count(stats.totalAudioEnergy),
    totalSamplesDuration: count(stats.totalSamplesDuration),
    audioLevel: maybe(stats.audioLevel),
    jitter: maybe(stats.jitter),
    concealedSamples: count(stats.concealedSamples),
    trackIdentifier: typeof stats.trackIdentifier === 'string' ? stats.trackIdentifier : null,
  };
}

/**
 * @param {AudioTrackLike | null | undefined} track
 * @returns {Promise<InboundAudioStats | null>}
 */
export async function trackAudioStats(track) {
  if (!track) return null;
  const report = (await track.getRTCStatsReport()) ?? (await track.receiver?.getStats());
  return inboundAudioStats(report);
}

/**
 * @param {Window} win
 * @param {{ room(): unknown, agentTrack(): AudioTrackLike | null | undefined, state(): unknown }} page
 */
export function installDebugHook(win, page) {
  const hook = {
    get room() {
      return page.room();
    },
    stats: () => trackAudioStats(page.agentTrack()),
    state: () => page.state(),
  };
  Object.defineProperty(win, '__firstword', { value: hook, configurable: true });
  return hook;
}
