/**
 * `npm run test:sip`: real phone calls through a real livekit-sip, when the operator has one
 * (LIVEKIT_SIP_BIN, else livekit-sip on PATH; without one it says so in one line and exits 0).
 * A stack with the bridge comes up, `sip:setup` creates the trunk and dispatch rule on its
 * server, and Debian's sipp places PCMU calls: silence while the agent greets, a question, silence
 * while it answers, then BYE. Each call is captured on the wire inside the namespace and checked:
 * the greeting carries speech energy (and how long after the 200 OK it came), the caller's speech
 * is answered, the BYE completes, and the worker never logged the caller's number in clear.
 *
 *   npm run test:sip [-- --calls N] [--language en|ko]
 */
import { parseArgs } from 'node:util';
import { runSync } from '../stack/netns.js';
import { NO_SIP_BINARY, resolveSipBinary } from '../stack/sip-bridge.js';

function missingTools(): string[] {
  return ['sipp', 'tcpdump'].filter((tool) => runSync('sh', ['-c', `command -v ${tool}`]).code !== 0);
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '3' }, language: { type: 'string', default: 'en' } } });
  const calls = Number(values.calls);
  if (!Number.isInteger(calls) || calls < 1) throw new Error('--calls needs a whole number ≥ 1');
  if (values.language !== 'en' && values.language !== 'ko') throw new Error('--language must be en or ko');

  const binary = resolveSipBinary();
  if (!binary) {
    process.stdout.write(`test:sip: not run: ${NO_SIP_BINARY}\n`);
    return 0;
  }
  const missing = missingTools();
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} missing: run bash scripts/ensure-sipp.sh`);
  // Loaded only now: the voice and the stack take seconds to import, and most runs have no bridge.
  const { runCalls } = await import('./run-calls.js');
  return runCalls({ binary, calls, language: values.language });
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    process.stderr.write(`test:sip: ${error.message}\n`);
    process.exit(1);
  },
);
