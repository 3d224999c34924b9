/**
 * Capturing what a process says: every write to stdout/stderr (the agents logger is pino writing
 * to process.stdout), and unhandled promise rejections, for tests that assert on them.
 */

export interface OutputCapture {
  /** Everything written to stdout and stderr since `captureOutput()`. */
  text(): string;
  restore(): void;
}

export function captureOutput(): OutputCapture {
  const chunks: string[] = [];
  const originals = { out: process.stdout.write, err: process.stderr.write };
  const tap = (original: typeof process.stdout.write, stream: NodeJS.WriteStream) =>
    function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return (original as (...a: unknown[]) => boolean).call(stream, chunk, ...rest);
    } as typeof process.stdout.write;
  process.stdout.write = tap(originals.out, process.stdout);
  process.stderr.write = tap(originals.err, process.stderr);
  return {
    text: () => chunks.join(''),
    restore: () => {
      process.stdout.write = originals.out;
      process.stderr.write = originals.err;
    },
  };
}

/**
 * agents 1.9's ChunkedStream starts its task as `Promise.resolve().then(() => this.mainTask())` and
 * never handles that promise, so every failed `synthesize()` leaves an unhandled rejection behind
 * (a LiveKit job process only logs those, at debug level). Collect them instead of letting vitest
 * report them, so a test can assert what they were.
 */
export function captureUnhandledRejections(): { reasons: unknown[]; restore: () => void } {
  const saved = process.listeners('unhandledRejection');
  const reasons: unknown[] = [];
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', (reason) => reasons.push(reason));
  return {
    reasons,
    restore: () => {
      process.removeAllListeners('unhandledRejection');
      for (const l of saved) process.on('unhandledRejection', l);
    },
  };
}
