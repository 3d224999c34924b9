/**
 * Seeded chaos against both protocol servers: dropped sockets, error frames, missing ends, stalls,
 * restarts, barge-ins with immediate next turns, late frames after cancel and concurrent streams.
 * Replay a failure with `CHAOS_SEED=<seed> npx vitest run test/chaos`.
 */
import { initializeLogger } from '@livekit/agents';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng, seedFromEnv } from './prng.js';
import { ChaosRun, type TurnReport, chaosEngineOptions } from './runner.js';
import { CHAOS_WEIGHTS } from './scenarios.js';
import { type ProviderName, startChaosServer } from './servers.js';

initializeLogger({ pretty: false, level: 'silent' as 'error' });

const TURNS = Number(process.env.CHAOS_TURNS ?? 60);

interface Variant {
  name: string;
  provider: ProviderName;
  seed: number;
  turns: number;
  binaryResponse?: boolean;
  startBufferMs?: number;
}

const VARIANTS: Variant[] = [
  { name: 'resemble (JSON frames, pipelined)', provider: 'resemble', seed: seedFromEnv(0x5eed01), turns: TURNS },
  { name: 'cartesia (multiplexed contexts)', provider: 'cartesia', seed: seedFromEnv(0x5eed02), turns: TURNS },
  // Binary frames carry no request id: stale audio is told apart only by FIFO bookkeeping. No
  // start buffer here (the JSON variant runs Resemble's): barge-ins strike at the first frame,
  // and a held first frame would let these short replies' audio all arrive before it.
  {
    name: 'resemble (binary frames, FIFO)',
    provider: 'resemble',
    seed: seedFromEnv(0x5eed03),
    turns: Math.ceil(TURNS / 2),
    binaryResponse: true,
    startBufferMs: 0,
  },
];

for (const { name, provider, seed, turns: TURNS, binaryResponse, startBufferMs } of VARIANTS) {
  describe(`chaos: ${name}`, () => {
    const reports: TurnReport[] = [];
    let run: ChaosRun | undefined;
    afterAll(async () => {
      await run?.server.close();
    });

    it(`${TURNS} seeded turns keep every invariant (seed ${seed})`, async () => {
      const server = await startChaosServer(provider, { msPerChar: 1 });
      run = new ChaosRun(server, createRng(seed), CHAOS_WEIGHTS, { ...chaosEngineOptions(provider), binaryResponse, startBufferMs });
      if (provider === 'resemble') await run.engine.prewarm();
      for (let i = 0; i < TURNS; i++) {
        const report = await run.turn(i);
        reports.push(report);
        expect(report.problems, `CHAOS_SEED=${seed} provider=${provider} turn=${i} scenario=${report.scenario}`).toEqual([]);
      }
      if (process.env.CHAOS_VERBOSE) console.log(provider, summarize(reports), run.engine.poolStats, server.connectionsOpened);
      const leaks = await run.close();
      expect(leaks, `CHAOS_SEED=${seed} provider=${provider}: sockets after close()`).toEqual([]);
      // The run exercised what it claims to: faults struck, turns failed, barge-ins happened.
      const outcomes = new Set(reports.map((r) => r.outcome));
      expect(outcomes, `CHAOS_SEED=${seed}`).toEqual(new Set(['complete', 'failed', 'interrupted']));
      expect(server.connectionsOpened, `CHAOS_SEED=${seed}: faults forced reconnects`).toBeGreaterThan(3);
      expect(run.engine.poolStats.staleEventsDropped, `CHAOS_SEED=${seed}: stale frames arrived and were dropped`).toBeGreaterThan(0);
    }, 60_000);
  });
}

function summarize(reports: TurnReport[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of reports) counts[`${r.scenario}→${r.outcome}`] = (counts[`${r.scenario}→${r.outcome}`] ?? 0) + 1;
  return counts;
}
