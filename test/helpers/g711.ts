/**
 * G.711 µ-law (PCMU), the codec of most phone calls: 8 kHz, 8 bits a sample, logarithmic. Speech a
 * test caller sends "over the phone" is cut to 8 kHz and run through encode and decode, so the
 * agent hears what livekit-sip would hand it from a PCMU call (the bridge decodes to PCM16 before
 * Opus). The codec itself is the test phone's (scripts/sip-call/g711.ts); its encoder is also the
 * Cartesia fake's `pcm_mulaw`.
 */
import { AudioFrame } from '@livekit/rtc-node';
import { resampleClip } from '@firstword/agents-plugin-tts/pcm';
import { linearToMulaw, mulawToLinear } from '../../scripts/sip-call/g711.js';

export { linearToMulaw, mulawToLinear };

export const TELEPHONE_RATE = 8000;

/** Speech as a PCMU call carries it: resampled to 8 kHz, µ-law encoded and decoded. */
export function telephoneBand(samples: Int16Array, sampleRate: number): Int16Array {
  const frames = resampleClip([new AudioFrame(samples, sampleRate, 1, samples.length)], TELEPHONE_RATE);
  const narrow = new Int16Array(frames.reduce((n, f) => n + f.samplesPerChannel, 0));
  let offset = 0;
  for (const frame of frames) {
    narrow.set(frame.data.subarray(0, frame.samplesPerChannel), offset);
    offset += frame.samplesPerChannel;
  }
  return narrow.map((s) => mulawToLinear(linearToMulaw(s)));
}
