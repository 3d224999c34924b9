// Generated from level-meter.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function rms(samples: ArrayLike<number>): number;
export function displayLevel(value: number, floorDb?: number): number;
export function smoothLevel(previous: number, next: number, { attack, release }?: {
    attack?: number;
    release?: number;
}): number;
export function createLevelMeter(meter: HTMLMeterElement, win?: Window & typeof globalThis, hooks?: {
    onLevel?: (level: number) => void;
}): LevelMeter;
export const FLOOR_DB: -60;
export type LevelMeter = {
    prepare(): void;
    attach(track: MediaStreamTrack): void;
    detach(): void;
    readonly level: number;
    readonly peak: number;
    readonly attached: boolean;
    readonly contextState: AudioContextState | "none";
};
