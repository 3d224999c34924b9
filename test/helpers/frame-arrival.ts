/** The room tests' and the bench's ear use the worker's own arrival settling (src/audio/frame-arrival.ts). */
export { ARRIVAL_HORIZON_MS, type FrameRead, arrivalOf, settledArrivals } from '../../src/audio/frame-arrival.js';
