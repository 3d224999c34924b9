import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostCpu } from '../../src/lifecycle/host-cpu.js';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A stand-in for `/` holding the given files. */
function fakeRoot(files: Record<string, string>): { root: string; write: (path: string, text: string) => void } {
  const root = mkdtempSync(join(tmpdir(), 'host-cpu-'));
  roots.push(root);
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  return { root, write };
}

const statLine = (user: number, idle: number, steal = 0) => `cpu  ${user} 0 0 ${idle} 0 0 0 ${steal} 0 0\ncpu0 ${user} 0 0 ${idle} 0 0 0 0 0 0\n`;

describe('the CPU the calls run on', () => {
  it('is the whole host without a quota: busy share from /proc/stat, steal counted as busy', () => {
    const { root, write } = fakeRoot({ 'proc/stat': statLine(100, 100), 'sys/fs/cgroup/cpu.max': 'max 100000\n' });
    const cpu = hostCpu({ root });
    expect(cpu).toEqual(expect.objectContaining({ source: 'host cores', cores: availableParallelism() }));
    const a = cpu.read();
    write('proc/stat', statLine(130, 150, 20)); // +30 user, +50 idle, +20 steal
    const b = cpu.read();
    expect((b.busyMs - a.busyMs) / (b.capacityMs - a.capacityMs)).toBeCloseTo(0.5);
  });

  it("is a container's cgroup v2 quota when set: its usage against quota × wall time", () => {
    const { root, write } = fakeRoot({ 'sys/fs/cgroup/cpu.max': '150000 100000\n', 'sys/fs/cgroup/cpu.stat': 'usage_usec 5000000\nuser_usec 1\n' });
    let t = 0;
    const cpu = hostCpu({ root, now: () => t });
    expect(cpu).toEqual(expect.objectContaining({ source: 'cgroup quota', cores: 1.5 }));
    t = 10_000;
    write('sys/fs/cgroup/cpu.stat', 'usage_usec 12500000\nuser_usec 1\n'); // 7.5 CPU-s in 10 s on 1.5 cores
    const r = cpu.read();
    expect(r.busyMs / r.capacityMs).toBeCloseTo(0.5);
  });

  it('is a cgroup v1 CFS quota when set, and the host when the quota is -1 (none)', () => {
    const v1 = { 'sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n', 'sys/fs/cgroup/cpuacct/cpuacct.usage': '1000000000\n', 'proc/stat': statLine(1, 1) };
    const limited = hostCpu({ root: fakeRoot({ ...v1, 'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '400000\n' }).root });
    expect(limited).toEqual(expect.objectContaining({ source: 'cgroup quota', cores: 4 }));
    const unlimited = hostCpu({ root: fakeRoot({ ...v1, 'sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n' }).root });
    expect(unlimited).toEqual(expect.objectContaining({ source: 'host cores', cores: availableParallelism() }));
  });

  it('reads this machine: counters that only grow, busy within capacity', () => {
    const cpu = hostCpu();
    const a = cpu.read();
    for (let i = 0; i < 2e6; i++) Math.sqrt(i); // some CPU between the readings
    const b = cpu.read();
    expect(cpu.cores).toBeGreaterThan(0);
    expect(b.capacityMs).toBeGreaterThanOrEqual(a.capacityMs);
    expect(b.busyMs - a.busyMs).toBeGreaterThanOrEqual(0);
    expect(b.busyMs - a.busyMs).toBeLessThanOrEqual(b.capacityMs - a.capacityMs);
  });
});
