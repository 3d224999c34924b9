/**
 * `npm run sip:setup`: creates (or brings up to date) the LiveKit inbound SIP trunk for
 * SIP_NUMBERS and the dispatch rule that sends each caller to their own room with our
 * agent (AGENT_NAME). Safe to run again: it finds both by name and changes only what
 * differs. See docs/sip.md for the whole dial-in setup.
 */
import 'dotenv/config';
import { SipClient } from 'livekit-server-sdk';
import { EnvGroupError } from '../src/lifecycle/env-group.js';
import { readSipSetupEnv } from '../src/sip/env.js';
import { apiHost, ensureSipInbound } from '../src/sip/setup.js';

async function main(): Promise<number> {
  let env;
  try {
    env = readSipSetupEnv(process.env);
  } catch (error) {
    if (error instanceof EnvGroupError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }

  const client = new SipClient(apiHost(env.livekit.url), env.livekit.apiKey, env.livekit.apiSecret);
  const result = await ensureSipInbound(client, {
    trunkName: env.trunkName,
    numbers: env.numbers,
    allowedAddresses: env.allowedAddresses,
    auth: env.auth,
    dispatchRuleName: env.dispatchRuleName,
    roomPrefix: env.roomPrefix,
    agentName: env.agentName,
  });

  console.log(
    `inbound trunk  "${env.trunkName}" ${result.trunk.action} (${result.trunk.id}) for ${env.numbers.join(', ')}`,
  );
  console.log(
    `dispatch rule  "${env.dispatchRuleName}" ${result.dispatchRule.action} (${result.dispatchRule.id}): ` +
      `each caller → own room "${env.roomPrefix}…" with agent "${env.agentName}"`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Twirp errors carry status + message; never print the request (it holds credentials).
    const message = error instanceof Error ? error.message : String(error);
    console.error(`sip:setup failed: ${message}`);
    process.exit(1);
  },
);
