// @ts-check
/**
 * What the agent is doing, as the page shows it. The agent framework publishes its state in the
 * agent participant's `lk.agent.state` attribute ("initializing", "listening", "thinking",
 * "speaking"; "idle" in some versions); before and around that, the page knows whether it is
 * connected and whether an agent has joined at all.
 *
 * `data-agent-state` values (for tests reading the page over CDP):
 *   disconnected | connecting | not-joined | initializing | idle | listening | thinking |
 *   speaking | left | unknown
 *
 * Everything but `renderAgentState` is pure.
 */

export const AGENT_STATE_ATTRIBUTE = 'lk.agent.state';
/** Set by avatar workers, which publish the agent's audio on its behalf. */
export const PUBLISH_ON_BEHALF_ATTRIBUTE = 'lk.publish_on_behalf';
/** How long to wait for an agent after joining before saying it is missing. */
export const AGENT_JOIN_TIMEOUT_MS = 15_000;

/**
 * @typedef {'disconnected' | 'connecting' | 'not-joined' | 'initializing' | 'idle' | 'listening'
 *   | 'thinking' | 'speaking' | 'left' | 'unknown'} AgentStateName
 * @typedef {'disconnected' | 'connecting' | 'connected' | 'reconnecting'} Connection
 * @typedef {{ identity: string, isAgent: boolean, attributes: Readonly<Record<string, string>> }} ParticipantLike
 * @typedef {{
 *   connection: Connection,
 *   agent: ParticipantLike | null,
 *   agentLeft?: boolean,
 *   waitedOut?: boolean,
 * }} AgentInputs
 * @typedef {{ state: AgentStateName, label: string }} AgentView
 */

/** @type {ReadonlySet<string>} */
const KNOWN_STATES = new Set(['initializing', 'idle', 'listening', 'thinking', 'speaking']);

/**
 * Whether a participant is the agent: LiveKit marks agent workers with kind AGENT (`isAgent`);
 * a participant publishing `lk.agent.state` is one too, whatever the server says its kind is.
 *
 * @param {ParticipantLike} participant
 */
export function isAgentParticipant(participant) {
  return participant.isAgent || participant.attributes[AGENT_STATE_ATTRIBUTE] !== undefined;
}

/**
 * The agent among the room's remote participants: the first one whose state we can show,
 * preferring the agent itself over an avatar publishing on its behalf.
 *
 * @template {ParticipantLike} P
 * @param {Iterable<P>} participants
 * @returns {P | null}
 */
export function findAgent(participants) {
  /** @type {P | null} */
  let avatar = null;
  for (const participant of participants) {
    if (!isAgentParticipant(participant)) continue;
    if (participant.attributes[PUBLISH_ON_BEHALF_ATTRIBUTE]) avatar ??= participant;
    else return participant;
  }
  return avatar;
}

/**
 * @param {AgentInputs} inputs
 * @returns {AgentView}
 */
export function agentView({ connection, agent, agentLeft = false, waitedOut = false }) {
  if (connection === 'disconnected') return { state: 'disconnected', label: 'not connected' };
  if (connection === 'connecting') return { state: 'connecting', label: 'connecting' };
  if (connection === 'reconnecting') return { state: 'connecting', label: 'reconnecting' };
  if (!agent) {
    if (agentLeft) return { state: 'left', label: 'left the room' };
    return { state: 'not-joined', label: waitedOut ? 'has not joined' : 'not joined yet' };
  }
  const value = agent.attributes[AGENT_STATE_ATTRIBUTE];
  if (value === undefined || value === '') return { state: 'initializing', label: 'initializing' };
  if (KNOWN_STATES.has(value)) return { state: /** @type {AgentStateName} */ (value), label: value };
  return { state: 'unknown', label: `unknown state "${value}"` };
}

/**
 * The message shown when no agent joined in time.
 *
 * @param {string | null | undefined} agentName the name the page's token dispatches (null: automatic dispatch)
 * @param {number} waitedMs
 */
export function agentMissingMessage(agentName, waitedMs) {
  const seconds = Math.round(waitedMs / 1000);
  if (agentName) {
    return (
      `The agent has not joined within ${seconds} s: is the worker running (npm run dev) and registered ` +
      `under AGENT_NAME "${agentName}"? This page's token dispatches the agent named "${agentName}"; ` +
      'a worker with another AGENT_NAME, or none, does not join.'
    );
  }
  return (
    `The agent has not joined within ${seconds} s: is the worker running (npm run dev) and registered ` +
    'without AGENT_NAME? This page\'s server has no AGENT_NAME, so it relies on automatic dispatch, ' +
    'which only sends workers that have no AGENT_NAME either.'
  );
}

/**
 * @param {string} identity
 * @param {string | undefined} reasonName a `DisconnectReason` name, if LiveKit gave one
 */
export function agentLeftMessage(identity, reasonName) {
  const why = reasonName && reasonName !== 'UNKNOWN_REASON' ? ` (${reasonName})` : '';
  return `The agent "${identity}" left the room${why}. Disconnect and connect again to start a new conversation.`;
}

/**
 * @typedef {{ set(callback: () => void, ms: number): unknown, clear(handle: unknown): void }} Timers
 */

/** @type {Timers} */
const realTimers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(/** @type {ReturnType<typeof setTimeout>} */ (handle)),
};

/**
 * Follows the agent through one connection: which participant it is, whether it joined in
 * time, whether it left. No DOM and no livekit-client: the page feeds it room events and
 * renders `view` and `problem` when `onChange` fires.
 *
 * @template {ParticipantLike} P
 * @param {{
 *   agentName?: string | null,
 *   timeoutMs?: number,
 *   onChange?: () => void,
 *   onAgent?: (agent: P | null) => void,
 *   timers?: Timers,
 * }} [options]
 */
export function createAgentTracker({ agentName = null, timeoutMs = AGENT_JOIN_TIMEOUT_MS, onChange = () => {}, onAgent = () => {}, timers = realTimers } = {}) {
  /** @type {Connection} */
  let connection = 'disconnected';
  /** @type {P | null} */
  let agent = null;
  let agentLeft = false;
  let waitedOut = false;
  /** @type {string | null} */
  let leftMessage = null;
  /** @type {unknown} */
  let timer = null;

  const stopTimer = () => {
    if (timer !== null) timers.clear(timer);
    timer = null;
  };
  /** @param {P | null} next */
  const setAgent = (next) => {
    if (next === agent) return;
    agent = next;
    if (next) {
      agentLeft = false;
      leftMessage = null;
      stopTimer();
    }
    onAgent(next);
  };
  /** @param {P} participant */
  const seen = (participant) => {
    if (agent || !isAgentParticipant(participant)) return;
    setAgent(participant);
    onChange();
  };

  return {
    get agent() {
      return agent;
    },
    get view() {
      return agentView({ connection, agent, agentLeft, waitedOut });
    },
    /** Why there is no agent, once that is worth saying (it did not join in time, or left). */
    get problem() {
      if (agent || connection === 'disconnected') return null;
      if (leftMessage) return leftMessage;
      return waitedOut ? agentMissingMessage(agentName, timeoutMs) : null;
    },

    /** @param {Connection} next */
    connection(next) {
      connection = next;
      if (next === 'disconnected') {
        stopTimer();
        setAgent(null);
      }
      onChange();
    },

    /**
     * The room was joined: adopt an agent already there or start the wait for one.
     *
     * @param {Iterable<P>} participants
     */
    joined(participants) {
      connection = 'connected';
      const found = findAgent(participants);
      if (found) setAgent(found);
      else if (!agent && timer === null) {
        timer = timers.set(() => {
          timer = null;
          if (agent) return;
          waitedOut = true;
          onChange();
        }, timeoutMs);
      }
      onChange();
    },

    /** A remote participant joined. */
    seen,

    /**
     * @param {P} participant
     * @param {Iterable<P>} remaining the room's remote participants now
     * @param {string} [reasonName]
     */
    left(participant, remaining, reasonName) {
      if (participant !== agent) return;
      const next = findAgent([...remaining].filter((p) => p !== participant));
      if (next) {
        setAgent(next);
      } else {
        setAgent(null);
        agentLeft = true;
        leftMessage = agentLeftMessage(participant.identity, reasonName);
      }
      onChange();
    },

    /**
     * A remote participant's attributes changed: the agent's state, or a participant announcing
     * itself as the agent with its first `lk.agent.state`.
     *
     * @param {P} participant
     */
    attributesChanged(participant) {
      if (participant === agent) onChange();
      else seen(participant);
    },
  };
}

/** @typedef {ReturnType<typeof createAgentTracker>} AgentTracker */

/**
 * @param {HTMLElement} element
 * @param {AgentView} view
 */
export function renderAgentState(element, view) {
  element.dataset.agentState = view.state;
  element.textContent = view.label;
}
