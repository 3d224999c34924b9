import type { EventEmitter } from 'node:events';
import { log } from '@livekit/agents';

/** `AgentServer.event` emits this once LiveKit has accepted the worker's registration. */
export const WORKER_REGISTERED_EVENT = 'worker_registered';

export type SendToParent = (message: 'ready') => void;

/** `process.send` when a parent listens on IPC (PM2 does), else nothing. */
export function parentChannel(): SendToParent | undefined {
  if (typeof process.send !== 'function' || !process.connected) return undefined;
  return (message) => {
    process.send?.(message);
  };
}

/**
 * Tells a process manager the worker is up only once it can take calls: PM2's
 * `wait_ready` holds the process in "launching" until `process.send('ready')`. Sent on
 * the first registration only; reconnects later are the worker's own business.
 * Returns a function that stops listening.
 */
export function signalReadyOnRegistration(
  events: Pick<EventEmitter, 'once' | 'off'>,
  send: SendToParent | undefined = parentChannel(),
): () => void {
  const onRegistered = (workerId: unknown) => {
    log().info({ workerId }, 'worker registered; ready for calls');
    send?.('ready');
  };
  events.once(WORKER_REGISTERED_EVENT, onRegistered);
  return () => events.off(WORKER_REGISTERED_EVENT, onRegistered);
}
