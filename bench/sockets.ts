/**
 * Provider connection budget benchmark (not a test): how many concurrent calls one Resemble key
 * sustains on one worker before the provider refuses a connection, with today's pool settings
 * ("before": an always-on warm spare, no worker-wide budget) and with the budget ("after").
 *
 * Room-less. A worker is modelled as N idle job processes plus M processes in a call, one TTS
 * each, built the way the worker builds them (src/tts/factory.ts createTTS from the configuration,
 * then prewarm; "after" runs the worker's lease service as src/agent.ts does). Every process
 * prewarms (calls' processes first: they were idle before their call); with --acks on, each also
 * speaks one acknowledgement-like phrase at prewarm, as ACK_MODE does. Each call then has a long
 * reply the caller barges into after its first frame, and a second reply that must be heard in
 * full. Calls hold their sockets until every call is done. M grows until a call fails or the
 * server (limit per key, HTTP 429 over it) refuses a connection.
 *
 *   npm run bench:sockets -- [--idle 4] [--limit 20] [--max-calls 40] [--acks off|on|both]
 */
import { type APIConnectOptions, initializeLogger, tts as ttsNs } from '@livekit/agents';
import { loadConfig } from '../src/config/index.js';
import { startLeaseService } from '@firstword/agents-plugin-tts/budget';
import { ResembleTTS } from '@firstword/agents-plugin-tts';
import { createTTS } from '../src/tts/factory.js';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { startResembleServer, type ResembleServer } from '../test/servers/resemble-server.js';
import { ArgsError, readFlags } from './flags.js';

const LONG = 'Sure, I can help with that. The store opens at nine in the morning on weekdays, and on weekends it opens a little later, at ten.';
const SHORT = 'Okay. What else can I do for you today?';
/** No framework retries: a turn that cannot get a socket shows as a failed call at once. */
const CONN: APIConnectOptions = { maxRetry: 0, retryIntervalMs: 100, timeoutMs: 20_000 };

interface Settings {
  idle: number;
  limit: number;
  maxCalls: number;
  acks: Array<'off' | 'on'>;
}

type Mode = 'before' | 'after';

interface Run {
  ok: boolean;
  refused: number;
  peakOpen: number;
  failedCalls: number;
}

function parse(argv: string[]): Settings | 'help' {
  const s: Settings = { idle: 4, limit: 20, maxCalls: 40, acks: ['off', 'on'] };
  const help = readFlags(argv, (read) => {
    switch (read.flag) {
      case '--idle': s.idle = read.num(0, 64, true); break;
      case '--limit': s.limit = read.num(1, 1000, true); break;
      case '--max-calls': s.maxCalls = read.num(1, 500, true); break;
      case '--acks': {
        const v = read.value();
        if (v !== 'on' && v !== 'off' && v !== 'both') throw new ArgsError('--acks must be on, off or both');
        s.acks = v === 'both' ? ['off', 'on'] : [v];
        break;
      }
      case '--help': return 'help';
      default: throw new ArgsError(`unknown flag ${read.flag} (see --help)`);
    }
  });
  return help ?? s;
}

async function speak(engine: FirstwordTTS, text: string, bargeIn: boolean): Promise<boolean> {
  const stream = engine.stream({ connOptions: CONN });
  for (let i = 0; i < text.length; i += 5) stream.pushText(text.slice(i, i + 5));
  stream.endInput();
  for await (const ev of stream) {
    if (bargeIn) {
      stream.close();
      return true;
    }
    if (ev === ttsNs.SynthesizeStream.END_OF_STREAM) return true;
  }
  return false; // ended without END_OF_STREAM: the framework gave up on it
}

/** One process's TTS, as the worker builds it: "after" through the factory (budget included). */
async function processTTS(mode: Mode, server: ResembleServer, leaseSocket: string | undefined): Promise<FirstwordTTS> {
  if (mode === 'before') {
    // Today's settings, reproduced by option: the always-on spare, no worker-wide budget.
    return new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: server.url, pool: { warmSpare: true } });
  }
  const config = loadConfig(
    {
      TTS_PROVIDER: 'resemble',
      RESEMBLE_API_KEY: 'test-key',
      RESEMBLE_VOICE_UUID: 'voice-1',
      RESEMBLE_BASE_URL: server.url,
      TTS_LEASE_SOCKET: leaseSocket,
    },
    { mode: 'demo' },
  );
  return (await createTTS(config)).tts as FirstwordTTS;
}

async function runOnce(mode: Mode, calls: number, acks: boolean, s: Settings): Promise<Run> {
  const server = await startResembleServer({ maxConnectionsPerKey: s.limit, realTimeFactor: 0.25, msPerChar: 40, frameBytes: 1024 });
  const service = mode === 'after' ? await startLeaseService({ limit: s.limit }) : undefined;
  const engines: FirstwordTTS[] = [];
  let peakOpen = 0;
  const sample = setInterval(() => (peakOpen = Math.max(peakOpen, server.openConnections())), 5);
  let failedCalls = 0;
  try {
    for (let i = 0; i < calls + s.idle; i++) {
      const engine = await processTTS(mode, server, service?.path);
      engine.on('error', () => {}); // counted through the turn's result instead
      engines.push(engine);
      await engine.prewarm().catch(() => undefined);
      if (acks && !(await speak(engine, 'Okay.', false).catch(() => false))) failedCalls += i < calls ? 1 : 0;
    }
    const results = await Promise.all(
      engines.slice(0, calls).map(async (engine) => {
        try {
          await speak(engine, LONG, true);
          return await speak(engine, SHORT, false);
        } catch {
          return false;
        }
      }),
    );
    failedCalls += results.filter((ok) => !ok).length;
    peakOpen = Math.max(peakOpen, server.openConnections());
    return { ok: failedCalls === 0 && server.connectionsRefused === 0, refused: server.connectionsRefused, peakOpen, failedCalls };
  } finally {
    clearInterval(sample);
    await Promise.all(engines.map((e) => e.close()));
    await service?.close();
    await server.close();
  }
}

/** The most calls with nobody refused and every reply heard, growing M one call at a time. */
async function sustained(mode: Mode, acks: boolean, s: Settings): Promise<{ calls: number; firstFailure?: Run & { calls: number } }> {
  let best = 0;
  for (let calls = 1; calls <= s.maxCalls; calls++) {
    const run = await runOnce(mode, calls, acks, s);
    if (!run.ok) return { calls: best, firstFailure: { ...run, calls } };
    best = calls;
  }
  return { calls: best };
}

async function main(): Promise<void> {
  const settings = parse(process.argv.slice(2));
  if (settings === 'help') {
    process.stdout.write('npm run bench:sockets -- [--idle 4] [--limit 20] [--max-calls 40] [--acks off|on|both]\n');
    return;
  }
  initializeLogger({ pretty: false, level: 'fatal' });
  process.stdout.write(`one key, server limit ${settings.limit} connections, ${settings.idle} idle processes\n`);
  for (const acks of settings.acks) {
    for (const mode of ['before', 'after'] as const) {
      const idleSockets = await idleHeld(mode, acks === 'on', settings);
      const { calls, firstFailure } = await sustained(mode, acks === 'on', settings);
      const failure = firstFailure
        ? `at ${firstFailure.calls}: ${firstFailure.refused} connection(s) refused, ${firstFailure.failedCalls} call(s) failed, peak ${firstFailure.peakOpen} open`
        : `no failure up to ${settings.maxCalls}`;
      process.stdout.write(
        `acks ${acks.padEnd(3)} ${mode.padEnd(6)} idle process holds ${idleSockets} socket(s); sustains ${String(calls).padStart(3)} concurrent calls (${failure})\n`,
      );
    }
  }
}

/** Sockets one idle process holds after prewarm (and its acknowledgement). */
async function idleHeld(mode: Mode, acks: boolean, s: Settings): Promise<number> {
  const server = await startResembleServer({ maxConnectionsPerKey: s.limit });
  const service = mode === 'after' ? await startLeaseService({ limit: s.limit }) : undefined;
  const engine = await processTTS(mode, server, service?.path);
  try {
    await engine.prewarm();
    if (acks) await speak(engine, 'Okay.', false);
    await new Promise((r) => setTimeout(r, 200)); // a spare opened in the background has connected
    return engine.poolStats.open;
  } finally {
    await engine.close();
    await service?.close();
    await server.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ArgsError ? error.message : String(error)}\n`);
  process.exit(1);
});
