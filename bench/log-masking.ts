/**
 * Log masking microbenchmark (not a test): the cost per line of masking phone numbers
 * (src/sip/log-privacy.ts) and of the whole stdout guard (src/log-output: masking and the repeat
 * limiter), on lines shaped like the framework's, most of which carry no phone number. Several
 * rounds; the median and the fastest round are reported, in ns per line.
 *
 *   npm run bench:log-masking [-- --json out.json]
 */
import { writeFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { guardLogOutput } from '../src/log-output/guard.js';
import { maskPhoneNumbersIn } from '../src/sip/log-privacy.js';

/** pino's JSON lines as a job process writes them: no phone number in the common case. */
const PLAIN_LINES = [
  '{"level":30,"time":1796130224307,"pid":10828,"hostname":"host","jobId":"AJ_x8Yk2mQp","msg":"job process ready","startMs":4210}\n',
  '{"level":40,"time":1796130224311,"pid":10828,"hostname":"host","delay":233,"msg":"VAD inference is slower than realtime"}\n',
  '{"level":30,"time":1796130224412,"pid":10828,"hostname":"host","turn":3,"firstSoundMs":412.5,"firstContentMs":655.1,"msg":"turn report"}\n',
  '{"level":20,"time":1796130224500,"pid":10828,"hostname":"host","participant":"caller-3f9a","room":"web-9b2c","msg":"user turn committed","transcript":"Please tell me a story."}\n',
];
/** Lines that do carry a number (a SIP caller's identity). */
const NUMBER_LINES = [
  '{"level":30,"time":1796130224307,"pid":10828,"lk.pii.participant_identity":"sip_+15557654321","trackPublications":[{"info":{"name":"sip_+15557654321"}}],"msg":"closing agent session"}\n',
];

function nsPerLine(lines: string[], apply: (line: string) => unknown, rounds: number, perRound: number): { medianNs: number; fastestNs: number } {
  const results: number[] = [];
  let sink = 0;
  for (let round = 0; round < rounds; round += 1) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perRound; i += 1) {
      const out = apply(lines[i % lines.length]!);
      if (out) sink += 1;
    }
    results.push(Number(process.hrtime.bigint() - start) / perRound);
  }
  if (sink < 0) console.log(sink);
  results.sort((a, b) => a - b);
  return { medianNs: Math.round(results[Math.floor(results.length / 2)]!), fastestNs: Math.round(results[0]!) };
}

const nullStream = new Writable({ write: (_chunk, _encoding, callback) => callback() }) as unknown as NodeJS.WriteStream;
guardLogOutput(nullStream);

const ROUNDS = 15;
const PER_ROUND = 200_000;
// Warm-up: let the JIT settle before measuring.
nsPerLine(PLAIN_LINES, maskPhoneNumbersIn, 3, PER_ROUND);
const figures = {
  node: process.version,
  rounds: ROUNDS,
  linesPerRound: PER_ROUND,
  maskPlainLine: nsPerLine(PLAIN_LINES, maskPhoneNumbersIn, ROUNDS, PER_ROUND),
  maskLineWithNumber: nsPerLine(NUMBER_LINES, maskPhoneNumbersIn, ROUNDS, PER_ROUND / 4),
  writePlainLine: nsPerLine(PLAIN_LINES, (line) => nullStream.write(line), ROUNDS, PER_ROUND),
};
console.log(JSON.stringify(figures, null, 2));
const jsonAt = process.argv.indexOf('--json');
if (jsonAt !== -1 && process.argv[jsonAt + 1]) writeFileSync(process.argv[jsonAt + 1]!, `${JSON.stringify(figures, null, 2)}\n`);
