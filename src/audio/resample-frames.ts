import { type AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';

/**
 * A whole clip's frames at `outputRate` (rtc-node's resampler, the filter's tail included). An
 * output takes frames at its own rate only: the session resamples what its TTS makes, but audio
 * written to an output directly (a cached acknowledgement) must arrive at that rate already —
 * rtc-node's AudioSource drops frames at another rate without a word (the embedded voice's
 * 22.05 kHz acknowledgements played as silence into 24 kHz rooms and 16 kHz phone calls).
 */
export function resampleFrames(frames: readonly AudioFrame[], outputRate: number, quality = AudioResamplerQuality.MEDIUM): AudioFrame[] {
  if (frames.every((f) => f.sampleRate === outputRate)) return [...frames];
  const out: AudioFrame[] = [];
  let resampler: AudioResampler | undefined;
  const finish = (): void => {
    if (!resampler) return;
    out.push(...resampler.flush());
    resampler.close();
    resampler = undefined;
  };
  try {
    for (const frame of frames) {
      if (frame.sampleRate === outputRate) {
        finish();
        out.push(frame);
        continue;
      }
      if (resampler && (resampler.inputRate !== frame.sampleRate || resampler.channels !== frame.channels)) finish();
      resampler ??= new AudioResampler(frame.sampleRate, outputRate, frame.channels, quality);
      out.push(...resampler.push(frame));
    }
    finish();
  } finally {
    // A push that threw leaves the native resampler open.
    resampler?.close();
  }
  return out.filter((f) => f.samplesPerChannel > 0);
}
