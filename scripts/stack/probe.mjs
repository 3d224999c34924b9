// Readiness probe run inside the stack's namespace (the orchestrator itself is outside it):
// exits 0 when GET <url> answers 200 (and, if given, exactly <body> after trimming).
//   node probe.mjs http://127.0.0.1:7880/ OK
const [url, body] = process.argv.slice(2);
try {
  // Bounded by the caller (readiness.ts PROBE_TIMEOUT_MS); a request to a server that is up but
  // starved of CPU is a success late, not a failure.
  const response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  const text = (await response.text()).trim();
  process.exit(response.status === 200 && (body === undefined || text === body) ? 0 : 1);
} catch {
  process.exit(1);
}
