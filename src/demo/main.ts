/**
 * `npm run demo`: the voice pipeline offline, on the embedded defaults. Every expected failure
 * (bad arguments, bad configuration, the optional voice missing, a taken port) ends with one
 * readable message and a non-zero exit, never a stack trace.
 */
import { ConfigError, loadConfig, loadEnvFile } from '../config/index.js';
import { LocalVoiceError } from '../local-voice/errors.js';
import { DEMO_USAGE, DemoUsageError, parseDemoArgs } from './args.js';

/** LOG_LEVEL=debug (or trace) also prints the stack of a failure. */
let showStacks = false;

async function main(argv: string[]): Promise<number> {
  const args = parseDemoArgs(argv);
  if (args.help) {
    process.stdout.write(`${DEMO_USAGE}\n`);
    return 0;
  }
  loadEnvFile();
  const config = loadConfig(process.env, { mode: 'demo' });
  showStacks = config.logLevel === 'debug' || config.logLevel === 'trace';
  // Loaded only now: the agents SDK takes seconds to import, and --help or a typo should not wait.
  const { initializeLogger } = await import('@livekit/agents');
  const { runDemo } = await import('./run-demo.js');
  // The framework's JSON log lines would bury the table; the demo reports session errors itself.
  // LOG_LEVEL brings them back when digging into a problem.
  initializeLogger({ pretty: false, level: config.logLevel ?? 'fatal' });
  const result = await runDemo({
    config,
    turns: args.turns,
    outDir: args.outDir,
    replay: { firstTokenDelayMs: args.firstTokenDelayMs, tokensPerSecond: args.tokensPerSecond },
    ...(args.typed ? {} : { spoken: { sttFinalAfterMs: args.sttFinalAfterMs } }),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`\n${result.table}\n\n`);
  process.stdout.write(`Report: ${result.files.reportJson}\nWaterfall: ${result.files.waterfallPng}\n`);
  if (result.turns.some((t) => t.firstAudio.contentMs === undefined)) {
    process.stderr.write('Some turns produced no audio; see the report above.\n');
    return 1;
  }
  return 0;
}

function explain(error: unknown): string {
  if (error instanceof DemoUsageError) return `${error.message}\n\n${DEMO_USAGE}`;
  if (error instanceof ConfigError || error instanceof LocalVoiceError) return error.message;
  if (error instanceof Error) return `The demo failed: ${error.message}`;
  return `The demo failed: ${String(error)}`;
}

/** rtc-node's native layer keeps the event loop alive once used; release it so the process ends. */
async function releaseNative(): Promise<void> {
  try {
    const { dispose } = await import('@livekit/rtc-node');
    await dispose();
  } catch {
    // Nothing was loaded, or it is already gone.
  }
}

let exitCode = 1;
try {
  exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${explain(error)}\n`);
  if (showStacks && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
}
await releaseNative();
process.exit(exitCode);
