/** `npm run bench:capacity` options; a bad one is a clear error, never a silent default. */
export interface CapacityArgs {
  steps: number[];
  turns: number;
  maxCalls: number;
  tts: 'cartesia' | 'local';
  json?: string;
  maxMinutes: number;
  fullProbe: boolean;
  /** Also run every step through a stock agents-js worker (./stock-agent.ts) and report ours / stock. */
  compare?: 'stock';
  /**
   * Writes a V8 CPU profile of every worker process into this folder, one subfolder per worker
   * (`firstword`, `stock`; ./cpu-profile-hook.mjs, inherited by the job processes), and prints
   * where each worker's call process spent its main thread. Profiling costs CPU itself: a run with
   * it says where time goes, not how much.
   */
  cpuProfileDir?: string;
  /** The Node binary both workers run on (default: this one's), e.g. `$(bash scripts/ensure-node.sh 24)`. */
  nodeBinary?: string;
}

export function parseArgs(argv: string[]): CapacityArgs {
  const args: CapacityArgs = { steps: [1, 2, 4, 6], turns: 3, maxCalls: 6, tts: 'cartesia', maxMinutes: 20, fullProbe: true };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const int = (min: number, max: number) => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${flag} needs an integer ${min}–${max} (got ${value})`);
      i++;
      return n;
    };
    if (flag === '--steps') {
      args.steps = (value ?? '').split(',').map(Number);
      if (args.steps.length === 0 || args.steps.some((n) => !Number.isInteger(n) || n < 1 || n > 16) || args.steps[0] !== 1) {
        throw new Error('--steps needs rising call counts 1–16 starting at 1 (the baseline), e.g. 1,2,4,6');
      }
      i++;
    } else if (flag === '--turns') args.turns = int(1, 10);
    else if (flag === '--max-calls') args.maxCalls = int(1, 16);
    else if (flag === '--max-minutes') args.maxMinutes = int(2, 60);
    else if (flag === '--tts') {
      if (value !== 'cartesia' && value !== 'local') throw new Error('--tts must be cartesia or local');
      args.tts = value;
      i++;
    } else if (flag === '--compare') {
      if (value !== 'stock') throw new Error('--compare takes stock (a stock agents-js worker on the same stack)');
      args.compare = value;
      i++;
    } else if (flag === '--json') args.json = (i++, value);
    else if (flag === '--cpu-profile') {
      if (!value || value.startsWith('--')) throw new Error('--cpu-profile needs a folder for the profiles');
      args.cpuProfileDir = value;
      i++;
    } else if (flag === '--node') {
      if (!value || value.startsWith('--')) throw new Error('--node needs the path of a Node binary');
      args.nodeBinary = value;
      i++;
    } else if (flag === '--no-full-probe') args.fullProbe = false;
    else throw new Error(`unknown option ${flag}`);
  }
  if (args.compare && args.tts !== 'cartesia') throw new Error('--compare stock needs --tts cartesia: the stock worker speaks through LiveKit\'s Cartesia plugin');
  return args;
}
