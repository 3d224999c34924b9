import { describe, expect, it } from 'vitest';
import { inboundAudioStats, installDebugHook, trackAudioStats } from '../../web/debug.js';

const report = (...entries: Record<string, unknown>[]) => new Map(entries.map((entry, i) => [String(entry.id ?? i), entry]));

describe('inbound audio stats', () => {
  it("picks the agent track's inbound-rtp audio entry", () => {
    const stats = inboundAudioStats(
      report(
        { type: 'outbound-rtp', kind: 'audio', packetsSent: 10 },
        { type: 'inbound-rtp', kind: 'video', packetsReceived: 900 },
        { type: 'codec', mimeType: 'audio/opus' },
        {
          type: 'inbound-rtp',
          kind: 'audio',
          packetsReceived: 250,
          packetsLost: 2,
          bytesReceived: 20_000,
          totalAudioEnergy: 0.75,
          totalSamplesDuration: 5,
          audioLevel: 0.12,
          jitter: 0.003,
          concealedSamples: 480,
          trackIdentifier: 'TR_agent',
        },
      ),
    );
    expect(stats).toEqual({
      packetsReceived: 250,
      packetsLost: 2,
      bytesReceived: 20_000,
      totalAudioEnergy: 0.75,
      totalSamplesDuration: 5,
      audioLevel: 0.12,
      jitter: 0.003,
      concealedSamples: 480,
      trackIdentifier: 'TR_agent',
    });
  });

  it('takes the busiest of several, reads mediaType, and fills missing counters with 0', () => {
    const stats = inboundAudioStats(
      report({ type: 'inbound-rtp', kind: 'audio', packetsReceived: 3 }, { type: 'inbound-rtp', mediaType: 'audio', packetsReceived: 7 }),
    );
    expect(stats).toMatchObject({ packetsReceived: 7, totalAudioEnergy: 0, audioLevel: null, trackIdentifier: null });
  });

  it('is null without an inbound audio entry', () => {
    expect(inboundAudioStats(report({ type: 'transport' }))).toBeNull();
    expect(inboundAudioStats(undefined)).toBeNull();
  });

  it("asks the track, falling back to its receiver's getStats()", async () => {
    const entry = { type: 'inbound-rtp', kind: 'audio', packetsReceived: 5 };
    expect(await trackAudioStats({ getRTCStatsReport: async () => report(entry) })).toMatchObject({ packetsReceived: 5 });
    const receiver = { getStats: async () => report({ ...entry, packetsReceived: 9 }) };
    expect(await trackAudioStats({ getRTCStatsReport: async () => undefined, receiver })).toMatchObject({ packetsReceived: 9 });
    expect(await trackAudioStats(null)).toBeNull();
  });
});

describe('debug hook', () => {
  it('exposes the current room, the stats and the page state on window.__firstword', async () => {
    // the root tsconfig has no DOM library: a plain object stands in for the window
    const win: { __firstword?: { room: unknown; stats(): Promise<unknown>; state(): unknown } } = {};
    let room: unknown = 'first room';
    installDebugHook(win as Parameters<typeof installDebugHook>[0], {
      room: () => room,
      agentTrack: () => ({ getRTCStatsReport: async () => report({ type: 'inbound-rtp', kind: 'audio', packetsReceived: 1 }) }),
      state: () => ({ connection: 'connected' }),
    });
    expect(win.__firstword!.room).toBe('first room');
    room = 'second room';
    expect(win.__firstword!.room).toBe('second room');
    expect(await win.__firstword!.stats()).toMatchObject({ packetsReceived: 1 });
    expect(win.__firstword!.state()).toEqual({ connection: 'connected' });
  });
});
