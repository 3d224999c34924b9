/**
 * Starts the stock worker (./stock-agent.ts) in a running stack, next to the firstword worker:
 * same namespace, same LiveKit server, same fakes, the same variables the stack gives its own
 * workers, its own agent name, health port and log; the framework as npm ships it
 * (./pristine-framework.ts). It is one of the stack's extra workers (scripts/stack/stack.ts
 * `startExtraWorker`), so `down` stops it like the others.
 */
import { join } from 'node:path';
import type { Started } from '../../scripts/stack/processes.js';
import { startExtraWorker } from '../../scripts/stack/stack.js';
import type { StackState } from '../../scripts/stack/state.js';
import { pristineFramework } from './pristine-framework.js';

export const STOCK_AGENT = join('bench', 'capacity', 'stock-agent.ts');

export interface StockWorkerOptions {
  /** Process and log name; `worker-…` so `down` drains it like a worker. */
  name: string;
  agentName: string;
  httpPort: number;
  env?: Record<string, string>;
  nodeBinary?: string;
}

/** `onSpawn` hears the worker's pid at once, before it registers (its job processes start meanwhile). */
export function startStockWorker(state: StackState, options: StockWorkerOptions, onSpawn?: (pid: number) => void): Promise<Started> {
  const agentDir = pristineFramework(join(state.runDir, 'stock'));
  return startExtraWorker(state, { ...options, tts: 'cartesia' }, { script: STOCK_AGENT, agentDir, ...(onSpawn ? { onSpawn } : {}) });
}
