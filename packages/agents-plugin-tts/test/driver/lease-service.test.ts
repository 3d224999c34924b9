/**
 * The worker's connection budget across processes (src/budget/lease-service.ts, lease-client.ts):
 * a lease held by a process that is killed comes back, a waiter gets it, a wait that runs out
 * leaves the line, and a job process that cannot reach the service still speaks.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetKey, leaseServiceBudget } from '../../src/budget/lease-client.js';
import { type LeaseService, startLeaseService } from '../../src/budget/lease-service.js';
import { withTimeout } from './harness.js';

const KEY = budgetKey('resemble', 'test-key');

/** A separate process that takes `n` leases and says so on stdout, then waits to be killed. */
function leaseHoldingProcess(path: string, n: number): Promise<ChildProcess> {
  const script = `
    const s = require('node:net').createConnection(${JSON.stringify(path)});
    let got = 0, buf = '';
    s.setEncoding('utf8');
    s.on('data', (d) => { buf += d; for (const l of buf.split('\\n').slice(0, -1)) if (JSON.parse(l).granted && ++got === ${n}) console.log('held'); buf = buf.slice(buf.lastIndexOf('\\n') + 1); });
    for (let i = 1; i <= ${n}; i++) s.write(JSON.stringify({ op: 'take', id: i, key: ${JSON.stringify(KEY)}, wait: false }) + '\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return withTimeout(
    new Promise((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && resolve(child))),
    5000,
    'the child to hold its leases',
  );
}

async function until(condition: () => boolean, what: string): Promise<void> {
  await withTimeout(
    (async () => {
      while (!condition()) await new Promise((r) => setTimeout(r, 5));
    })(),
    5000,
    what,
  );
}

describe('lease service', () => {
  let service: LeaseService | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    await service?.close();
    service = undefined;
  });

  it("gives a killed process's leases to the turn waiting for one", async () => {
    service = await startLeaseService({ limit: 2 });
    child = await leaseHoldingProcess(service.path, 2);
    const budget = leaseServiceBudget(service.path, KEY);
    expect(await budget.tryTake()).toBeUndefined(); // spent: nice-to-have sockets do not open
    const waiting = budget.take(60_000);
    await until(() => service!.queued(KEY) === 1, 'the turn to queue');
    child.kill('SIGKILL'); // no chance to release anything: its connection drops
    const lease = await withTimeout(waiting, 5000, 'the lease');
    expect(lease).toBeDefined();
    expect(service.held(KEY)).toBe(1);
    lease!.release();
    lease!.release(); // once only
    await until(() => service!.held(KEY) === 0, 'the release');
    // Another key has its own budget.
    expect(await leaseServiceBudget(service.path, budgetKey('resemble', 'other-key')).tryTake()).toBeDefined();
  });

  it('a wait that runs out resolves without a lease and leaves the line', async () => {
    service = await startLeaseService({ limit: 1 });
    child = await leaseHoldingProcess(service.path, 1);
    const budget = leaseServiceBudget(service.path, KEY);
    expect(await budget.take(20)).toBeUndefined();
    await until(() => service!.queued(KEY) === 0, 'the withdrawal');
    const aborted = new AbortController();
    const pending = budget.take(60_000, aborted.signal);
    aborted.abort();
    expect(await pending).toBeUndefined();
    child.kill('SIGKILL');
    child = undefined;
    await until(() => service!.held(KEY) === 0, "the child's lease to come back");
    expect(service.queued(KEY)).toBe(0); // nobody was granted a lease after giving up
  });

  it('bounds the line: a turn beyond maxQueued is told at once', async () => {
    service = await startLeaseService({ limit: 1, maxQueued: 1 });
    child = await leaseHoldingProcess(service.path, 1);
    const budget = leaseServiceBudget(service.path, KEY);
    const first = budget.take(60_000);
    await until(() => service!.queued(KEY) === 1, 'the first to queue');
    expect(await budget.take(60_000)).toBeUndefined();
    child.kill('SIGKILL');
    expect(await withTimeout(first, 5000, 'the first waiter')).toBeDefined();
  });

  it('drops a connection that speaks anything but the protocol, and its leases with it', async () => {
    service = await startLeaseService({ limit: 1 });
    const rogue = createConnection(service.path).resume();
    rogue.write(`${JSON.stringify({ op: 'take', id: 1, key: KEY, wait: false })}\n`);
    await until(() => service!.held(KEY) === 1, 'the rogue lease');
    const closed = new Promise((r) => rogue.once('close', r));
    rogue.write('not json\n');
    await withTimeout(closed, 5000, 'the rogue connection to be dropped');
    expect(rogue.destroyed).toBe(true);
    await until(() => service!.held(KEY) === 0, 'its lease to come back');
    expect(service.held(KEY)).toBe(0);
  });

  it('without a reachable service, leases are granted uncounted (the per-process cap still applies)', async () => {
    const budget = leaseServiceBudget('/nonexistent/firstword/budget.sock', KEY);
    const lease = await budget.tryTake();
    expect(lease).toBeDefined();
    expect(await budget.take(10)).toBeDefined();
  });
});
