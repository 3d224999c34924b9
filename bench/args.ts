/** Command line of `npm run bench`: every flag validated, one clear error for the first bad one. */
import { ArgsError, readFlags } from './flags.js';
import { PROVIDERS, type Provider } from './peers/catalog.js';
import { type Condition, DEFAULT_CONDITIONS, SCENARIOS } from './scenarios.js';
import { DEFAULT_STRATEGIES, STRATEGY_NAMES, type StrategyName } from './strategies.js';

export interface BenchArgs {
  json: string | undefined;
  turns: string | undefined;
  outDir: string;
  reps: number;
  lanes: number;
  /** The LLM conditions (rate, jitter) every scenario is spoken under. */
  conditions: Condition[];
  /** Their distinct rates, fastest first (the load test uses the first). */
  tokensPerSecond: number[];
  /** Each provider's servers speak every strategy of --strategies that speaks it. */
  providers: Provider[];
  firstTokenMs: number;
  firstByteMs: number;
  realTimeFactor: number;
  msPerCharKo: number;
  msPerCharEn: number;
  gapToleranceMs: number;
  strategies: StrategyName[];
  /** Run the Python peers of --strategies (false: --no-python-peers). */
  pythonPeers: boolean;
  /** Barge-ins per strategy x scenario x rate for the stale-audio figure (0: none). */
  bargeInReps: number;
  scenarios: string[];
  loadStreams: number;
  loadRealTimeFactor: number;
  skipLoad: boolean;
  skipLatency: boolean;
  seed: number;
}

export const DEFAULT_ARGS: BenchArgs = {
  json: undefined,
  turns: undefined,
  outDir: 'out/bench',
  reps: 20,
  lanes: 40,
  conditions: [...DEFAULT_CONDITIONS],
  tokensPerSecond: [40, 15],
  providers: [...PROVIDERS],
  firstTokenMs: 300,
  firstByteMs: 120,
  realTimeFactor: 0.2,
  msPerCharKo: 110,
  msPerCharEn: 65,
  gapToleranceMs: 1,
  strategies: [...DEFAULT_STRATEGIES],
  pythonPeers: true,
  bargeInReps: 2,
  scenarios: SCENARIOS.map((s) => s.name),
  loadStreams: 100,
  loadRealTimeFactor: 0.2,
  skipLoad: false,
  skipLatency: false,
  seed: 1,
};

export const HELP = `npm run bench -- [options]

Side-by-side time to first audio, silences and boundaries of firstword's strategies (paced and
eager) and its peers (the official JS Cartesia plugin; LiveKit's Python Cartesia and Resemble
plugins and Pipecat's services, in a venv the bench builds: bench/peers/README.md), every scenario
against local Cartesia- and Resemble-protocol servers (real WebSockets on 127.0.0.1, servers in a
child process) under each LLM condition, stale audio after barge-ins, then a load test of
concurrent firstword streams. Prints tables, writes a PNG chart (and optionally JSON).

Workload
  --reps N                 repetitions of every scenario x strategy x rate   (default ${DEFAULT_ARGS.reps})
  --lanes N                concurrent calls (lanes), shared out by work        (default ${DEFAULT_ARGS.lanes})
  --tps LIST               LLM conditions, comma-separated: RATE (tokens/s, steady) or RATE~F
                           (each gap x uniform[1-F, 1+F], F in 0..0.9)          (default ${DEFAULT_ARGS.conditions.map(conditionArg).join(',')})
  --first-token-ms MS      LLM request -> first token                         (default ${DEFAULT_ARGS.firstTokenMs})
  --first-byte-ms MS       provider text -> first audio byte                  (default ${DEFAULT_ARGS.firstByteMs})
  --rtf F                  provider real-time factor (0..2)                   (default ${DEFAULT_ARGS.realTimeFactor})
  --ms-per-char-ko MS      speech per Korean character                        (default ${DEFAULT_ARGS.msPerCharKo})
  --ms-per-char-en MS      speech per English character                       (default ${DEFAULT_ARGS.msPerCharEn})
  --gap-tolerance-ms MS    playout gaps up to this are not underruns          (default ${DEFAULT_ARGS.gapToleranceMs})
  --strategies LIST        any of: ${STRATEGY_NAMES.join(', ')}
                           (default: all but the experiment firstword-min3)
  --providers LIST         any of: ${PROVIDERS.join(', ')}: each speaks the strategies that speak it (default all)
                           (livekit-cartesia and the *-cartesia peers speak Cartesia only, the
                           *-resemble peers Resemble only)
  --no-python-peers        leave out the Python peers (no venv needed)
  --barge-in-reps N        barge-ins per strategy x scenario x rate, for stale audio (default ${DEFAULT_ARGS.bargeInReps}; 0 = none)
  --scenarios LIST         subset of scenario names (or ko / en)
  --seed N                 seed of the token splitter and LLM jitter          (default ${DEFAULT_ARGS.seed})

Load
  --load-streams N         concurrent 24 kHz firstword streams in one process (default ${DEFAULT_ARGS.loadStreams})
  --load-rtf F             provider real-time factor during the load test     (default ${DEFAULT_ARGS.loadRealTimeFactor})
  --skip-load              latency only
  --skip-latency           load only

Output
  --json FILE              write {scenarios: [...], load: {...}}
  --turns FILE             write every measured turn (JSON lines)
  --out DIR                chart directory                                    (default ${DEFAULT_ARGS.outDir})
  --help                   this text
`;

export { ArgsError } from './flags.js';

function conditionArg(c: Condition): string {
  return c.jitter > 0 ? `${c.tokensPerSecond}~${c.jitter}` : String(c.tokensPerSecond);
}

function parseConditions(raw: string): Condition[] {
  const conditions = raw.split(',').map((entry) => {
    const [rate, jitter = '0', extra] = entry.trim().split('~');
    const c = { tokensPerSecond: Number(rate), jitter: Number(jitter) };
    const ok = extra === undefined && Number.isFinite(c.tokensPerSecond) && c.tokensPerSecond >= 1 && c.tokensPerSecond <= 1000 && c.jitter >= 0 && c.jitter <= 0.9;
    if (!ok) throw new ArgsError(`--tps entries are RATE or RATE~JITTER, rates in [1, 1000], jitter in [0, 0.9] (got ${JSON.stringify(entry)})`);
    return c;
  });
  return conditions.filter((c, i) => conditions.findIndex((d) => conditionArg(d) === conditionArg(c)) === i);
}

export function parseArgs(argv: readonly string[]): BenchArgs | 'help' {
  const args: BenchArgs = { ...DEFAULT_ARGS };
  const scenarioNames = SCENARIOS.map((s) => s.name);
  const help = readFlags(argv, (read) => {
    switch (read.flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--json':
        args.json = read.value();
        break;
      case '--turns':
        args.turns = read.value();
        break;
      case '--out':
        args.outDir = read.value();
        break;
      case '--reps':
        args.reps = read.num(1, 1000, true);
        break;
      case '--lanes':
        args.lanes = read.num(1, 256, true);
        break;
      case '--tps':
        args.conditions = parseConditions(read.value());
        args.tokensPerSecond = [...new Set(args.conditions.map((c) => c.tokensPerSecond))];
        break;
      case '--providers':
        args.providers = pickList(read.value(), PROVIDERS, read.flag);
        break;
      case '--first-token-ms':
        args.firstTokenMs = read.num(0, 10_000);
        break;
      case '--first-byte-ms':
        args.firstByteMs = read.num(0, 10_000);
        break;
      case '--rtf':
        args.realTimeFactor = read.num(0, 2);
        break;
      case '--ms-per-char-ko':
        args.msPerCharKo = read.num(1, 1000);
        break;
      case '--ms-per-char-en':
        args.msPerCharEn = read.num(1, 1000);
        break;
      case '--gap-tolerance-ms':
        args.gapToleranceMs = read.num(0, 1000);
        break;
      case '--strategies':
        args.strategies = pickList(read.value(), STRATEGY_NAMES, read.flag);
        break;
      case '--no-python-peers':
        args.pythonPeers = false;
        break;
      case '--barge-in-reps':
        args.bargeInReps = read.num(0, 100, true);
        break;
      case '--scenarios':
        args.scenarios = read.scenarios(scenarioNames);
        break;
      case '--seed':
        args.seed = read.num(0, 2 ** 31, true);
        break;
      case '--load-streams':
        args.loadStreams = read.num(1, 1000, true);
        break;
      case '--load-rtf':
        args.loadRealTimeFactor = read.num(0, 2);
        break;
      case '--skip-load':
        args.skipLoad = true;
        break;
      case '--skip-latency':
        args.skipLatency = true;
        break;
      default:
        throw new ArgsError(`unknown option ${read.flag} (see --help)`);
    }
  });
  if (help) return 'help';
  if (args.skipLoad && args.skipLatency) throw new ArgsError('--skip-load and --skip-latency together leave nothing to run');
  return args;
}

function pickList<T extends string>(raw: string, known: readonly T[], flag: string): T[] {
  const wanted = raw.split(',').map((s) => s.trim());
  const unknown = wanted.filter((w) => !(known as readonly string[]).includes(w));
  if (unknown.length || wanted.length === 0) throw new ArgsError(`${flag}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return known.filter((k) => wanted.includes(k));
}
