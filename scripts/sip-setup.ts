/**
 * `npm run sip:setup`: creates (or brings up to date) the LiveKit inbound SIP trunk for
 * SIP_NUMBERS and the dispatch rule that sends each caller to their own room with our
 * agent (AGENT_NAME). Safe to run again: it finds both by name and changes only what
 * differs. See docs/sip.md for the whole dial-in setup.
 */
import { SipClient } from 'livekit-server-sdk';
import { type AppConfig, ConfigError, loadConfig, loadEnvFile } from '../src/config/index.js';
import { apiHost, ensureSipInbound } from '../src/sip/setup.js';

async function main(): Promise<number> {
  let config: AppConfig;
  try {
    loadEnvFile();
    config = loadConfig(process.env, { mode: 'sip-setup' });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  // `sip-setup` mode has checked that these are set.
  const { url, apiKey, apiSecret } = config.livekit as Required<AppConfig['livekit']>;
  const env = { ...config.sip.setup, agentName: config.agentName! };

  const client = new SipClient(apiHost(url), apiKey, apiSecret);
  const result = await ensureSipInbound(client, env);

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
