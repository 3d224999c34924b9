/**
 * The agent's TTS node for a firstword TTS, with a {@link ReplyTracker} watching the stream.
 *
 * It is the framework's default `ttsNode` (agents 1.9, `Agent.default.ttsNode`) for a streaming
 * TTS, plus three things the default cannot give us: the driver stream's timeline (this stream's
 * chunk and track events, and no other stream's), the reply text exactly as the stream received
 * it (chunk offsets point into it), and the per-frame word timings before they are folded into
 * frame userdata. Keeping the default's shape keeps its behaviour: timed transcripts are still
 * attached to frames for the framework's own transcription sync.
 */
import { USERDATA_TIMED_TRANSCRIPT, tts, type voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { ReadableStream, TransformStream } from 'node:stream/web';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import type { ReplyTracker } from './tracker.js';

export function trackedTtsNode(
  agent: voice.Agent,
  engine: FirstwordTTS,
  text: ReadableStream<string>,
  tracker: ReplyTracker,
): ReadableStream<AudioFrame> {
  const activity = agent.getActivityOrThrow();
  // As the default node does, just before stream() snapshots it.
  engine._setExpressive(activity._resolveExpressiveOptions() !== undefined);
  const stream = engine.stream({ connOptions: activity.agentSession.connOptions.ttsConnOptions });
  tracker.follow(stream.timeline);
  tracker.onStop = () => stream.close();

  const recorded = text.pipeThrough(
    new TransformStream<string, string>({
      transform(delta, controller) {
        tracker.appendReply(delta);
        controller.enqueue(delta);
      },
    }),
  );
  stream.updateInputStream(recorded);

  let cleaned = false;
  const cleanup = async (): Promise<void> => {
    if (cleaned) return;
    cleaned = true;
    tracker.onStop = undefined;
    stream.close();
    tracker.unfollow();
  };

  return new ReadableStream<AudioFrame>({
    async start(controller) {
      try {
        for await (const audio of stream) {
          if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
          tracker.onAudio(audio);
          if (audio.timedTranscripts?.length) {
            audio.frame.userdata[USERDATA_TIMED_TRANSCRIPT] = audio.timedTranscripts;
          }
          controller.enqueue(audio.frame);
        }
        controller.close();
      } finally {
        await cleanup();
      }
    },
    cancel() {
      return cleanup();
    },
  });
}
