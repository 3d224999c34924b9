/** Command line of `npm run bench:room`: every flag validated, one clear error for the first bad one. */
import { ArgsError, readFlags } from '../flags.js';
import { SCENARIOS } from '../scenarios.js';

export interface RoomArgs {
  /** Measured turns per strategy (warm-ups and barge-ins not counted). */
  turns: number;
  /** Barge-in turns per strategy. */
  bargeIns: number;
  seed: number;
  json: string | undefined;
  outDir: string;
  scenarios: string[];
  firstTokenMs: number;
  tokensPerSecond: number;
  firstByteMs: number;
  realTimeFactor: number;
  msPerCharKo: number;
  msPerCharEn: number;
  /** RMS (of 32767) at or above which a received 10 ms frame counts as speech. */
  threshold: number;
}

/** Short and long first sentences in both languages. */
const DEFAULT_SCENARIOS = [
  'en-one-sentence',
  'en-short-first',
  'en-short-clause',
  'en-long-first',
  'ko-one-sentence',
  'ko-short-first',
  'ko-short-clause',
  'ko-long-first',
];

export const DEFAULT_ROOM_ARGS: RoomArgs = {
  turns: 32,
  bargeIns: 10,
  seed: 1,
  json: undefined,
  outDir: 'out/bench',
  scenarios: DEFAULT_SCENARIOS,
  firstTokenMs: 300,
  tokensPerSecond: 40,
  firstByteMs: 120,
  realTimeFactor: 0.2,
  msPerCharKo: 110,
  msPerCharEn: 65,
  threshold: 500,
};

const D = DEFAULT_ROOM_ARGS;

export const ROOM_HELP = `npm run bench:room -- [options]

The caller's wait through a real LiveKit SFU: a participant (rtc-node, inside the stack's network
namespace) speaks eSpeak speech into a room; the production worker (src/agent.ts start) answers
with firstword (TTS_PROVIDER=cartesia) in one room and LiveKit's Cartesia plugin
(TTS_PROVIDER=cartesia-livekit) in another, against the same Cartesia-protocol fake and the same
OpenAI fake serving identical token traces. Measured from the last voiced sample published: first
sound (the first agent frame with speech energy received: the acknowledgement or the reply) and
first content (the reply's own first frame, told from the acknowledgement by the fake's tones), as
the caller heard them and as the worker logged them; each stage (the worker's "turn latency"
lines, joined by the caller's end of speech: the run fails when most turns find no line); and
barge-in (caller starts talking -> agent's track silent for 100 ms). Prints a table, writes a PNG
chart (out/bench/room.png) and optionally JSON. Needs the stack (bash scripts/livekit/install.sh,
root).

Workload
  --turns N              measured turns per strategy                         (default ${D.turns})
  --barge-ins N          barge-in turns per strategy                         (default ${D.bargeIns})
  --seed S               seed of the token traces and the turn order         (default ${D.seed})
  --scenarios LIST       scenario names or ko / en                           (default ${D.scenarios.join(',')})
  --first-token-ms MS    LLM request -> first token                          (default ${D.firstTokenMs})
  --tps N                LLM tokens per second after the first               (default ${D.tokensPerSecond})
  --first-byte-ms MS     Cartesia fake: text -> first audio                  (default ${D.firstByteMs})
  --rtf F                Cartesia fake: real-time factor                     (default ${D.realTimeFactor})
  --ms-per-char-ko MS    Cartesia fake: speech per Korean character          (default ${D.msPerCharKo})
  --ms-per-char-en MS    Cartesia fake: speech per English character         (default ${D.msPerCharEn})
  --threshold RMS        speech energy of a received frame (of 32767)        (default ${D.threshold})

Output
  --json FILE            write {strategies: [...], overall, ratios, bargeIn, turns, config}
  --out DIR              chart directory (room.png)                          (default ${D.outDir})
  --help                 this text
`;

export { ArgsError } from '../flags.js';

export function parseRoomArgs(argv: readonly string[]): RoomArgs | 'help' {
  const args: RoomArgs = { ...DEFAULT_ROOM_ARGS };
  const names = SCENARIOS.map((s) => s.name);
  const help = readFlags(argv, (read) => {
    switch (read.flag) {
      case '--help':
      case '-h':
        return 'help';
      case '--turns':
        args.turns = read.num(1, 1000, true);
        break;
      case '--barge-ins':
        args.bargeIns = read.num(0, 1000, true);
        break;
      case '--seed':
        args.seed = read.num(0, 2 ** 31, true);
        break;
      case '--json':
        args.json = read.value();
        break;
      case '--out':
        args.outDir = read.value();
        break;
      case '--scenarios':
        args.scenarios = read.scenarios(names);
        break;
      case '--first-token-ms':
        args.firstTokenMs = read.num(0, 10_000);
        break;
      case '--tps':
        args.tokensPerSecond = read.num(1, 1000);
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
      case '--threshold':
        args.threshold = read.num(1, 32767);
        break;
      default:
        throw new ArgsError(`unknown option ${read.flag} (see --help)`);
    }
  });
  if (help) return 'help';
  return args;
}
