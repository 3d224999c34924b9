import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A directory the worker makes before it forks any job process, hands them through their
 * environment (`share`), and removes with what they wrote when it exits. mkdtemp makes it
 * readable and writable by this user only: job processes run what they find there (compiled code,
 * a model's graph) or play it to callers (acknowledgements). Without it calls go on: `withoutIt`
 * says what each then pays.
 *
 * @returns the directory's path, or undefined when it could not be made.
 */
export function shareWorkerDir(prefix: string, share: (path: string) => void, withoutIt: string): string | undefined {
  try {
    const path = mkdtempSync(join(tmpdir(), prefix));
    share(path);
    process.once('exit', () => rmSync(path, { recursive: true, force: true }));
    return path;
  } catch (error) {
    process.stderr.write(`${withoutIt}: no directory for it (${(error as Error).message})\n`);
    return undefined;
  }
}
