import type { TelephonySampleRate } from './env.js';

/**
 * Options for a session whose caller is on a phone line. The SIP bridge carries 8 kHz
 * (narrowband) or 16 kHz (wideband) audio; generating and publishing at 24–48 kHz only
 * adds bytes and resampling work before the bridge throws the extra band away.
 */
export interface TelephonySessionOptions {
  /** Sample rate to ask the TTS provider for (PCM at this rate, no resampling). */
  ttsSampleRate: TelephonySampleRate;
  /** Spread into `AgentSession.start({ ... })`. */
  startOptions: {
    inputOptions: { audioSampleRate: TelephonySampleRate };
    outputOptions: { audioSampleRate: TelephonySampleRate };
  };
}

/** @defaultValue sample rate 16000 (wideband telephony) */
export const DEFAULT_TELEPHONY_SAMPLE_RATE: TelephonySampleRate = 16000;

export function telephonySessionOptions(
  sampleRate: TelephonySampleRate = DEFAULT_TELEPHONY_SAMPLE_RATE,
): TelephonySessionOptions {
  return {
    ttsSampleRate: sampleRate,
    startOptions: {
      inputOptions: { audioSampleRate: sampleRate },
      outputOptions: { audioSampleRate: sampleRate },
    },
  };
}
