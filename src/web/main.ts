/**
 * `npm run web`: serves the test page and the token endpoint. Reads LIVEKIT_URL,
 * LIVEKIT_API_KEY, LIVEKIT_API_SECRET, AGENT_NAME and the WEB_* variables (.env.example).
 */
import type { AddressInfo } from 'node:net';
import { loadEnvFile } from '../config.js';
import { EnvGroupError } from '../lifecycle/env-group.js';
import { readWebEnv } from './env.js';
import { createWebServer } from './server.js';

loadEnvFile();

let env;
try {
  env = readWebEnv(process.env);
} catch (error) {
  if (!(error instanceof EnvGroupError)) throw error;
  console.error(error.message);
  process.exit(2);
}

const server = createWebServer({
  livekitUrl: env.livekitUrl,
  apiKey: env.apiKey,
  apiSecret: env.apiSecret,
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
