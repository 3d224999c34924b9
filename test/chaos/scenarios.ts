/**
 * The faults one chaos turn can meet, and what the turn must then look like. A scenario is picked
 * per turn by the seeded PRNG; `plan` turns it into a fault hook, server actions and expectations.
 */
import type { Rng } from './prng.js';
import type { ChaosFault, ChaosKnobs, ChaosServer } from './servers.js';

export const SCENARIOS = [
  'clean',
  'drop-mid-request',
  'drop-all-sockets',
  'server-restart',
  'error-5xx-once',
  'error-5xx-always',
  'error-4xx',
  'missing-end',
  'stall-forever',
  'stall-short',
  'interrupt',
  'interrupt-then-fault',
  'concurrent-pair',
  'llm-pause',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

export type ScenarioWeights = Partial<Record<Scenario, number>>;

export const CHAOS_WEIGHTS: ScenarioWeights = {
  clean: 3,
  'drop-mid-request': 3,
  'drop-all-sockets': 2,
  'server-restart': 1,
  'error-5xx-once': 2,
  'error-5xx-always': 1,
  'error-4xx': 2,
  'missing-end': 1,
  'stall-forever': 1,
  'stall-short': 1,
  interrupt: 4,
  'interrupt-then-fault': 2,
  'concurrent-pair': 2,
  'llm-pause': 2,
};

/** What a turn may end as. `failed` carries the `retryable` flag the surfaced APIError must have. */
export type Expectation = { kind: 'complete' } | { kind: 'failed'; retryable: boolean; status?: number } | { kind: 'interrupted' };

export interface TurnTiming {
  /** Socket watchdog of the engine under test. */
  inactivityTimeoutMs: number;
  /** The engine attributes frames by arrival order (Resemble binary): the server must not interleave. */
  fifoOnly: boolean;
}

/** A fault that strikes the `target`-th request of the turn (counting only this turn's texts). */
export interface FaultPlan {
  fault: ChaosFault;
  target: number;
  /** Strike every one of the turn's requests from `target` on (a provider that stays broken). */
  persistent: boolean;
}

export interface TurnPlan {
  scenario: Scenario;
  knobs: Partial<ChaosKnobs>;
  fault?: FaultPlan;
  /** Server action during the turn, `atMs` after it starts. */
  action?: { kind: 'drop-all' | 'restart'; atMs: number; downMs: number };
  interruptAfterFrames?: number;
  /** The LLM pauses before this fraction of the reply's deltas, for this long. */
  pause?: { at: number; ms: number };
  /** Outcome when the planned fault actually struck one of this turn's requests (else `complete`). */
  onFault: Expectation;
}

export function randomKnobs(rng: Rng, provider: ChaosServer['provider'], fifoOnly: boolean): Partial<ChaosKnobs> {
  return {
    firstByteDelayMs: rng.int(0, 12),
    realTimeFactor: rng.pick([0, 0, 0.1, 0.2, 0.3]),
    // Odd sizes split samples across frames.
    frameBytes: rng.pick([320, 641, 1001, 2048, 4096]),
    burst: provider === 'resemble' && rng.chance(0.2) ? { framesPerBurst: rng.int(2, 6), gapMs: rng.int(5, 30) } : undefined,
    jitterMs: provider === 'cartesia' && rng.chance(0.3) ? rng.int(1, 8) : 0,
    lateChunksAfterCancel: rng.int(0, 3),
    // Request ids make interleaved frames routable; binary frames carry none, so FIFO only.
    interleave: provider === 'resemble' && !fifoOnly && rng.chance(0.25),
  };
}

export function planTurn(rng: Rng, scenario: Scenario, provider: ChaosServer['provider'], timing: TurnTiming): TurnPlan {
  const knobs = randomKnobs(rng, provider, timing.fifoOnly);
  const complete: Expectation = { kind: 'complete' };
  const once = (fault: ChaosFault): FaultPlan => ({ fault, target: rng.int(0, 2), persistent: false });
  const afterBytes = () => rng.pick([0, rng.int(1, 3000), Infinity]);
  switch (scenario) {
    case 'clean':
    case 'concurrent-pair':
      return { scenario, knobs, onFault: complete };
    case 'drop-mid-request':
      return { scenario, knobs, fault: once({ kind: 'drop', afterBytes: afterBytes(), graceful: rng.chance(0.3) }), onFault: complete };
    case 'drop-all-sockets':
      return { scenario, knobs, action: { kind: 'drop-all', atMs: rng.int(0, 40), downMs: 0 }, onFault: complete };
    case 'server-restart':
      return { scenario, knobs, action: { kind: 'restart', atMs: rng.int(0, 40), downMs: rng.int(0, 60) }, onFault: complete };
    case 'error-5xx-once':
      return { scenario, knobs, fault: once({ kind: 'error', status: rng.pick([500, 502, 503]), afterBytes: afterBytes() }), onFault: complete };
    case 'error-5xx-always':
      return {
        scenario,
        knobs,
        fault: { fault: { kind: 'error', status: 503, afterBytes: 0 }, target: 0, persistent: true },
        onFault: { kind: 'failed', retryable: true, status: 503 },
      };
    case 'error-4xx': {
      const fault = once({ kind: 'error', status: 400, afterBytes: afterBytes() });
      // A Cartesia context that has spoken and then errs is lost, not refused: what it had not
      // voiced goes out again (a fresh context, or a retry when the error cut its audio). Only a
      // context refused before any audio fails the turn.
      const refused = provider !== 'cartesia' || (fault.target === 0 && fault.fault.kind === 'error' && fault.fault.afterBytes === 0);
      return { scenario, knobs, fault, onFault: refused ? { kind: 'failed', retryable: false, status: 400 } : complete };
    }
    case 'missing-end':
      return { scenario, knobs, fault: once({ kind: 'no-end' }), onFault: complete };
    case 'stall-forever':
      return { scenario, knobs, fault: once({ kind: 'stall', afterBytes: afterBytes(), stallMs: Infinity }), onFault: complete };
    case 'stall-short':
      // Well under the watchdog: a slow provider is not a failed one.
      return {
        scenario,
        knobs,
        fault: once({ kind: 'stall', afterBytes: afterBytes(), stallMs: rng.int(5, Math.floor(timing.inactivityTimeoutMs / 4)) }),
        onFault: complete,
      };
    case 'interrupt':
      return { scenario, knobs, interruptAfterFrames: rng.int(0, 12), onFault: complete };
    case 'llm-pause':
      // Longer than a Cartesia context lives after its last audio (the chaos server: 50 ms).
      return { scenario, knobs, pause: { at: rng.int(10, 90) / 100, ms: rng.int(80, 160) }, onFault: complete };
    case 'interrupt-then-fault':
      return {
        scenario,
        knobs,
        interruptAfterFrames: rng.int(0, 8),
        fault: once(rng.pick<ChaosFault>([{ kind: 'drop', afterBytes: afterBytes() }, { kind: 'no-end' }, { kind: 'error', status: 500, afterBytes: 0 }])),
        onFault: complete,
      };
  }
}
