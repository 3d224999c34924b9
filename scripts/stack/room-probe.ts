/**
 * How soon a cluster creates rooms again after a node died, INSIDE the namespace:
 *
 *   tsx scripts/stack/room-probe.ts DURATION_MS INTERVAL_MS
 *
 * One CreateRoom after another through LIVEKIT_URL (no node named: the server picks one, as for
 * a caller's first join), each bounded by 10 s. A room given to a dead node fails: the request is
 * relayed to that node and times out. One JSON line per attempt: `{"probe":{"at","ms","ok","error"?}}`
 * (`at`: epoch ms it began). Probe rooms close 5 s after creation (nobody joins).
 */
import { stackRoomService } from './in-namespace.js';

const [durationMs, intervalMs] = process.argv.slice(2).map(Number);
if (!durationMs || !intervalMs) {
  process.stderr.write('usage: tsx scripts/stack/room-probe.ts DURATION_MS INTERVAL_MS\n');
  process.exit(2);
}
const client = stackRoomService({ requestTimeout: 10 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const end = Date.now() + durationMs;
for (let i = 0; Date.now() < end; i++) {
  const at = Date.now();
  let line: Record<string, unknown>;
  try {
    await client.createRoom({ name: `probe-${process.pid}-${i}`, emptyTimeout: 5 });
    line = { at, ms: Date.now() - at, ok: true };
  } catch (error) {
    line = { at, ms: Date.now() - at, ok: false, error: (error instanceof Error ? error.message : String(error)).slice(0, 120) };
  }
  process.stdout.write(`${JSON.stringify({ probe: line })}\n`);
  await sleep(Math.max(0, at + intervalMs - Date.now()));
}
