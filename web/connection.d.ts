// Generated from connection.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function readPageOptions(search: string, defaultAgentTimeoutMs: number): PageOptions;
export function errorText(error: unknown): string;
export function readAccessToken(hash: string): string | null;
export function fetchToken(name: string | null, { accessToken, fetchImpl }?: {
    accessToken?: string | null;
    fetchImpl?: typeof fetch;
}): Promise<Grant>;
export function connectFailureMessage(error: unknown, url: string): string;
export function disconnectMessage(reasonName: string | undefined, identity: string): string | null;
export class TokenRefused extends Error {
    constructor(message: string, kind: RefusalKind);
    kind: RefusalKind;
}
export type PageOptions = {
    name: string | null;
    autoconnect: boolean;
    debug: boolean;
    agentTimeoutMs: number;
};
export type Grant = {
    token: string;
    url: string;
    agentName: string | null;
};
export type RefusalKind = "busy" | "unauthorized" | "rate_limited" | "other";
