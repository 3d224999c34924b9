import { parseArgs } from 'node:util';
import { REPLAY_DEFAULTS } from './replay-defaults.js';
import { type DemoTurn, SAMPLE_TURNS } from './samples.js';

export interface DemoArgs {
  help: boolean;
  turns: DemoTurn[];
  /** True when the turns are the built-in samples rather than the user's text. */
  samples: boolean;
  outDir: string;
  firstTokenDelayMs: number;
  tokensPerSecond: number;
  /** Typed turns instead of spoken ones. */
  typed: boolean;
  /** Spoken turns: the scripted STT's final, ms after the caller's last voiced sample. */
  sttFinalAfterMs: number;
}

export const DEMO_USAGE = `Usage: npm run demo [-- [options] ["your text" ...]]

Runs the voice pipeline offline (no LiveKit room, no microphone): each text is spoken by the local
voice and heard as the caller's audio — through the real Silero VAD and the worker's turn taking,
with a scripted STT that knows the words — the agent answers through the production TTS client,
and what the caller would hear is recorded. Times are on the caller's clock: from the last voiced
sample of their speech. Without text, three built-in samples run: a Korean question, an English
question, and an answer that is interrupted mid-sentence (barge-in).

Options:
  --out <dir>                 where WAVs, report.json and waterfall.png go (default: out/demo)
  --first-token-ms <ms>       replay model: delay before the first token (default: ${REPLAY_DEFAULTS.firstTokenDelayMs})
  --tokens-per-second <n>     replay model: streaming rate (default: ${REPLAY_DEFAULTS.tokensPerSecond})
  --stt-final-ms <ms>         scripted STT: final transcript this long after the caller's last voiced sample (default: 150)
  --typed                     type the turns instead (times from the request; no VAD, no turn taking)
  -h, --help                  show this help

LLM: OpenAI when OPENAI_API_KEY is set, otherwise a replay model with canned answers.
TTS: Resemble or Cartesia when their keys are set, otherwise the embedded local voice.
Set LOG_LEVEL (e.g. warn) to see the LiveKit framework's own log lines.`;

/** A mistake in the command line: print the message (and the usage), not a stack trace. */
export class DemoUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DemoUsageError';
  }
}

const MAX_TEXT_CHARS = 2000;

export function parseDemoArgs(argv: readonly string[]): DemoArgs {
  let parsed: ReturnType<typeof parseWithNode>;
  try {
    parsed = parseWithNode(argv);
  } catch (error) {
    throw new DemoUsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const texts = positionals.map((text) => text.trim());
  texts.forEach((text, i) => {
    if (text === '') throw new DemoUsageError(`Text ${i + 1} is empty: give the words the user says.`);
    if (text.length > MAX_TEXT_CHARS) throw new DemoUsageError(`Text ${i + 1} is longer than ${MAX_TEXT_CHARS} characters.`);
  });
  return {
    help: values.help ?? false,
    turns: texts.length > 0 ? texts.map((prompt, i) => ({ name: `text-${i + 1}`, prompt })) : SAMPLE_TURNS.map((t) => ({ ...t })),
    samples: texts.length === 0,
    outDir: nonEmpty(values.out, '--out') ?? 'out/demo',
    firstTokenDelayMs: numberOption(values['first-token-ms'], '--first-token-ms', 0, 10_000) ?? REPLAY_DEFAULTS.firstTokenDelayMs,
    tokensPerSecond: numberOption(values['tokens-per-second'], '--tokens-per-second', 1, 1000) ?? REPLAY_DEFAULTS.tokensPerSecond,
    typed: values.typed ?? false,
    sttFinalAfterMs: numberOption(values['stt-final-ms'], '--stt-final-ms', 0, 5000) ?? 150,
  };
}

function parseWithNode(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      out: { type: 'string' },
      'first-token-ms': { type: 'string' },
      'tokens-per-second': { type: 'string' },
      'stt-final-ms': { type: 'string' },
      typed: { type: 'boolean' },
    },
  });
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === '') throw new DemoUsageError(`${flag} needs a value.`);
  return value;
}

function numberOption(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new DemoUsageError(`${flag} must be a number from ${min} to ${max} (got ${JSON.stringify(value)}).`);
  }
  return n;
}
