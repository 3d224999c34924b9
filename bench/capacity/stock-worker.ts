/**
 * Starts the stock worker (./stock-agent.ts) in a running stack, next to the firstword worker:
 * same namespace, same LiveKit server, same fakes, the same variables the stack gives its own
 * workers, its own agent name, health port and log. It is one of the stack's extra workers
 * (scripts/stack/stack.ts `startExtraWorker`), so `down` stops it like the others.
 */
import { join } from 'node:path';
import type { Started } from '../../scripts/stack/processes.js';
import { startExtraWorker } from '../../scripts/stack/stack.js';
import type { StackState } from '../../scripts/stack/state.js';

export const STOCK_AGENT = join('bench', 'capacity', 'stock-agent.ts');

export interface StockWorkerOptions {
  /** Process and log name; `worker-…` so `down` drains it like a worker. */
  name: string;
  agentName: string;
  httpPort: number;
  env?: Record<string, string>;
}

/** `onSpawn` hears the worker's pid at once, before it registers (its job processes start meanwhile). */
export function startStockWorker(state: StackState, options: StockWorkerOptions, onSpawn?: (pid: number) => void): Promise<Started> {
  return startExtraWorker(state, { ...options, tts: 'cartesia' }, { script: STOCK_AGENT, ...(onSpawn ? { onSpawn } : {}) });
}
