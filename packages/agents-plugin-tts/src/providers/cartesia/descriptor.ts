import type { ProviderDescriptor } from '../descriptor.js';

/** Cartesia's facts: the one declaration the plugin, the app and the fakes read. */
export const CARTESIA = {
  id: 'cartesia',
  name: 'Cartesia',
  /** The rates Cartesia serves for raw PCM output. */
  sampleRates: [8000, 16000, 22050, 24000, 44100, 48000],
  defaultSampleRate: 24000,
  /** Cartesia's recommendation (docs: "We recommend using Sonic 3.5"). */
  defaultModel: 'sonic-3.5',
  /** The API version sent with every request unless the caller names another. */
  defaultApiVersion: '2026-03-01',
  /** As in LiveKit's official plugin: heard text is exact with word times. */
  wordTimestamps: true,
  keyVariable: 'CARTESIA_API_KEY',
  environment: {
    CARTESIA_API_KEY: 'API key (the plugin falls back to it when none is passed)',
    CARTESIA_VOICE: 'the voice id to speak with; required',
    CARTESIA_MODEL: 'the model: a name (sonic-3.5) or a dated snapshot (sonic-3.5-2026-05-04)',
    CARTESIA_LANGUAGE: 'ISO 639-1 language of the replies; unset lets the model detect it',
    CARTESIA_API_VERSION: 'the Cartesia-Version header',
    CARTESIA_WORD_TIMESTAMPS: 'on asks for word times (exact heard text after a barge-in); off saves their bytes',
    CARTESIA_BASE_URL: "the API endpoint, for a proxy or a local stand-in; unset is Cartesia's own",
  },
} as const satisfies ProviderDescriptor & { defaultApiVersion: string };

export type CartesiaSampleRate = (typeof CARTESIA.sampleRates)[number];
export type CartesiaVariable = keyof typeof CARTESIA.environment;
