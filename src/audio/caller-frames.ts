/**
 * How long each frame of the caller's audio is as the worker reads it from the room.
 *
 * Every frame crosses rtc-node's FFI (a protobuf event and a copy), then each stream hop of the
 * framework on its way to the VAD and the STT, and the VAD's resampler (another FFI call); the
 * work per frame barely depends on its length. rtc-node's default is 10 ms. 20 ms is what an Opus
 * packet from a browser or livekit-sip carries anyway, so it halves that work and delays the
 * audio by at most one 10 ms step (Silero judges 32 ms windows in any case).
 */
export const CALLER_FRAME_MS = 20;
