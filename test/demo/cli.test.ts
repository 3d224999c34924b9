/**
 * `npm run demo` as a person meets it: every expected failure is one readable message on stderr
 * and a non-zero exit, never a stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX_LOADER = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const MAIN = path.join(ROOT, 'src/demo/main.ts');
const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

let cwd: string;

beforeAll(async () => {
  // An empty directory, so the repository's own .env cannot leak into these runs.
  cwd = await mkdtemp(path.join(tmpdir(), 'firstword-demo-cli-'));
});

afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function runDemoCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, MAIN, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('npm run demo: arguments and start-up failures', () => {
  it('prints the usage for --help and exits 0', async () => {
    const { code, stdout } = await runDemoCli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: npm run demo');
    expect(stdout).toContain('OPENAI_API_KEY');
  });

  it('rejects an unknown option with the usage and no stack trace', async () => {
    const { code, stderr } = await runDemoCli(['--loud']);
    expect(code).toBe(1);
    expect(stderr).toContain("Unknown option '--loud'");
    expect(stderr).toContain('Usage: npm run demo');
    expect(stderr).not.toMatch(STACK_LINE);
  });

  it('names the port when the local voice cannot listen on it', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const { code, stderr } = await runDemoCli(['Hello.'], { LOCAL_VOICE_PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr).toContain(`127.0.0.1:${port}`);
      expect(stderr).toContain('already in use');
      expect(stderr).not.toMatch(STACK_LINE);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
