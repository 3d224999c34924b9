/**
 * One live-check run: configuration → the providers to probe → each provider's checks → the
 * markdown report. Everything it prints passes through one redaction of every secret the
 * configuration holds, so no key reaches the terminal or the file, whatever a provider echoes.
 */
import { writeFileSync } from 'node:fs';
import { ConfigError, SECRET_VARIABLES, loadConfig } from '../../src/config/index.js';
import { CARTESIA_CHECKS } from './cartesia-checks.js';
import { type Check, type CheckResult, type CheckSettings, runCheck } from './check.js';
import { type ProviderSection, renderReport } from './report.js';
import { RESEMBLE_CHECKS } from './resemble-checks.js';
import { type CartesiaTarget, type ResembleTarget, type Skipped, cartesiaTarget, isSkipped, resembleTarget } from './targets.js';

export type Provider = 'resemble' | 'cartesia';
export const PROVIDERS: readonly Provider[] = ['resemble', 'cartesia'];

export interface LiveCheckIO {
  /** The report (stdout). */
  out(text: string): void;
  /** Progress and problems (stderr). */
  err(line: string): void;
}

export interface LiveCheckOptions {
  settings: CheckSettings;
  /** Also write the report here. */
  outFile?: string;
  /** Probe only these providers. @defaultValue both */
  only?: Provider[];
}

type Env = Readonly<Record<string, string | undefined>>;

const NAMES: Record<Provider, string> = { resemble: 'Resemble', cartesia: 'Cartesia' };

/** Exit status: 0 when at least one provider was probed, 2 when none could be (or the configuration is invalid). */
export async function liveCheck(env: Env, options: LiveCheckOptions, io: LiveCheckIO): Promise<number> {
  const secrets = secretsIn(env);
  const safe: LiveCheckIO = { out: (text) => io.out(redact(text, secrets)), err: (line) => io.err(redact(line, secrets)) };
  try {
    return await run(env, options, safe, secrets);
  } catch (error) {
    safe.err(`live-check failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return 1;
  }
}

async function run(env: Env, options: LiveCheckOptions, safe: LiveCheckIO, secrets: string[]): Promise<number> {
  let config;
  try {
    config = loadConfig(env, { mode: 'live-check' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    safe.err(error.message);
    return 2;
  }
  const wanted = options.only ?? PROVIDERS;
  const targets = wanted.map((p) => (p === 'resemble' ? resembleTarget(config) : cartesiaTarget(config)));
  if (targets.every(isSkipped)) {
    safe.err('live-check probes the real Resemble and Cartesia services with the keys the worker uses; no provider has its key and voice set:');
    for (const t of targets as Skipped[]) safe.err(`  ${NAMES[t.provider]}: ${t.skipped}`);
    safe.err('Set them in the environment or in .env (see .env.example).');
    return 2;
  }
  const startedAt = new Date();
  const sections: ProviderSection[] = [];
  for (const target of targets) {
    const name = NAMES[target.provider];
    if (isSkipped(target)) {
      safe.err(`${name}: skipped, ${target.skipped}`);
      sections.push({ name, skipped: target.skipped, results: [] });
      continue;
    }
    safe.err(`${name}: ${target.summary}`);
    const results =
      target.provider === 'resemble'
        ? await runProvider(name, RESEMBLE_CHECKS, target, options.settings, safe)
        : await runProvider(name, CARTESIA_CHECKS, target as CartesiaTarget, options.settings, safe);
    sections.push({ name, summary: target.summary, results });
  }
  const report = redact(renderReport({ startedAt, elapsedMs: Date.now() - startedAt.getTime(), settings: options.settings, sections }), secrets);
  safe.out(report);
  if (options.outFile) {
    writeFileSync(options.outFile, report);
    safe.err(`wrote ${options.outFile}`);
  }
  return 0;
}

/**
 * Checks run one after another (a Cartesia plan may allow only 2 concurrent contexts), except a
 * `background` one, which mostly waits on its own silent socket, and an `alone` one, which opens
 * many sockets on the key and so runs after everything else.
 */
async function runProvider<T extends ResembleTarget | CartesiaTarget>(
  name: string,
  checks: Array<Check<T>>,
  target: T,
  settings: CheckSettings,
  io: LiveCheckIO,
): Promise<CheckResult[]> {
  const results = new Map<string, CheckResult>();
  const run = async (check: Check<T>) => {
    const startedAt = Date.now();
    const result = await runCheck(check, target, settings);
    results.set(check.id, result);
    const outcome = result.skipped ? 'skipped' : result.couldNotCheck !== undefined ? `could not check: ${result.couldNotCheck}` : 'checked';
    io.err(`  ${name} ${check.id} ${check.title}: ${outcome} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
  };
  const background = checks.filter((c) => c.schedule === 'background').map(run);
  for (const check of checks.filter((c) => c.schedule === undefined)) await run(check);
  await Promise.all(background);
  for (const check of checks.filter((c) => c.schedule === 'alone')) await run(check);
  return checks.map((c) => results.get(c.id)!);
}

/** Every secret value in the environment (the configuration's secret variables), as set and trimmed. */
function secretsIn(env: Env): string[] {
  const values = [...SECRET_VARIABLES].flatMap((v) => [env[v] ?? '', env[v]?.trim() ?? '']);
  return [...new Set(values.filter((v) => v.length >= 4))].sort((a, b) => b.length - a.length);
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((t, secret) => t.split(secret).join('[redacted]'), text);
}
