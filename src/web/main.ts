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
  apiKey: config.livekit.apiKey!,
  apiSecret: config.livekit.apiSecret!,
  ttlSeconds: env.tokenTtlSeconds,
  agentName: env.agentName,
});

server.listen(env.port, env.host, () => {
  const { port } = server.address() as AddressInfo;
  const host = env.host.includes(':') ? `[${env.host}]` : env.host;
  const agent = env.agentName ?? 'automatic dispatch';
  console.log(`firstword web page: http://${host}:${port}/  (LiveKit: ${env.livekitUrl}, agent: ${agent})`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
