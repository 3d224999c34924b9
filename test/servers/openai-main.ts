/**
 * The local OpenAI server as its own process (for a network namespace or a benchmark's child):
 *
 *   npx tsx test/servers/openai-main.ts --port 0 [--first-token-ms N] [--tokens-per-second N]
 *     [--transcription-delay-ms N] [--delta-lag-ms N] [--final-after-commit-ms N]
 *     [--script file.json] [--api-key KEY]...
 *
 * Prints exactly one line, `{"url":"http://127.0.0.1:PORT/v1","port":PORT}`, once it listens;
 * everything else goes to stderr. SIGTERM / SIGINT close it and exit 0.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type OpenAIServerOptions, parseScriptJson, startOpenAIServer } from './openai-server.js';

function number(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < min) throw new Error(`--${name} must be a number >= ${min} (got "${value}")`);
  return parsed;
}

function readOptions(argv: string[]): Partial<OpenAIServerOptions> & { port?: number } {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      'first-token-ms': { type: 'string' },
      'tokens-per-second': { type: 'string' },
      'transcription-delay-ms': { type: 'string' },
      'delta-lag-ms': { type: 'string' },
      'final-after-commit-ms': { type: 'string' },
      script: { type: 'string' },
      'api-key': { type: 'string', multiple: true },
    },
  });
  const options: Partial<OpenAIServerOptions> & { port?: number } = {};
  const port = number('port', values.port, 0);
  if (port !== undefined) options.port = port;
  const firstToken = number('first-token-ms', values['first-token-ms'], 0);
  if (firstToken !== undefined) options.firstTokenDelayMs = firstToken;
  const tps = number('tokens-per-second', values['tokens-per-second'], Number.MIN_VALUE);
  if (tps !== undefined) options.tokensPerSecond = tps;
  const delay = number('transcription-delay-ms', values['transcription-delay-ms'], 0);
  if (delay !== undefined) options.transcriptionDelayMs = delay;
  const lag = number('delta-lag-ms', values['delta-lag-ms'], 0);
  if (lag !== undefined) options.deltaLagMs = lag;
  const final = number('final-after-commit-ms', values['final-after-commit-ms'], 0);
  if (final !== undefined) options.finalAfterCommitMs = final;
  if (values['api-key']) options.apiKeys = values['api-key'];
  if (values.script) {
    const parsed = parseScriptJson(JSON.parse(readFileSync(values.script, 'utf8')) as unknown);
    if (!parsed.ok) throw new Error(`${values.script}: ${parsed.message}`);
    options.script = parsed.script;
  }
  return options;
}

async function main(): Promise<void> {
  const server = await startOpenAIServer(readOptions(process.argv.slice(2)));
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`openai-main: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
