/**
 * The run's own network: `ip netns` plus a veth pair with both ends inside. Every `ip` call is
 * bounded; a namespace that was half set up is deleted before the error is reported.
 */
import { spawnSync } from 'node:child_process';
import { type NodeLayout, nodeLayout } from './layout.js';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runSync(cmd: string, args: string[], timeoutMs = 10_000): CommandResult {
  const result = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') {
    return { code: 127, stdout: '', stderr: `${cmd}: command not found` };
  }
  return { code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') };
}

function ip(args: string[]): void {
  const result = runSync('ip', args);
  if (result.code !== 0) throw new Error(`ip ${args.join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
}

/** A namespace with one veth pair per livekit-server node (`nodes`, default just node 0's). */
export function createNamespace(name: string, nodes: NodeLayout[] = [nodeLayout(0)]): void {
  ip(['netns', 'add', name]);
  try {
    ip(['-n', name, 'link', 'set', 'lo', 'up']);
    for (const node of nodes) {
      const [a, b] = node.interfaces;
      ip(['-n', name, 'link', 'add', a, 'type', 'veth', 'peer', 'name', b]);
      node.interfaces.forEach((dev, i) => ip(['-n', name, 'addr', 'add', node.addresses[i], 'dev', dev]));
      for (const dev of node.interfaces) ip(['-n', name, 'link', 'set', dev, 'up']);
    }
  } catch (error) {
    deleteNamespace(name);
    throw error;
  }
}

/** Deleting the namespace also destroys the veth pair, which never left it. */
export function deleteNamespace(name: string): void {
  if (!listNamespaces().includes(name)) return;
  const result = runSync('ip', ['netns', 'del', name]);
  // Someone else (a concurrent down) may have deleted it in between: only a survivor is an error.
  if (result.code !== 0 && listNamespaces().includes(name)) {
    throw new Error(`ip netns del ${name} failed: ${result.stderr.trim()}`);
  }
}

export function listNamespaces(): string[] {
  const result = runSync('ip', ['netns', 'list']);
  if (result.code !== 0) return [];
  // Lines look like "name (id: 3)" or just "name".
  return result.stdout.split('\n').map((line) => line.trim().split(/\s+/)[0] ?? '').filter(Boolean);
}

/** Every process whose network namespace is `name`: whatever the run started, and their children. */
export function namespacePids(name: string): number[] {
  const result = runSync('ip', ['netns', 'pids', name]);
  if (result.code !== 0) return [];
  return result.stdout.split(/\s+/).filter(Boolean).map(Number).filter((pid) => pid !== process.pid);
}

/** argv that runs `cmd` inside the namespace (`ip netns exec` execs, so the PID is the command's). */
export function inNamespace(name: string, cmd: string, args: string[]): [string, string[]] {
  return ['ip', ['netns', 'exec', name, cmd, ...args]];
}
