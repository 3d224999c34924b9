/**
 * The greeting's audio, asked for before the call is answered. A job whose room carries the
 * dispatch rule's prefix is a phone call: the greeting's text is sent to the (warm) TTS socket as
 * the job starts, so its first audio is on hand by the time the room is joined and the session
 * started, instead of the TTS's first byte being paid after all of that. The audio is held in a
 * stream the session plays (`session.say(text, { audio })`) as soon as it starts.
 */
import type { AudioFrame } from '@livekit/rtc-node';
import { tts } from '@livekit/agents';

export interface HeldGreeting {
  readonly text: string;
  /** The greeting's frames as they arrive (buffered until read). Read it once. */
  readonly audio: ReadableStream<AudioFrame>;
  /** Epoch ms of the first frame, once it came (for the call's start-up log line). */
  firstFrameAt(): number | undefined;
  /** Drops the synthesis (the caller was not a phone caller after all, or the job ended). */
  cancel(): void;
}

/** True when the dispatch rule made this room: `<prefix>_<number>_<random>` (livekit-server inserts the `_`). */
export function isCallRoom(roomName: string | undefined, roomPrefix: string): boolean {
  return typeof roomName === 'string' && roomName.startsWith(`${roomPrefix}_`);
}

/** Starts synthesizing `text` with `engine` now; the returned stream carries its frames. */
export function holdGreeting(engine: tts.TTS, text: string): HeldGreeting {
  const stream = engine.stream();
  // Outside a session nothing listens for the TTS's 'error' event, and an unheard one would take
  // the job process down; the stream itself then ends and the greeting is short or silent.
  const onError = () => {};
  engine.on('error', onError);
  let firstAt: number | undefined;
  let cancelled = false;
  const finish = () => {
    engine.off('error', onError);
    stream.close();
  };
  const pump = async (controller: ReadableStreamDefaultController<AudioFrame>) => {
    stream.pushText(text);
    stream.endInput();
    try {
      for await (const event of stream) {
        if (cancelled || event === tts.SynthesizeStream.END_OF_STREAM) break;
        firstAt ??= Date.now();
        controller.enqueue(event.frame);
      }
    } catch {
      // A failed synthesis ends the greeting where it got to.
    } finally {
      finish();
      if (!cancelled) controller.close();
    }
  };
  const audio = new ReadableStream<AudioFrame>({
    // Not awaited: frames are readable as they come, not once the synthesis is over.
    start: (controller) => void pump(controller),
    cancel() {
      cancelled = true;
      finish();
    },
  });
  return {
    text,
    audio,
    firstFrameAt: () => firstAt,
    cancel: () => {
      if (cancelled) return;
      cancelled = true;
      void audio.cancel().catch(() => {});
    },
  };
}
