export { startLocalVoiceServer, LOCAL_VOICE_UUID } from './server.js';
export type { LocalVoiceServer, LocalVoiceServerOptions } from './server.js';
export { LocalVoiceError, ESPEAK_PACKAGE } from './errors.js';
export type { LocalVoiceErrorCode } from './errors.js';
export { encodeWav, decodeWav, wavHeader } from './wav.js';
