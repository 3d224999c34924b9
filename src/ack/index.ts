export { AckController, type AckControllerEvents, type AckControllerOptions, type AckDecision, attachAcknowledgement } from './controller.js';
export { AckLibrary, type AckLibraryOptions, type CachedAck, ackFrames, prepareAcknowledgements } from './library.js';
export { ACK_LANGUAGES, type AckLanguage, DEFAULT_ACK_PHRASES, detectAckLanguage } from './phrases.js';
