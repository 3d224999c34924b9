/**
 * What every caller-driver process shares (bench:room's and bench:capacity's): one JSON line per
 * event on stdout for the parent to read, and an exit that releases rtc-node's native side first
 * (bounded: a stuck dispose must not keep a finished driver alive).
 */
import { dispose } from '@livekit/rtc-node';

export const emit = (kind: string, body: Record<string, unknown> = {}) => process.stdout.write(`${JSON.stringify({ bench: kind, ...body })}\n`);

export function runDriverProcess(main: () => Promise<void>): void {
  main().then(
    async () => {
      await Promise.race([dispose(), new Promise((resolve) => setTimeout(resolve, 2000))]).catch(() => {});
      process.exit(0);
    },
    (error: unknown) => {
      emit('error', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.exit(1);
    },
  );
}
