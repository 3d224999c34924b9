import { describe, expect, it } from 'vitest';
import {
  AGENT_JOIN_TIMEOUT_MS,
  AGENT_STATE_ATTRIBUTE,
  type ParticipantLike,
  type Timers,
  agentLeftMessage,
  agentMissingMessage,
  agentView,
  createAgentTracker,
  findAgent,
  isAgentParticipant,
} from '../../web/agent-state.js';

const participant = (identity: string, isAgent: boolean, attributes: Record<string, string> = {}): ParticipantLike => ({
  identity,
  isAgent,
  attributes,
});
const agentIn = (state?: string) => participant('agent-1', true, state === undefined ? {} : { [AGENT_STATE_ATTRIBUTE]: state });

/** Timers the test fires by hand. */
function manualTimers() {
  const pending = new Map<number, { callback: () => void; ms: number }>();
  let next = 1;
  const timers: Timers = {
    set: (callback, ms) => (pending.set(next, { callback, ms }), next++),
    clear: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    pending,
    fireAll() {
      for (const [id, { callback }] of [...pending]) {
        pending.delete(id);
        callback();
      }
    },
  };
}

describe('agentView', () => {
  it('says "not connected" before joining, then connecting', () => {
    expect(agentView({ connection: 'disconnected', agent: null })).toEqual({ state: 'disconnected', label: 'not connected' });
    expect(agentView({ connection: 'connecting', agent: null })).toEqual({ state: 'connecting', label: 'connecting' });
    expect(agentView({ connection: 'reconnecting', agent: agentIn('speaking') })).toEqual({ state: 'connecting', label: 'reconnecting' });
  });

  it('says whether the agent has joined, and whether it left', () => {
    expect(agentView({ connection: 'connected', agent: null })).toEqual({ state: 'not-joined', label: 'not joined yet' });
    expect(agentView({ connection: 'connected', agent: null, waitedOut: true })).toEqual({ state: 'not-joined', label: 'has not joined' });
    expect(agentView({ connection: 'connected', agent: null, agentLeft: true })).toEqual({ state: 'left', label: 'left the room' });
  });

  it("maps the agent's lk.agent.state attribute", () => {
    expect(agentView({ connection: 'connected', agent: agentIn() }).state).toBe('initializing');
    expect(agentView({ connection: 'connected', agent: agentIn('') }).state).toBe('initializing');
    for (const state of ['initializing', 'idle', 'listening', 'thinking', 'speaking']) {
      expect(agentView({ connection: 'connected', agent: agentIn(state) })).toEqual({ state, label: state });
    }
    expect(agentView({ connection: 'connected', agent: agentIn('dreaming') })).toEqual({ state: 'unknown', label: 'unknown state "dreaming"' });
  });
});

describe('finding the agent', () => {
  it('knows an agent by its kind or by its state attribute', () => {
    expect(isAgentParticipant(participant('a', true))).toBe(true);
    expect(isAgentParticipant(participant('b', false, { [AGENT_STATE_ATTRIBUTE]: 'listening' }))).toBe(true);
    expect(isAgentParticipant(participant('c', false))).toBe(false);
  });

  it('prefers the agent to an avatar publishing on its behalf, and finds none among people', () => {
    const avatar = participant('avatar', true, { 'lk.publish_on_behalf': 'agent-1' });
    const agent = agentIn('listening');
    expect(findAgent([participant('bob', false), avatar, agent])).toBe(agent);
    expect(findAgent([participant('bob', false), avatar])).toBe(avatar);
    expect(findAgent([participant('bob', false)])).toBeNull();
  });
});

describe('messages', () => {
  it('asks whether the worker runs under the AGENT_NAME the token dispatches', () => {
    const message = agentMissingMessage('firstword', 15_000);
    expect(message).toMatch(/^The agent has not joined within 15 s: is the worker running/);
    expect(message).toContain('registered under AGENT_NAME "firstword"?');
  });

  it('explains automatic dispatch when the page server has no AGENT_NAME', () => {
    expect(agentMissingMessage(null, 15_000)).toContain('without AGENT_NAME?');
    expect(agentMissingMessage(null, 15_000)).toContain('automatic dispatch');
  });

  it('says when the agent left, with LiveKit’s reason when there is one', () => {
    expect(agentLeftMessage('agent-1', 'ROOM_DELETED')).toMatch(/^The agent "agent-1" left the room \(ROOM_DELETED\)\./);
    expect(agentLeftMessage('agent-1', 'UNKNOWN_REASON')).toMatch(/^The agent "agent-1" left the room\./);
  });
});

describe('agent tracker', () => {
  it('adopts an agent already in the room and shows its state changes', () => {
    const { timers, pending } = manualTimers();
    const agents: (ParticipantLike | null)[] = [];
    const tracker = createAgentTracker({ timers, onAgent: (a) => agents.push(a) });
    tracker.connection('connecting');
    expect(tracker.view.state).toBe('connecting');
    const agent = { ...agentIn('listening') };
    tracker.joined([participant('bob', false), agent]);
    expect(tracker.agent).toBe(agent);
    expect(agents).toEqual([agent]);
    expect(pending.size).toBe(0);
    expect(tracker.view).toEqual({ state: 'listening', label: 'listening' });
    agent.attributes = { [AGENT_STATE_ATTRIBUTE]: 'thinking' };
    tracker.attributesChanged(agent);
    expect(tracker.view.state).toBe('thinking');
    expect(tracker.problem).toBeNull();
  });

  it('says the agent is missing once the wait is over, and takes it back when it comes', () => {
    const { timers, pending, fireAll } = manualTimers();
    let changes = 0;
    const tracker = createAgentTracker({ agentName: 'firstword', timers, onChange: () => changes++ });
    tracker.connection('connected');
    tracker.joined([]);
    expect([...pending.values()].map((t) => t.ms)).toEqual([AGENT_JOIN_TIMEOUT_MS]);
    expect(tracker.view.label).toBe('not joined yet');
    expect(tracker.problem).toBeNull();

    const before = changes;
    fireAll();
    expect(changes).toBe(before + 1);
    expect(tracker.view).toEqual({ state: 'not-joined', label: 'has not joined' });
    expect(tracker.problem).toBe(agentMissingMessage('firstword', AGENT_JOIN_TIMEOUT_MS));

    tracker.seen(participant('bob', false));
    expect(tracker.agent).toBeNull();
    const late = agentIn();
    tracker.seen(late);
    expect(tracker.agent).toBe(late);
    expect(tracker.view.state).toBe('initializing');
    expect(tracker.problem).toBeNull();
  });

  it('stops waiting when the agent joins in time', () => {
    const { timers, pending } = manualTimers();
    const tracker = createAgentTracker({ timers, timeoutMs: 3000 });
    tracker.joined([]);
    expect([...pending.values()].map((t) => t.ms)).toEqual([3000]);
    tracker.seen(agentIn());
    expect(pending.size).toBe(0);
  });

  it('adopts a participant that announces itself with lk.agent.state', () => {
    const tracker = createAgentTracker({ timers: manualTimers().timers });
    tracker.joined([]);
    const announced = participant('worker', false, { [AGENT_STATE_ATTRIBUTE]: 'listening' });
    tracker.attributesChanged(announced);
    expect(tracker.agent).toBe(announced);
  });

  it('says when the agent leaves, or follows another agent still in the room', () => {
    const agents: (ParticipantLike | null)[] = [];
    const tracker = createAgentTracker({ timers: manualTimers().timers, onAgent: (a) => agents.push(a) });
    const first = agentIn('speaking');
    const second = participant('agent-2', true, { [AGENT_STATE_ATTRIBUTE]: 'listening' });
    tracker.joined([first, second]);
    tracker.left(participant('bob', false), [first, second]);
    expect(tracker.agent).toBe(first);
    tracker.left(first, [first, second]);
    expect(tracker.agent).toBe(second);
    tracker.left(second, [], 'CLIENT_INITIATED');
    expect(tracker.agent).toBeNull();
    expect(tracker.view).toEqual({ state: 'left', label: 'left the room' });
    expect(tracker.problem).toBe(agentLeftMessage('agent-2', 'CLIENT_INITIATED'));
    expect(agents).toEqual([first, second, null]);
  });

  it('forgets the agent and its wait when disconnected', () => {
    const { timers, pending } = manualTimers();
    const tracker = createAgentTracker({ timers });
    tracker.joined([]);
    tracker.connection('disconnected');
    expect(pending.size).toBe(0);
    expect(tracker.view).toEqual({ state: 'disconnected', label: 'not connected' });
    expect(tracker.problem).toBeNull();
  });
});
