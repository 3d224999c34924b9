/**
 * Where a job process's JavaScript time goes, from the V8 CPU profiles `bench:capacity
 * --cpu-profile DIR` writes (./cpu-profile-hook.mjs): the busiest profile in DIR is the call's
 * job process; its samples after `skipS` (start-up left out) are grouped by what owns the
 * function that was running — a package, a framework file, Node's internals — and by the few
 * framework call paths a frame of caller audio takes.
 *
 *   npx tsx bench/capacity/profile-summary.ts DIR [--skip 15]
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 reports them. */
  lineNumber?: number;
  columnNumber?: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  /** Seconds the profile covers after the skipped start. */
  windowS: number;
  /** Seconds the main thread ran JavaScript, V8 or the GC in that window (not idle). */
  busyS: number;
  /** Busy seconds by owner, largest first. */
  owners: Array<{ owner: string; s: number; share: number }>;
}

/** Who owns the code a sample was in: the unit a change can be made in. */
export function ownerOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (functionName === '(program)' || functionName === '(garbage collector)') return `V8 ${functionName}`;
  if (url.includes('async_hooks')) return 'Node: async hooks (AsyncLocalStorage on Node < 24)';
  if (url.includes('webstreams')) return 'Node: web streams';
  if (url.startsWith('node:')) return `Node: ${url.slice(5).replace(/^internal\//, '')}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url);
  if (pkg) {
    const [, name, rest] = pkg;
    // The framework is big enough to name the file; a dependency is one line.
    return name === '@livekit/agents' ? `${name}: ${rest!.replace(/^dist\//, '')}` : name!;
  }
  if (url) return `firstword: ${url.replace(/^.*\/(src|dist|packages)\//, '$1/')}`;
  return functionName || '(native)';
}

const maps = new Map<string, SourceMap | undefined>();

/** The map the bundle wrote beside a file of its (scripts/bundle.mjs), if there is one. */
function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    const file = `${fileURLToPath(url)}.map`;
    maps.set(url, existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : undefined);
  }
  return maps.get(url);
}

/**
 * The frame as it was before bundling or compiling: a bundled file's chunk (`dist/chunk-*.js`)
 * names no package, its source map does (as do the maps packages ship beside their own
 * `dist/`). Frames of files without a map stay as they are.
 */
export function unbundled(frame: CallFrame): CallFrame {
  if (!frame.url.startsWith('file:') || frame.lineNumber === undefined || frame.lineNumber < 0) return frame;
  const entry = sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
  // A map names its sources relative to itself.
  return entry && 'originalSource' in entry && entry.originalSource ? { ...frame, url: new URL(entry.originalSource, frame.url).href } : frame;
}

export function summarizeProfile(file: string, skipS: number): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const busy = new Map<string, number>();
  const ownerOfNode = new Map<number, string>();
  let t = profile.startTime;
  let windowUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample stands for the interval that ends at it.
    const delta = profile.timeDeltas[i]!;
    t += delta;
    if (t - profile.startTime <= skipS * 1e6) continue;
    windowUs += delta;
    const node = byId.get(profile.samples[i]!)!;
    if (node.callFrame.functionName === '(idle)') continue;
    let owner = ownerOfNode.get(node.id);
    if (owner === undefined) ownerOfNode.set(node.id, (owner = ownerOf(unbundled(node.callFrame))));
    busy.set(owner, (busy.get(owner) ?? 0) + delta);
  }
  const busyUs = [...busy.values()].reduce((a, b) => a + b, 0);
  const owners = [...busy.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([owner, us]) => ({ owner, s: us / 1e6, share: busyUs > 0 ? us / busyUs : 0 }));
  return { file, windowS: windowUs / 1e6, busyS: busyUs / 1e6, owners };
}

/** The profile with the most samples that were not idle: the process that carried the call. */
export function busiestProfile(dir: string, skipS: number): ProfileSummary | undefined {
  const summaries = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => summarizeProfile(join(dir, f), skipS));
  return summaries.sort((a, b) => b.busyS - a.busyS)[0];
}

export function printProfileSummary(s: ProfileSummary, log: (line: string) => void, top = 15): void {
  // The window also holds the process's wait for its call: shares, not a rate, are the figure here.
  log(`CPU profile ${s.file}: the main thread was busy ${s.busyS.toFixed(2)} s in the ${s.windowS.toFixed(1)} s after its start-up`);
  for (const o of s.owners.slice(0, top)) log(`  ${o.s.toFixed(3).padStart(7)} s ${(o.share * 100).toFixed(1).padStart(5)} %  ${o.owner}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [dir, flag, value] = process.argv.slice(2);
  if (!dir || (flag !== undefined && (flag !== '--skip' || !Number.isFinite(Number(value))))) {
    process.stderr.write('usage: profile-summary.ts DIR [--skip SECONDS]\n');
    process.exit(2);
  }
  const summary = busiestProfile(dir, flag ? Number(value) : 15);
  if (!summary) {
    process.stderr.write(`no .cpuprofile in ${dir}\n`);
    process.exit(1);
  }
  printProfileSummary(summary, (line) => process.stdout.write(`${line}\n`));
}
