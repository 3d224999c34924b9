/**
 * Placeholder until the provider issues land: the integrator replaces this file with the real
 * factory (ResembleTTS / CartesiaTTS / the local voice). The signature is the contract.
 */
import type { tts } from '@livekit/agents';
import type { AppConfig } from '../config.js';

export interface CreatedTTS {
  tts: tts.TTS;
  /** Releases what the TTS holds open (sockets, the local voice server). */
  close(): Promise<void>;
}

export async function createTTS(config: AppConfig): Promise<CreatedTTS> {
  throw new Error(`TTS provider ${config.tts.provider} is not available yet`);
}
