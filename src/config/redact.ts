import type { AppConfig } from './types.js';

const MASK = '***';

function maskSecret(value: string | undefined): string | undefined {
  return value === undefined ? undefined : MASK;
}

/** Credentials can hide in a URL's user-info or query string; keep only what locates the server. */
function maskUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = new URL(value);
    if (parsed.username || parsed.password) {
      parsed.username = MASK;
      parsed.password = '';
    }
    for (const key of [...parsed.searchParams.keys()]) parsed.searchParams.set(key, MASK);
    return parsed.toString();
  } catch {
    return MASK;
  }
}

function redactedAuth(auth: AppConfig['web']['auth']): Record<string, unknown> {
  if (auth.kind === 'shared-secret') return { kind: auth.kind, secret: MASK };
  if (auth.kind === 'jwt') return { ...auth, hs256Secret: maskSecret(auth.hs256Secret), jwksUrl: maskUrl(auth.jwksUrl) };
  return { kind: auth.kind };
}

/** A copy of the configuration that is safe to log: secrets masked, URLs stripped of credentials. */
export function redactedConfig(config: AppConfig): Record<string, unknown> {
  const { tts, sip } = config;
  return {
    livekit: {
      url: maskUrl(config.livekit.url),
      apiKey: maskSecret(config.livekit.apiKey),
      apiSecret: maskSecret(config.livekit.apiSecret),
      workerToken: maskSecret(config.livekit.workerToken),
    },
    agentName: config.agentName,
    worker: { ...config.worker },
    openai: { ...config.openai, apiKey: maskSecret(config.openai.apiKey), baseURL: maskUrl(config.openai.baseURL) },
    tts: {
      ...tts,
      resemble: { ...tts.resemble, apiKey: maskSecret(tts.resemble.apiKey), baseURL: maskUrl(tts.resemble.baseURL) },
      cartesia: { ...tts.cartesia, apiKey: maskSecret(tts.cartesia.apiKey), baseURL: maskUrl(tts.cartesia.baseURL) },
    },
    chunking: { ...config.chunking },
    ack: { ...config.ack },
    bargeIn: { ...config.bargeIn },
    metrics: { ...config.metrics },
    web: { ...config.web, livekitUrl: maskUrl(config.web.livekitUrl), auth: redactedAuth(config.web.auth) },
    sip: {
      call: { ...sip.call },
      setup: { ...sip.setup, auth: sip.setup.auth ? { username: sip.setup.auth.username, password: MASK } : undefined },
    },
    lifecycle: { ...config.lifecycle },
    logLevel: config.logLevel,
  };
}
