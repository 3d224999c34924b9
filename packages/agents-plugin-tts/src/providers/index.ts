/**
 * The package's `./providers` export: each provider's facts (rates, defaults, the environment
 * variables an app reads for it), declared once and plain data, so a configuration loader, a
 * protocol stand-in or a document can read them without loading a TTS.
 */
import { CARTESIA } from './cartesia/descriptor.js';
import { RESEMBLE } from './resemble/descriptor.js';

export type { ProviderDescriptor } from './descriptor.js';
export { RESEMBLE, type ResembleSampleRate, type ResembleVariable } from './resemble/descriptor.js';
export { CARTESIA, type CartesiaSampleRate, type CartesiaVariable } from './cartesia/descriptor.js';
export { MAX_START_BUFFER_MS } from '../driver/options.js';

/** Every provider's descriptor, by id. */
export const PROVIDERS = { resemble: RESEMBLE, cartesia: CARTESIA } as const;
export type ProviderId = keyof typeof PROVIDERS;
