/**
 * The values of TTS_PROVIDER, and the provider whose facts (sample rates, defaults) each one
 * follows: the facts themselves are declared once, in the TTS plugin's descriptors.
 */
import { CARTESIA, type ProviderDescriptor, RESEMBLE } from '@firstword/agents-plugin-tts/providers';

/**
 * `cartesia-livekit` is LiveKit's own Cartesia plugin with the same Cartesia settings: the
 * baseline firstword is measured against (`npm run bench:room`); it is a dev dependency.
 */
export const TTS_PROVIDERS = ['resemble', 'cartesia', 'local', 'cartesia-livekit'] as const;
export type TtsProvider = (typeof TTS_PROVIDERS)[number];

/**
 * The descriptor each choice follows. The local voice speaks Resemble's protocol and is driven by
 * the very ResembleTTS client production uses, which asks only for Resemble's rates.
 */
export const PROVIDER_FACTS = {
  resemble: RESEMBLE,
  cartesia: CARTESIA,
  local: RESEMBLE,
  'cartesia-livekit': CARTESIA,
} as const satisfies Record<TtsProvider, ProviderDescriptor>;
