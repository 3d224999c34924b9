/**
 * G.711 µ-law (PCMU, ITU-T G.711): what the test phone sends and what it hears. 8 kHz, one byte
 * a sample, logarithmic.
 */
const BIAS = 0x84;
const CLIP = 32635;

export function linearToMulaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(Math.abs(sample), CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

export function mulawToLinear(byte: number): number {
  const value = ~byte & 0xff;
  const exponent = (value >> 4) & 0x07;
  const magnitude = ((((value & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  return value & 0x80 ? -magnitude : magnitude;
}

export const encodeMulaw = (samples: Int16Array): Buffer => Buffer.from(Array.from(samples, linearToMulaw));
