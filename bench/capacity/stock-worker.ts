/**
 * Starts the stock worker (./stock-agent.ts) in a running stack, next to the firstword worker:
 * same namespace, same LiveKit server, same fakes, the same variables the stack gives its own
 * worker (scripts/stack/components.ts `workerEnv`), its own agent name, health port and log. It is
 * recorded in the stack's state file, so `down` stops it like the stack's other workers.
 */
import { join } from 'node:path';
import { workerEnv } from '../../scripts/stack/components.js';
import { REPO_ROOT } from '../../scripts/stack/layout.js';
import { type Started, startProcess } from '../../scripts/stack/processes.js';
import { jsonLine, poll } from '../../scripts/stack/readiness.js';
import { type StackState, writeState } from '../../scripts/stack/state.js';

export const STOCK_AGENT = join('bench', 'capacity', 'stock-agent.ts');

export interface StockWorkerOptions {
  /** Process and log name; `worker-…` so `down` drains it like a worker. */
  name: string;
  agentName: string;
  httpPort: number;
  env?: Record<string, string>;
}

/** `onSpawn` hears the worker's pid at once, before it registers (its job processes start meanwhile). */
export async function startStockWorker(state: StackState, options: StockWorkerOptions, onSpawn?: (pid: number) => void): Promise<Started> {
  if (state.processes.some((p) => p.name === options.name)) throw new Error(`a process named ${options.name} already belongs to this stack`);
  const env = workerEnv({ agentName: options.agentName, tts: 'cartesia', openaiUrl: state.openaiUrl, cartesiaUrl: state.cartesiaUrl, httpPort: options.httpPort, extraEnv: options.env });
  const proc = startProcess({
    name: options.name,
    namespace: state.namespace,
    cmd: process.execPath,
    args: ['--import', 'tsx', STOCK_AGENT, 'start'],
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    logFile: join(state.runDir, `${options.name}.log`),
  });
  state.processes.push(proc.record);
  writeState(state.stateFile, state);
  onSpawn?.(proc.record.pid);
  await poll('the stock worker to log "registered worker"', () => jsonLine(proc.record.logFile, (v) => v.msg === 'registered worker'), { timeoutMs: 90_000, process: proc });
  return proc;
}
