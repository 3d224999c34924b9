/**
 * bench:capacity's profile summary: samples before the skipped start-up are left out, idle ones
 * never count, and every busy sample lands with the owner of the function it was in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { busiestProfile, ownerOf, summarizeProfile, unbundled } from '../../bench/capacity/profile-summary.js';

const dir = mkdtempSync(join(tmpdir(), 'fw-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const frames = {
  1: { functionName: '(root)', url: '' },
  2: { functionName: '(idle)', url: '' },
  3: { functionName: 'mergeFrames', url: 'file:///app/node_modules/@livekit/agents/dist/utils.js' },
  4: { functionName: 'run', url: 'file:///app/node_modules/onnxruntime-node/dist/backend.js' },
  5: { functionName: 'promiseInitHook', url: 'node:internal/async_hooks' },
  6: { functionName: 'frame', url: 'file:///app/dist/latency/voice-arrival.js' },
};

/** One sample per entry of `ids`, 1 ms apart. */
function writeProfile(name: string, ids: number[]): string {
  const file = join(dir, name);
  const nodes = Object.entries(frames).map(([id, callFrame]) => ({ id: Number(id), callFrame, ...(id === '1' ? { children: [2, 3, 4, 5, 6] } : {}) }));
  writeFileSync(file, JSON.stringify({ nodes, startTime: 0, samples: ids, timeDeltas: ids.map(() => 1000) }));
  return file;
}

describe('CPU profile summary', () => {
  it('names who owns the running code', () => {
    expect(ownerOf(frames[3])).toBe('@livekit/agents: utils.js');
    expect(ownerOf(frames[4])).toBe('onnxruntime-node');
    expect(ownerOf(frames[5])).toMatch(/^Node: async hooks/);
    expect(ownerOf(frames[6])).toBe('firstword: dist/latency/voice-arrival.js');
    expect(ownerOf({ functionName: '(garbage collector)', url: '' })).toBe('V8 (garbage collector)');
  });

  it('counts busy samples after the skipped start-up, by owner, largest first', () => {
    // 3 ms of start-up (2 of them busy), then 10 ms: 4 idle, 3 onnx, 2 merge, 1 hook.
    const file = writeProfile('a.cpuprofile', [3, 3, 2, 2, 2, 2, 2, 4, 4, 4, 3, 3, 5]);
    const s = summarizeProfile(file, 0.003);
    expect(s.busyS).toBeCloseTo(0.006, 6);
    expect(s.owners.map((o) => [o.owner, Math.round(o.s * 1000)])).toEqual([
      ['onnxruntime-node', 3],
      ['@livekit/agents: utils.js', 2],
      ['Node: async hooks (AsyncLocalStorage on Node < 24)', 1],
    ]);
    expect(s.owners[0]!.share).toBeCloseTo(0.5, 6);
  });

  it('names the package or source file of a bundled line from the map beside the bundle', () => {
    const bundle = join(dir, 'chunk-TEST.js');
    writeFileSync(bundle, 'a();\nb();\n');
    // Line 0 came from the framework, line 1 from our source (as esbuild writes `sources`).
    const sources = ['../node_modules/@livekit/agents/dist/utils.js', '../src/latency/voice-arrival.ts'];
    writeFileSync(`${bundle}.map`, JSON.stringify({ version: 3, sources, names: [], mappings: 'AAAA;ACAA' }));
    const url = pathToFileURL(bundle).href;
    expect(ownerOf(unbundled({ functionName: 'a', url, lineNumber: 0, columnNumber: 2 }))).toBe('@livekit/agents: utils.js');
    expect(ownerOf(unbundled({ functionName: 'b', url, lineNumber: 1, columnNumber: 0 }))).toBe('firstword: src/latency/voice-arrival.ts');
    // Without a map, and for Node's own code, the frame is left as it was.
    const bare = { functionName: 'c', url: pathToFileURL(join(dir, 'plain.js')).href, lineNumber: 0, columnNumber: 0 };
    expect(unbundled(bare)).toBe(bare);
    expect(unbundled(frames[5])).toBe(frames[5]);
  });

  it('picks the process that was busiest as the call', () => {
    writeProfile('idle.cpuprofile', [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3]);
    expect(busiestProfile(dir, 0.003)!.file).toBe(join(dir, 'a.cpuprofile'));
  });
});
