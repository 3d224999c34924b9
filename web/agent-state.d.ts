// Generated from agent-state.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function isAgentParticipant(participant: ParticipantLike): boolean;
export function findAgent<P extends ParticipantLike>(participants: Iterable<P>): P | null;
export function agentView({ connection, agent, agentLeft, waitedOut }: AgentInputs): AgentView;
export function agentMissingMessage(agentName: string | null | undefined, waitedMs: number): string;
export function agentLeftMessage(identity: string, reasonName: string | undefined): string;
export function createAgentTracker<P extends ParticipantLike>({ agentName, timeoutMs, onChange, onAgent, timers }?: {
    agentName?: string | null;
    timeoutMs?: number;
    onChange?: () => void;
    onAgent?: (agent: P | null) => void;
    timers?: Timers;
}): {
    readonly agent: P | null;
    readonly view: AgentView;
    readonly problem: string | null;
    connection(next: Connection): void;
    joined(participants: Iterable<P>): void;
    seen: (participant: P) => void;
    left(participant: P, remaining: Iterable<P>, reasonName?: string): void;
    attributesChanged(participant: P): void;
};
export function renderAgentState(element: HTMLElement, view: AgentView): void;
export const AGENT_STATE_ATTRIBUTE: "lk.agent.state";
export const PUBLISH_ON_BEHALF_ATTRIBUTE: "lk.publish_on_behalf";
export const AGENT_JOIN_TIMEOUT_MS: 15000;
export type AgentTracker = ReturnType<typeof createAgentTracker>;
export type AgentStateName = "disconnected" | "connecting" | "not-joined" | "initializing" | "idle" | "listening" | "thinking" | "speaking" | "left" | "unknown";
export type Connection = "disconnected" | "connecting" | "connected" | "reconnecting";
export type ParticipantLike = {
    identity: string;
    isAgent: boolean;
    attributes: Readonly<Record<string, string>>;
};
export type AgentInputs = {
    connection: Connection;
    agent: ParticipantLike | null;
    agentLeft?: boolean;
    waitedOut?: boolean;
};
export type AgentView = {
    state: AgentStateName;
    label: string;
};
export type Timers = {
    set(callback: () => void, ms: number): unknown;
    clear(handle: unknown): void;
};
