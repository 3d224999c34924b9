/**
 * Which Python peers can run: the venv is built (scripts/peers/ensure-venv.sh) and each peer
 * speaks one short reply against the local server before the bench counts on it. A peer that
 * cannot run is named, with why, on a loud line — never dropped silently.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { makeTrace } from '../llm.js';
import type { RemoteServers } from '../servers.js';
import { createStrategy } from '../strategies.js';
import { PYTHON_PEERS, type PythonPeerName, SAMPLE_RATES } from './catalog.js';
import { PREFLIGHT_LANE, clientKey, serverName } from './providers.js';
import { pythonDriver } from './python-strategy.js';

const ENSURE_VENV = fileURLToPath(new URL('../../scripts/peers/ensure-venv.sh', import.meta.url));

export interface PeerStatus {
  name: PythonPeerName;
  /** Why it cannot run; undefined when it can. */
  problem?: string;
  /** Package versions the driver loaded. */
  versions?: Record<string, string>;
}

/** Builds the venv if needed; returns why it could not (undefined: ready). */
export function ensureVenv(log: (line: string) => void): string | undefined {
  const run = spawnSync('bash', [ENSURE_VENV], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  for (const line of `${run.stdout ?? ''}`.split('\n').filter(Boolean)) log(`  ${line}`);
  if (run.status === 0) return undefined;
  const said = `${run.stderr ?? ''}`.trim().split('\n').filter(Boolean).pop();
  return said ?? `scripts/peers/ensure-venv.sh exited ${run.status ?? run.signal}`;
}

/** Each peer speaks "Hello there." once; the ones that cannot are returned with the reason. */
export async function checkPythonPeers(names: readonly PythonPeerName[], servers: RemoteServers): Promise<PeerStatus[]> {
  return Promise.all(
    names.map(async (name): Promise<PeerStatus> => {
      const provider = PYTHON_PEERS[name].provider;
      const tts = createStrategy(name, {
        provider,
        language: 'en',
        baseURL: servers.urls[serverName(provider, 'en')]!,
        apiKey: clientKey(name, PREFLIGHT_LANE),
        sampleRate: SAMPLE_RATES[provider],
        turnTimeoutMs: 20_000,
      });
      try {
        await tts.prewarm();
        const trace = makeTrace('Hello there.', 'en', { firstTokenMs: 0, tokensPerSecond: 40, jitter: 0, seed: 1 });
        const { frames } = await tts.speak(trace, performance.now());
        if (!frames.some((f) => f.ms > 0.1)) return { name, problem: 'spoke "Hello there." without producing any audio' };
        const { ready } = await pythonDriver(name);
        return { name, versions: ready.versions };
      } catch (error) {
        return { name, problem: error instanceof Error ? error.message : String(error) };
      } finally {
        await tts.close().catch(() => {});
      }
    }),
  );
}

/**
 * The strategies that will run: every one asked for, less the Python peers that cannot (each
 * named on a loud line, returned too so the run can repeat them at the end).
 */
export async function usableStrategies<S extends string>(
  strategies: readonly S[],
  options: { pythonPeers: boolean; providers: readonly string[] },
  servers: RemoteServers,
  log: (line: string) => void,
): Promise<{ strategies: S[]; notRun: string[] }> {
  const wanted = strategies.filter((s): s is S & PythonPeerName => isPeer(s) && options.providers.includes(PYTHON_PEERS[s].provider));
  if (wanted.length === 0) return { strategies: [...strategies], notRun: [] };
  let statuses: PeerStatus[];
  if (!options.pythonPeers) {
    statuses = wanted.map((name) => ({ name, problem: 'left out by --no-python-peers' }));
  } else {
    const venvProblem = ensureVenv(log);
    statuses = venvProblem
      ? wanted.map((name) => ({ name, problem: `the peers' venv could not be built: ${venvProblem}` }))
      : await checkPythonPeers(wanted, servers);
  }
  const notRun: string[] = [];
  for (const status of statuses) {
    if (status.problem) notRun.push(`!!! PEER NOT RUN: ${status.name} — ${status.problem}`);
    else log(`  peer ready: ${status.name} (${Object.entries(status.versions ?? {}).map(([p, v]) => `${p} ${v}`).join(', ')})`);
  }
  for (const line of notRun) log(line);
  const dropped = new Set(statuses.filter((s) => s.problem).map((s) => s.name as string));
  return { strategies: strategies.filter((s) => !dropped.has(s)), notRun };
}

function isPeer(name: string): name is PythonPeerName {
  return Object.hasOwn(PYTHON_PEERS, name);
}
