/**
 * `npm run live-check`: probes the real Resemble and Cartesia services for what the public sources
 * leave unconfirmed (docs/provider-fidelity.md) and prints a markdown report to paste into docs/.
 * Reads the worker's own variables (src/config); never run by CI. `--help` lists the options.
 */
import { initializeLogger } from '@livekit/agents';
import { parseArgs } from 'node:util';
import { loadEnvFile } from '../../src/config/index.js';
import { LIVE_SETTINGS } from './check.js';
import { PROVIDERS, type Provider, liveCheck } from './run.js';

const HELP = `npm run live-check -- [options]

Probes the real Resemble and Cartesia services with the keys the worker uses
(RESEMBLE_API_KEY + RESEMBLE_VOICE_UUID, CARTESIA_API_KEY + CARTESIA_VOICE, and their
model / version / base-URL variables; see .env.example) and prints a markdown report.
A provider without its key and voice is skipped; with neither, it exits 2.
A run takes a few minutes (the idle check keeps one socket silent in the background) and
synthesizes a few hundred characters per provider.

  --out FILE              also write the report to FILE
  --only resemble|cartesia  probe one provider
  --idle-wait-s N         how long the Resemble idle check keeps a silent socket (default ${LIVE_SETTINGS.idleWaitMs / 1000}; 0 skips it)
  --connection-limit N    open up to N+1 Resemble sockets to find the per-key limit (off by default;
                          never beside live workers sharing the key)
  --skip IDS              leave out checks, e.g. --skip R5,C9
  --help`;

function fail(message: string): never {
  console.error(`${message}\n\n${HELP}`);
  process.exit(2);
}

function wholeNumber(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number (got ${JSON.stringify(value)})`);
  return Number(value);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        out: { type: 'string' },
        only: { type: 'string' },
        'idle-wait-s': { type: 'string' },
        'connection-limit': { type: 'string' },
        skip: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.only !== undefined && !PROVIDERS.includes(values.only as Provider)) fail(`--only must be ${PROVIDERS.join(' or ')}`);
  const settings = {
    ...LIVE_SETTINGS,
    idleWaitMs: wholeNumber('idle-wait-s', values['idle-wait-s'], LIVE_SETTINGS.idleWaitMs / 1000) * 1000,
    connectionLimit: wholeNumber('connection-limit', values['connection-limit'], 0),
    skipIds: (values.skip ?? '').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean),
  };
  loadEnvFile();
  // The codecs log through the framework's logger; the report is the output, so only fatal lines.
  initializeLogger({ pretty: false, level: 'fatal' });
  return liveCheck(
    process.env,
    { settings, outFile: values.out, only: values.only ? [values.only as Provider] : undefined },
    { out: (text) => process.stdout.write(text), err: (line) => console.error(line) },
  );
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`live-check failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
