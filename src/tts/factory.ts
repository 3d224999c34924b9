/**
 * Config → the TTS the worker and the demo use. `local` runs the embedded voice: a loopback server
 * that speaks Resemble's protocol, driven by the very ResembleTTS client production uses.
 */
import type { tts } from '@livekit/agents';
import type { AppConfig } from '../config/index.js';
import { CartesiaTTS } from '@firstword/agents-plugin-tts';
import type { ConnectionBudget } from '@firstword/agents-plugin-tts/budget';
import { budgetKey, leaseServiceBudget } from '@firstword/agents-plugin-tts/budget';
import { ResembleTTS } from '@firstword/agents-plugin-tts';

export interface CreatedTTS {
  tts: tts.TTS;
  /** Opens the provider connection ahead of the first turn (the framework never does it itself). */
  prewarm(): Promise<void>;
  /** Releases what the TTS holds open (sockets, the local voice server). */
  close(): Promise<void>;
}

/**
 * The worker-wide budget for this provider key, when this is a job process of a worker that runs
 * the budget service; otherwise (demo, tests) each TTS instance's own socket cap applies.
 */
function workerBudget(config: AppConfig, provider: string, apiKey: string | undefined): ConnectionBudget | undefined {
  const path = config.tts.connections.leaseSocket;
  return path && apiKey ? leaseServiceBudget(path, budgetKey(provider, apiKey)) : undefined;
}

export async function createTTS(config: AppConfig): Promise<CreatedTTS> {
  const chunking = { policy: config.chunking.policy };
  const speech = config.tts.normalize ? {} : (false as const);
  const sampleRate = config.tts.sampleRate;
  const startBufferMs = config.tts.startBufferMs;
  switch (config.tts.provider) {
    case 'resemble': {
      const r = config.tts.resemble;
      const engine = new ResembleTTS({
        apiKey: r.apiKey,
        voiceUuid: r.voiceUuid,
        projectUuid: r.projectUuid,
        model: r.model,
        chunking,
        speech,
        ssml: config.tts.resembleSsml,
        startBufferMs,
        connectionBudget: workerBudget(config, 'resemble', r.apiKey),
        ...(sampleRate ? { sampleRate } : {}),
        ...(r.baseURL ? { baseURL: r.baseURL } : {}),
      });
      return { tts: engine, prewarm: () => engine.prewarm(), close: () => engine.close() };
    }
    case 'cartesia': {
      const c = config.tts.cartesia;
      const engine = new CartesiaTTS({
        apiKey: c.apiKey,
        voice: c.voice,
        model: c.model,
        language: c.language,
        wordTimestamps: c.wordTimestamps,
        chunking,
        startBufferMs,
        connectionBudget: workerBudget(config, 'cartesia', c.apiKey),
        speech,
        ...(sampleRate ? { sampleRate } : {}),
        ...(c.apiVersion ? { apiVersion: c.apiVersion } : {}),
        ...(c.baseURL ? { baseURL: c.baseURL } : {}),
      });
      return { tts: engine, prewarm: () => engine.prewarm(), close: () => engine.close() };
    }
    case 'cartesia-livekit':
      return livekitCartesia(config);
    case 'local': {
      // Loaded lazily: the embedded voice is an optional (GPL) dependency.
      const { startLocalVoiceServer } = await import('../local-voice/index.js');
      const server = await startLocalVoiceServer({ port: config.tts.localPort });
      try {
        const engine = new ResembleTTS({
          apiKey: server.apiKey,
          voiceUuid: server.voiceUuid,
          baseURL: server.url,
          // Unset: Resemble's default rate (its descriptor), which is also eSpeak-NG's native one.
          ...(sampleRate ? { sampleRate } : {}),
          chunking,
          speech,
          // It speaks Resemble's protocol but streams smoothly over loopback: no buffer unless asked.
          startBufferMs: startBufferMs ?? 0,
        });
        return {
          tts: engine,
          prewarm: () => engine.prewarm(),
          close: async () => {
            await engine.close();
            await server.close();
          },
        };
      } catch (err) {
        await server.close();
        throw err;
      }
    }
  }
}

/**
 * LiveKit's own Cartesia plugin on the same settings: the baseline of `npm run bench:room`, run in
 * the same worker. A dev dependency, so a production install says so instead of crashing.
 */
async function livekitCartesia(config: AppConfig): Promise<CreatedTTS> {
  let plugin: typeof import('@livekit/agents-plugin-cartesia');
  try {
    plugin = await import('@livekit/agents-plugin-cartesia');
  } catch {
    throw new Error('TTS_PROVIDER=cartesia-livekit needs @livekit/agents-plugin-cartesia, a dev dependency: install with npm ci (not --omit=dev)');
  }
  const c = config.tts.cartesia;
  const engine = new plugin.TTS({
    apiKey: c.apiKey,
    voice: c.voice,
    model: c.model,
    wordTimestamps: c.wordTimestamps,
    ...(c.language ? { language: c.language } : {}),
    ...(config.tts.sampleRate ? { sampleRate: config.tts.sampleRate } : {}),
    ...(c.apiVersion ? { apiVersion: c.apiVersion } : {}),
    ...(c.baseURL ? { baseUrl: c.baseURL } : {}),
  });
  return { tts: engine, prewarm: async () => engine.prewarm(), close: () => engine.close() };
}
