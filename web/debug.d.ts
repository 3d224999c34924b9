// Generated from debug.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function inboundAudioStats(report: StatsReportLike | undefined | null): InboundAudioStats | null;
export function trackAudioStats(track: AudioTrackLike | null | undefined): Promise<InboundAudioStats | null>;
export function installDebugHook(win: Window, page: {
    room(): unknown;
    agentTrack(): AudioTrackLike | null | undefined;
    state(): unknown;
}): {
    readonly room: unknown;
    stats: () => Promise<InboundAudioStats | null>;
    state: () => unknown;
};
export type InboundAudioStats = {
    packetsReceived: number;
    packetsLost: number;
    bytesReceived: number;
    totalAudioEnergy: number;
    totalSamplesDuration: number;
    audioLevel: number | null;
    jitter: number | null;
    concealedSamples: number;
    trackIdentifier: string | null;
};
export type StatsReportLike = {
    forEach(callback: (value: any) => void): void;
};
export type AudioTrackLike = {
    getRTCStatsReport(): Promise<StatsReportLike | undefined>;
    receiver?: {
        getStats(): Promise<StatsReportLike>;
    };
};
