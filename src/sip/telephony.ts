import type { TelephonySampleRate } from '../config/index.js';

/**
 * Room audio settings for a caller on a phone line. The SIP bridge carries 8 kHz
 * (narrowband) or 16 kHz (wideband) audio: publishing at the framework's 24 kHz default
 * only adds bytes and a resampling step before the bridge throws the extra band away,
 * and listening at 16 kHz is what VAD and STT want anyway.
 *
 * The TTS keeps the rate it was prewarmed with (the worker prewarms one voice before it
 * knows who will call), and the room output resamples it. A phone-only deployment sets
 * TTS_SAMPLE_RATE to the same rate so nothing is resampled at all.
 */
export interface TelephonySessionOptions {
  sampleRate: TelephonySampleRate;
  /** Spread into `AgentSession.start({ agent, room, ...startOptions })`. */
  startOptions: {
    inputOptions: { audioSampleRate: TelephonySampleRate; participantIdentity: string };
    outputOptions: { audioSampleRate: TelephonySampleRate };
  };
}

/** @defaultValue 16000 (wideband telephony) */
export const DEFAULT_TELEPHONY_SAMPLE_RATE: TelephonySampleRate = 16000;

/** `participantIdentity` links the session to this caller rather than whoever joins first. */
export function telephonySessionOptions(
  participantIdentity: string,
  sampleRate: TelephonySampleRate = DEFAULT_TELEPHONY_SAMPLE_RATE,
): TelephonySessionOptions {
  return {
    sampleRate,
    startOptions: {
      inputOptions: { audioSampleRate: sampleRate, participantIdentity },
      outputOptions: { audioSampleRate: sampleRate },
    },
  };
}
