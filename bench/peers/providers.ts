/**
 * The provider servers of the latency and barge-in runs: a Cartesia- and a Resemble-protocol
 * server per language, and the API keys they accept — one per client (strategy × lane), so the
 * server counts each client's sockets and requests (bench/server-process.ts).
 */
import { CARTESIA_SERVER_DEFAULTS, type CartesiaServerOptions } from '../../test/servers/cartesia-server.js';
import type { Language } from '../scenarios.js';
import type { ServerSpec } from '../servers.js';
import { STRATEGY_NAMES, type StrategyName } from '../strategies.js';
import { PROVIDERS, type Provider } from './catalog.js';

/** Lanes of the latency run are 0…; the barge-in run's start here; the peers' check has its own. */
export const BARGE_IN_LANE_BASE = 1000;
export const PREFLIGHT_LANE = BARGE_IN_LANE_BASE - 1;
const MAX_LANES = 300;

export function clientKey(strategy: StrategyName, lane: number): string {
  return `bench.${strategy}.${lane}`;
}

export function serverName(provider: Provider, language: Language): string {
  return `${provider}-${language}`;
}

function allKeys(): string[] {
  const lanes = [...Array(MAX_LANES).keys()];
  const all = [...lanes, PREFLIGHT_LANE, ...lanes.map((l) => l + BARGE_IN_LANE_BASE)];
  return STRATEGY_NAMES.flatMap((name) => all.map((l) => clientKey(name, l)));
}

/**
 * Both providers' servers for each language, with the same latency knobs. Cartesia also knows
 * sonic-3.6 (pipecat-ai 1.14's default model, newer than the local server's list).
 */
export function providerServers(perLanguage: Record<Language, Partial<CartesiaServerOptions>>): Record<string, ServerSpec> {
  const apiKeys = allKeys();
  const out: Record<string, ServerSpec> = {};
  for (const provider of PROVIDERS) {
    for (const [language, o] of Object.entries(perLanguage) as Array<[Language, Partial<CartesiaServerOptions>]>) {
      const timing = {
        apiKeys,
        ...(o.firstByteDelayMs === undefined ? {} : { firstByteDelayMs: o.firstByteDelayMs }),
        ...(o.realTimeFactor === undefined ? {} : { realTimeFactor: o.realTimeFactor }),
        ...(o.msPerChar === undefined ? {} : { msPerChar: o.msPerChar }),
      };
      out[serverName(provider, language)] =
        provider === 'resemble'
          ? { provider, ...timing, maxConnectionsPerKey: 100_000 }
          : { ...o, ...timing, models: [...CARTESIA_SERVER_DEFAULTS.models, 'sonic-3.6'] };
    }
  }
  return out;
}
