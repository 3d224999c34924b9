/**
 * Stale audio after a barge-in, per strategy and scenario: the scenario's reply is interrupted
 * once its first audible frame arrives (the caller starts talking), and the next reply follows at
 * once on the same TTS. Whatever is heard after the barge-in that carries audio of a text sent for
 * the interrupted reply is stale (bench/peers/tags.ts); the server says which texts each client
 * sent and how many sockets it opened. One lane per provider × language × strategy, run side by side.
 */
import { makeTrace } from '../llm.js';
import { mean, percentile } from '../playout.js';
import type { Row } from '../report.js';
import type { Language, Scenario } from '../scenarios.js';
import type { RemoteServers } from '../servers.js';
import { type StrategyName, createStrategy, providersOf } from '../strategies.js';
import { type Provider, SAMPLE_RATES } from './catalog.js';
import { BARGE_IN_LANE_BASE, clientKey, serverName } from './providers.js';
import { staleAfterBargeIn } from './tags.js';

export interface BargeInConfig {
  scenarios: readonly Scenario[];
  providers: readonly Provider[];
  strategies: readonly StrategyName[];
  tokensPerSecond: readonly number[];
  reps: number;
  firstTokenMs: number;
  turnTimeoutMs: number;
  seed: number;
}

export interface BargeInRecord {
  provider: Provider;
  scenario: string;
  tokensPerSecond: number;
  strategy: StrategyName;
  rep: number;
  staleFrames: number;
  staleMs: number;
  /** Audible frames after the barge-in whose audio matched no text sent (should be 0). */
  unknownFrames: number;
  /** Sockets the server saw the client open for the pair (interrupted reply and the next). */
  socketsOpened: number;
  /** Time to first audio of the reply after the barge-in. */
  nextTtfaMs: number;
}

/** The reply after the barge-in: the language's shortest, or its second when that was interrupted. */
function nextReply(scenarios: readonly Scenario[], interrupted: Scenario): Scenario {
  const mine = scenarios.filter((s) => s.language === interrupted.language);
  const shortest = [...mine].sort((a, b) => a.reply.length - b.reply.length);
  return shortest[0] === interrupted ? shortest[1] ?? interrupted : shortest[0]!;
}

export async function runBargeIns(config: BargeInConfig, servers: RemoteServers, onPair: (done: number, total: number) => void): Promise<BargeInRecord[]> {
  const lanes: Array<{ provider: Provider; language: Language; strategy: StrategyName }> = [];
  for (const provider of config.providers) {
    for (const language of ['ko', 'en'] as const) {
      if (!config.scenarios.some((s) => s.language === language)) continue;
      for (const strategy of config.strategies.filter((n) => providersOf(n).includes(provider))) lanes.push({ provider, language, strategy });
    }
  }
  const perLane = (language: Language) => config.scenarios.filter((s) => s.language === language).length * config.tokensPerSecond.length * config.reps;
  const total = lanes.reduce((n, l) => n + perLane(l.language), 0);
  let done = 0;
  const records: BargeInRecord[] = [];
  await Promise.all(
    lanes.map(async ({ provider, language, strategy }, index) => {
      const key = clientKey(strategy, BARGE_IN_LANE_BASE + index);
      const baseURL = servers.urls[serverName(provider, language)]!;
      const tts = createStrategy(strategy, {
        provider,
        language,
        baseURL,
        apiKey: key,
        sampleRate: SAMPLE_RATES[provider],
        turnTimeoutMs: config.turnTimeoutMs,
      });
      const scenarios = config.scenarios.filter((s) => s.language === language);
      const trace = (s: Scenario, tps: number) =>
        makeTrace(s.reply, language, { firstTokenMs: config.firstTokenMs, tokensPerSecond: tps, jitter: 0, seed: config.seed });
      try {
        await tts.prewarm();
        await tts.speak(trace(scenarios[0]!, config.tokensPerSecond[0]!), performance.now()); // warm-up, as in a call
        await servers.usage([key]);
        for (const tps of config.tokensPerSecond) {
          for (let rep = 0; rep < config.reps; rep++) {
            for (const scenario of scenarios) {
              await tts.speak(trace(scenario, tps), performance.now(), { bargeInAfterFrames: 1, tags: true });
              const interrupted = (await servers.usage([key]))[key]!;
              const next = await tts.speak(trace(nextReply(scenarios, scenario), tps), performance.now(), { tags: true });
              const after = (await servers.usage([key]))[key]!;
              const stale = staleAfterBargeIn(next.frames, interrupted.texts, after.texts);
              const firstAudible = next.frames.find((f) => f.at >= 0 && f.tags.length > 0);
              records.push({
                provider,
                scenario: scenario.name,
                tokensPerSecond: tps,
                strategy,
                rep,
                ...stale,
                socketsOpened: interrupted.socketsOpened + after.socketsOpened,
                nextTtfaMs: firstAudible?.at ?? Number.NaN,
              });
              onPair(++done, total);
            }
          }
        }
      } finally {
        await tts.close().catch(() => {});
      }
    }),
  );
  return records;
}

/**
 * Puts each strategy's mean stale audio per barge-in into the rows (same provider, scenario,
 * rate); returns a loud line for each strategy whose audio could not all be attributed.
 */
export function attachBargeIns(rows: Row[], records: readonly BargeInRecord[]): string[] {
  // Barge-ins are spoken on steady traces: their figures belong to the steady rows only.
  for (const row of rows.filter((r) => r.jitter === 0)) {
    for (const [name, cell] of Object.entries(row.cells) as Array<[StrategyName, NonNullable<Row['cells'][StrategyName]>]>) {
      const mine = records.filter(
        (r) => r.provider === row.provider && r.scenario === row.scenario && r.tokensPerSecond === row.tokensPerSecond && r.strategy === name,
      );
      if (mine.length === 0) continue;
      cell.staleFrames = mean(mine.map((r) => r.staleFrames));
      cell.staleMs = mean(mine.map((r) => r.staleMs));
      cell.socketsPerBargeIn = mean(mine.map((r) => r.socketsOpened));
      cell.ttfaAfterBargeInP50Ms = percentile(mine.map((r) => r.nextTtfaMs), 50);
    }
  }
  const unknown = new Map<string, number>();
  for (const r of records) if (r.unknownFrames) unknown.set(`${r.provider} ${r.strategy}`, (unknown.get(`${r.provider} ${r.strategy}`) ?? 0) + r.unknownFrames);
  return [...unknown].map(([who, n]) => `!!! STALE AUDIO NOT ATTRIBUTED: ${who}: ${n} frames after barge-ins matched no text it sent`);
}
