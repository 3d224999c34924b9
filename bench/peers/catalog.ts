/** The Python peers (bench/peers/python): names, what each is, and the provider it speaks. */
import { CARTESIA, RESEMBLE } from '@firstword/agents-plugin-tts/providers';

export type Provider = 'cartesia' | 'resemble';
export const PROVIDERS: readonly Provider[] = ['cartesia', 'resemble'];

export const PYTHON_PEERS = {
  'livekit-python-cartesia': {
    provider: 'cartesia',
    note: 'LiveKit livekit-plugins-cartesia 1.8.9 (Python, livekit-agents 1.8.9) stream()',
  },
  'livekit-python-resemble': {
    provider: 'resemble',
    note: 'LiveKit livekit-plugins-resemble 1.8.9 (Python) stream(); its URL and MP3 request redirected (bench/peers/README.md)',
  },
  'pipecat-cartesia': { provider: 'cartesia', note: 'Pipecat pipecat-ai 1.14.0 CartesiaTTSService (sentence aggregation)' },
  'pipecat-resemble': {
    provider: 'resemble',
    note: 'Pipecat pipecat-ai 1.14.0 ResembleAITTSService (sentence aggregation, 1 s jitter buffer)',
  },
} as const satisfies Record<string, { provider: Provider; note: string }>;

export type PythonPeerName = keyof typeof PYTHON_PEERS;

export function isPythonPeer(name: string): name is PythonPeerName {
  return Object.hasOwn(PYTHON_PEERS, name);
}

/** Audio rate of every strategy on a provider: its default (Cartesia 24 kHz; Resemble 22.05 kHz, as 24 kHz is not one of its rates, also Pipecat's default). */
export const SAMPLE_RATES: Record<Provider, number> = { cartesia: CARTESIA.defaultSampleRate, resemble: RESEMBLE.defaultSampleRate };
