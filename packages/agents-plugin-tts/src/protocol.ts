/**
 * The package's `./protocol` export: the providers' wire codecs and handshake, for tools that talk
 * to a provider without the driver (the live checks) and for servers that speak a provider's
 * protocol (the local voice).
 */
export type { ProviderCodec, ProviderEvent, SendChunk, TrackKey, TrackTiming } from './protocol/codec.js';
export { rawBytes } from './protocol/codec.js';
export { providerUrl, takeEarlyMessages } from './protocol/connect.js';
export { DEFAULT_POOL_OPTIONS } from './transport/pool-options.js';
export { RESEMBLE_MAX_REQUEST_CHARS, ResembleCodec, type ResembleCodecOptions } from './providers/resemble/codec.js';
export { CartesiaCodec, type CartesiaCodecOptions } from './providers/cartesia/codec.js';
