/**
 * `npm run web`: serves the test page and the token endpoint. Reads LIVEKIT_URL,
 * LIVEKIT_API_KEY, LIVEKIT_API_SECRET, AGENT_NAME and the WEB_* variables (.env.example).
 */
import type { AddressInfo } from 'node:net';
import { type AppConfig, ConfigError, loadConfig, loadEnvFile } from '../config/index.js';
import { createWebServer } from './server.js';

loadEnvFile();

let config: AppConfig;
try {
  config = loadConfig(process.env, { mode: 'web' });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}
const env = { ...config.web, agentName: config.agentName };

// `web` mode has checked that the LiveKit URL and credentials are set.
const server = createWebServer({
  livekitUrl: env.livekitUrl!,
  apiUrl: config.livekit.url!,
  apiKey: config.livekit.apiKey!,
  apiSecret: config.livekit.apiSecret!,
  ttlSeconds: env.tokenTtlSeconds,
  agentName: env.agentName,
  auth: env.auth,
  rate: env.rate,
  trustedProxyHops: env.trustedProxyHops,
});

server.listen(env.port, env.host, () => {
  const { port } = server.address() as AddressInfo;
  const host = env.host.includes(':') ? `[${env.host}]` : env.host;
  const agent = env.agentName ?? 'automatic dispatch';
  console.log(`firstword web page: http://${host}:${port}/  (LiveKit: ${env.livekitUrl}, agent: ${agent})`);
  const auth = { none: 'none (anyone who reaches this address gets rooms)', 'shared-secret': 'shared secret header', jwt: 'JWT' }[env.auth.kind];
  console.log(
    `/token: auth ${auth}; ${env.rate.perAddressPerMinute}/min per address, ${env.rate.perUserPerMinute}/min per user; ` +
      `X-Forwarded-For ${env.trustedProxyHops === 0 ? 'ignored' : `trusted for ${env.trustedProxyHops} proxy hop(s)`}`,
  );
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
