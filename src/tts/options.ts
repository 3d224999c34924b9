import type { ChunkerOptions } from '../chunking/index.js';
import type { SocketPoolOptions } from './pool.js';

/** Options every provider shares (the driver's knobs). */
export interface DriverOptions {
  /** Chunking policy and limits (see src/chunking). */
  chunking: ChunkerOptions;
  /** Audio frame length handed to LiveKit, in ms. Short frames mean earlier first audio. */
  frameMs: number;
  /** Turns a chunk's display text into what the provider should read (e.g. number reading). */
  prepareText?: (text: string) => string;
}

export const DEFAULT_DRIVER_OPTIONS: DriverOptions = {
  chunking: {},
  frameMs: 20,
};

export type PoolTuning = Partial<SocketPoolOptions>;
