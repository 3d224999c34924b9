/**
 * What every e2e client shares. Clients run inside the stack's network namespace (spawned through
 * `ip netns exec`), so the test process cannot hold their objects: each one reports by printing
 * one JSON line that carries an `e2e` key. rtc-node's own pino logger also writes JSON to stdout,
 * hence the key rather than "the only line".
 */
import { AccessToken } from 'livekit-server-sdk';

export type Args = Record<string, string>;

/** `--room r --seconds 5` → `{ room: 'r', seconds: '5' }`; a flag without a value is `'true'`. */
export function parseArgs(argv: string[] = process.argv.slice(2)): Args {
  const args: Args = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i]!;
    if (!key.startsWith('--')) throw new Error(`unexpected argument ${key}`);
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) args[key.slice(2)] = 'true';
    else (args[key.slice(2)] = next), i++;
  }
  return args;
}

export function need(env: string): string {
  const value = process.env[env];
  if (!value) throw new Error(`${env} is not set (run through the stack: npm run stack -- exec …)`);
  return value;
}

export async function joinToken(room: string, identity: string): Promise<string> {
  const token = new AccessToken(need('LIVEKIT_API_KEY'), need('LIVEKIT_API_SECRET'), { identity, ttl: 600 });
  token.addGrant({ roomJoin: true, room, canPublish: true, canSubscribe: true, canPublishData: true });
  return token.toJwt();
}

/**
 * Runs a client body with a hard deadline, prints its one result line, runs `cleanup` (bounded)
 * and exits: rtc-node's FFI keeps the event loop alive, so a client that only returned would
 * never end.
 */
export function runClient(
  name: string,
  timeoutMs: number,
  body: () => Promise<Record<string, unknown>>,
  cleanup: () => Promise<unknown> = async () => {},
): void {
  const started = Date.now();
  let finished = false;
  const finish = async (result: Record<string, unknown>, code: number): Promise<void> => {
    if (finished) return;
    finished = true;
    process.stdout.write(`${JSON.stringify({ e2e: name, ms: Date.now() - started, ...result })}\n`);
    await Promise.race([cleanup(), new Promise((resolve) => setTimeout(resolve, 2000))]).catch(() => {});
    process.exit(code);
  };
  const deadline = setTimeout(() => void finish({ ok: false, error: `timed out after ${timeoutMs} ms` }, 3), timeoutMs);
  body().then(
    (result) => (clearTimeout(deadline), finish({ ok: true, ...result }, 0)),
    (error: Error) => (clearTimeout(deadline), finish({ ok: false, error: error.stack ?? String(error) }, 1)),
  );
}

/** Root-mean-square of 16-bit samples, 0…32767. */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return samples.length === 0 ? 0 : Math.sqrt(sum / samples.length);
}
