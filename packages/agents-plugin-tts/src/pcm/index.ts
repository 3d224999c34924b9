/**
 * PCM16 for audio at another rate or in other lengths than a consumer takes (the package's
 * `./pcm` export): a streaming resampler, a framer into frames of whole units, a whole-clip resampler and a
 * provider's byte stream reassembled into whole samples. The driver, the app's acknowledgement
 * output and the local voice all use these.
 */
export { PcmResampler, resampleClip, AudioResamplerQuality } from './resample.js';
export { PcmFramer, defaultMaxFrameMs } from './framer.js';
export { Pcm16Reassembler, pcmBytes, pcmSamples, stripRiffHeader } from './pcm.js';
