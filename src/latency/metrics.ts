/**
 * Prometheus histograms of the turn budget.
 *
 * Buckets, in seconds, are set by what the figures are compared with, not spread evenly:
 * - stages (`firstword_turn_stage_seconds`): from 5 ms — the handover stages (first frame,
 *   playout) live at a few ms, and the ack target is 50 ms — through the 100–800 ms band where
 *   LLM first tokens, first-clause waits and provider first bytes sit (a bucket every 100 ms or
 *   so there), to 5 s for a stuck provider or a long end-of-turn wait.
 * - the caller's wait (`firstword_caller_wait_seconds{until="first_sound"|"first_content"}`, from the
 *   end of the caller's speech):
 *   its own edges at the marks that matter — 0.05 (ack target), 0.4–0.5 (the floor measured for a
 *   300 ms LLM first token and a 120 ms provider first byte), 0.8 and 1.3 (the official Cartesia
 *   plugin's English and Korean first audio on the same setup), and 2 s (the silence after which
 *   callers talk over the agent) — so the quantiles read off the buckets are comparable with the
 *   benchmark's table.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { z } from 'zod';
import { STAGE_NAMES, type StageName, type TurnReport } from './stamps.js';

export const STAGE_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.65, 0.8, 1, 1.5, 2, 3, 5] as const;
export const FIRST_AUDIO_BUCKETS_S = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.3, 1.6, 2, 3, 5] as const;

/** What a turn contributes to the histograms: numbers only, never text (unknown keys are refused). Also the push format. */
export const turnSampleSchema = z.strictObject({
  stages: z.partialRecord(z.enum(STAGE_NAMES as [StageName, ...StageName[]]), z.number().finite()),
  firstSoundMs: z.number().finite().nonnegative().optional(),
  firstContentMs: z.number().finite().nonnegative().optional(),
  ack: z.enum(['played', 'skipped']).optional(),
  interrupted: z.boolean(),
});

export type TurnSample = z.infer<typeof turnSampleSchema>;

export function toTurnSample(report: TurnReport): TurnSample {
  return {
    stages: report.stages,
    firstSoundMs: report.firstSoundMs,
    firstContentMs: report.firstContentMs,
    ack: report.ack?.outcome,
    interrupted: report.interrupted,
  };
}

export interface LatencyMetricsOptions {
  /** Registry to register in. @defaultValue a new one (never prom-client's global) */
  registry: Registry;
  /** Also export Node's process metrics (CPU, memory, event loop lag). @defaultValue false */
  processMetrics: boolean;
}

export class LatencyMetrics {
  readonly registry: Registry;
  readonly #stages: Histogram<'stage'>;
  readonly #callerWait: Histogram<'until'>;
  readonly #turns: Counter<'ack' | 'interrupted'>;

  constructor(opts: Partial<LatencyMetricsOptions> = {}) {
    this.registry = opts.registry ?? new Registry();
    const registers = [this.registry];
    this.#stages = new Histogram({
      name: 'firstword_turn_stage_seconds',
      help: 'Duration of each stage of a turn, from the end of user speech to the first audio played',
      labelNames: ['stage'],
      buckets: [...STAGE_BUCKETS_S],
      registers,
    });
    this.#callerWait = new Histogram({
      name: 'firstword_caller_wait_seconds',
      help: "The caller's clock: end of the caller's speech to the agent's first sound (ack or reply) and to the reply's first audio",
      labelNames: ['until'],
      buckets: [...FIRST_AUDIO_BUCKETS_S],
      registers,
    });
    this.#turns = new Counter({
      name: 'firstword_turns_total',
      help: 'Turns answered, by acknowledgement outcome and whether the reply was interrupted',
      labelNames: ['ack', 'interrupted'],
      registers,
    });
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  observe(sample: TurnSample): void {
    for (const [stage, ms] of Object.entries(sample.stages)) {
      // A negative stage is a lead, not a duration (preemptive LLM request before the turn ended).
      if (ms !== undefined && ms >= 0) this.#stages.observe({ stage }, ms / 1000);
    }
    if (sample.firstSoundMs !== undefined) this.#callerWait.observe({ until: 'first_sound' }, sample.firstSoundMs / 1000);
    if (sample.firstContentMs !== undefined) this.#callerWait.observe({ until: 'first_content' }, sample.firstContentMs / 1000);
    this.#turns.inc({ ack: sample.ack ?? 'off', interrupted: String(sample.interrupted) });
  }

  /** The text exposition of everything registered. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
