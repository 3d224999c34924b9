// Generated from devices.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function micView({ connected, starting, enabled, problem }: {
    connected: boolean;
    starting?: boolean;
    enabled: boolean;
    problem?: string | null;
}): MicView;
export function deviceOptions(devices: readonly DeviceLike[], activeId: string | null | undefined): DeviceList;
export function micErrorMessage(error: unknown, { secureContext }?: {
    secureContext?: boolean;
}): string;
export function renderMic(ui: {
    button: HTMLButtonElement;
    status: HTMLElement;
    error: HTMLElement;
}, view: MicView, problem: string | null): void;
export function renderDevices(select: HTMLSelectElement, list: DeviceList, how: {
    enabled: boolean;
    placeholder: string;
}): void;
export function createMicrophone(ui: MicUi, { listDevices, secureContext }: {
    listDevices(): Promise<readonly DeviceLike[]>;
    secureContext: boolean;
}): {
    readonly problem: string | null;
    readonly state: string;
    use(next: MicRoom | null): void;
    setConnected(isConnected: boolean): void;
    start: () => Promise<void>;
    fail: (error: unknown) => void;
    render: () => void;
    refreshDevices: () => Promise<void>;
};
export type MicState = "disconnected" | "starting" | "on" | "muted" | "unavailable";
export type MicView = {
    state: MicState;
    pressed: boolean;
    buttonDisabled: boolean;
    status: string;
};
export type DeviceLike = {
    deviceId: string;
    label: string;
    kind?: string;
    groupId?: string;
};
export type DeviceOption = {
    value: string;
    label: string;
};
export type DeviceList = {
    options: DeviceOption[];
    selected: string | null;
};
export type MicRoom = {
    localParticipant: {
        readonly isMicrophoneEnabled: boolean;
        setMicrophoneEnabled(enabled: boolean): Promise<unknown>;
    };
    getActiveDevice(kind: MediaDeviceKind): string | undefined;
    switchActiveDevice(kind: MediaDeviceKind, deviceId: string): Promise<boolean>;
};
export type MicUi = {
    button: HTMLButtonElement;
    select: HTMLSelectElement;
    status: HTMLElement;
    error: HTMLElement;
};
