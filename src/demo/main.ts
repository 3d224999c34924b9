/**
 * `npm run demo`: the voice pipeline offline, on the embedded defaults. Every expected failure
 * (bad arguments, bad configuration, the optional voice missing, a taken port) ends with one
 * readable message and a non-zero exit, never a stack trace.
 */
import { initializeLogger } from '@livekit/agents';
import { dispose } from '@livekit/rtc-node';
import { ConfigError, loadConfig, loadEnvFile } from '../config.js';
import { LocalVoiceError } from '../local-voice/errors.js';
import { DEMO_USAGE, DemoUsageError, parseDemoArgs } from './args.js';
import { runDemo } from './run-demo.js';

async function main(argv: string[]): Promise<number> {
  const args = parseDemoArgs(argv);
  if (args.help) {
    process.stdout.write(`${DEMO_USAGE}\n`);
    return 0;
  }
  loadEnvFile();
  const config = loadConfig(process.env, { mode: 'demo' });
  initializeLogger({ pretty: false, level: 'warn' });
  const result = await runDemo({
    config,
    turns: args.turns,
    outDir: args.outDir,
    replay: { firstTokenDelayMs: args.firstTokenDelayMs, tokensPerSecond: args.tokensPerSecond },
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`\n${result.table}\n\n`);
  process.stdout.write(`Report: ${result.files.reportJson}\nWaterfall: ${result.files.waterfallPng}\n`);
  if (result.turns.some((t) => t.timeToFirstAudioMs === undefined)) {
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

let exitCode = 1;
try {
  exitCode = await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${explain(error)}\n`);
  if (process.env.DEBUG_DEMO && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
} finally {
  // rtc-node's native layer keeps the event loop alive after use; release it so the process ends.
  await dispose().catch(() => {});
}
process.exit(exitCode);
