export { FirstwordTTS } from './base.js';
export { ResembleTTS, RESEMBLE_SAMPLE_RATES, type ResembleTTSOptions } from './resemble.js';
export type { TimelineEvents } from './timeline.js';
export { DriverStream } from './stream.js';
export { CartesiaTTS, CARTESIA_SAMPLE_RATES, type CartesiaTTSOptions } from './cartesia.js';
