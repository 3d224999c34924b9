import { log, voice } from '@livekit/agents';
import { type Room, TrackPublishOptions, TrackSource } from '@livekit/rtc-node';
import { AckOutput } from './ack-output.js';

/** RoomIO's own output defaults (agents 1.9 `DEFAULT_ROOM_OUTPUT_OPTIONS`), kept the same. */
const ROOM_OUTPUT_DEFAULTS = { sampleRate: 24_000, numChannels: 1, queueSizeMs: 200 } as const;

/**
 * The agent's track with the early acknowledgement's output on top, for `session.output.audio`
 * before `session.start()`. RoomIO then wraps it in its transcript synchronizer instead of
 * creating a track of its own, so the acknowledgement is written *below* the synchronizer: its
 * audio never joins a reply's transcript segment (above it, a played ack split the reply's
 * transcript in two: "Sure. It" + the rest). RoomIO neither publishes nor closes an output it was
 * given, so this does both; start the session with `outputOptions.audioEnabled: false` (RoomIO's
 * own track is not wanted, and the framework then does not warn that it keeps this one).
 */
export function createAckRoomOutput(room: Room, options: { sampleRate?: number } = {}): { output: AckOutput; close(): Promise<void> } {
  const track = new voice.ParticipantAudioOutput(room, {
    sampleRate: options.sampleRate ?? ROOM_OUTPUT_DEFAULTS.sampleRate,
    numChannels: ROOM_OUTPUT_DEFAULTS.numChannels,
    queueSizeMs: ROOM_OUTPUT_DEFAULTS.queueSizeMs,
    trackPublishOptions: new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
  });
  const publishing = new AbortController();
  // Resolves once the caller subscribed; frames wait for that inside the output. A track that
  // cannot be published leaves the agent mute: say so.
  void track.start(publishing.signal).catch((error: Error) => {
    if (!publishing.signal.aborted) log().error({ error: error.message }, "the agent's audio track could not be published: the caller hears nothing");
  });
  return {
    output: new AckOutput(track),
    close: async () => {
      publishing.abort();
      await track.close();
    },
  };
}
