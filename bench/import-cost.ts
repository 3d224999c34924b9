/**
 * What loading the job process's code costs, module by module (~870 ES modules, as the worker
 * ran before it was bundled: ./unbundled-agent.ts) and as the bundle the build makes
 * (scripts/bundle.mjs, dist/agent.js). Not a test: it sizes how much of a job process's start-up
 * is module loading rather than work.
 *
 * Each sample is a fresh Node process that imports the agent's file (importing it starts
 * nothing: the worker starts only when it is the main module) with `npm start`'s Node flags, and
 * prints the CPU (user + system, all threads) and RSS that the import added. The two alternate.
 *
 *   npm run build && npm run bench:import-cost [-- --samples 6 --node BIN --json out.json]
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { BUNDLED_AGENT as BUNDLE, ROOT, START_FLAGS, arg, median } from './job-process.js';
import { writeUnbundledAgent } from './unbundled-agent.js';
const SAMPLES = Number(arg('--samples') ?? 6);
const NODE = arg('--node') ?? process.execPath;
const JSON_OUT = arg('--json');
if (!Number.isInteger(SAMPLES) || SAMPLES < 1) throw new Error(`--samples must be a whole number ≥ 1, not ${arg('--samples')}`);

interface Sample {
  cpuMs: number;
  rssMb: number;
}

/** The child: import, then report what the import cost. */
const PROBE = `
const cpu = process.cpuUsage();
const rss = process.memoryUsage().rss;
await import(process.argv[1]);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ cpuMs: (used.user + used.system) / 1000, rssMb: (process.memoryUsage().rss - rss) / 2 ** 20 }));
process.exit(0);
`;

function measure(entry: string): Sample {
  const out = execFileSync(NODE, [...START_FLAGS, '--input-type=module', '-e', PROBE, pathToFileURL(entry).href], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Sample;
}

const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;

const modules = await writeUnbundledAgent(ROOT);
const version = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
const samples: Record<'modules' | 'bundled', Sample[]> = { modules: [], bundled: [] };
// One unmeasured import each: the first read of every file from disk is not what a warm worker pays.
measure(modules);
measure(BUNDLE);
for (let i = 0; i < SAMPLES; i++) {
  samples.modules.push(measure(modules));
  samples.bundled.push(measure(BUNDLE));
}

const cpu = { modules: median(samples.modules.map((s) => s.cpuMs)), bundled: median(samples.bundled.map((s) => s.cpuMs)) };
const rss = { modules: median(samples.modules.map((s) => s.rssMb)), bundled: median(samples.bundled.map((s) => s.rssMb)) };
console.log(`Importing the agent on Node ${version}, ${SAMPLES} samples each, flags ${START_FLAGS.join(' ')}`);
console.log(`  CPU   modules ${Math.round(cpu.modules)} ms (${range(samples.modules.map((s) => s.cpuMs))}), bundled ${Math.round(cpu.bundled)} ms (${range(samples.bundled.map((s) => s.cpuMs))}): bundled/modules ×${(cpu.bundled / cpu.modules).toFixed(2)}`);
console.log(`  RSS   modules +${Math.round(rss.modules)} MB, bundled +${Math.round(rss.bundled)} MB: bundled/modules ×${(rss.bundled / rss.modules).toFixed(2)}`);
if (JSON_OUT) writeFileSync(JSON_OUT, `${JSON.stringify({ node: version, flags: START_FLAGS, samples, median: { cpu, rss } }, null, 2)}\n`);
