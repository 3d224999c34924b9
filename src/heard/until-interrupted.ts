/**
 * The workaround for the "~4 s to settle" after an interrupted reply (agents 1.9).
 *
 * With aligned transcripts, the framework feeds the transcription node from a stream of word
 * timings that only the TTS task writes and closes (`performTTSInference` in generation.ts). On
 * an interruption the audio forwarder cancels its reader first, so the TTS task's next audio
 * write rejects, its `finally` throws at `outputWriter.close()`, and the timings writer is never
 * closed. The text forwarder (`forwardText`) sits in `reader.read()` on that stream and only
 * checks its abort signal between reads, so `forwardSegment` waits out
 * `cancelAndWait(forwardTasks, REPLY_TASK_CANCEL_TIMEOUT)` twice — 2 s after the interruption and
 * 2 s more in its `finally` — before the reply is committed and the next one may speak. (The same
 * wait hits a plain-text reply whose LLM stream goes quiet without ending.)
 *
 * Ending the transcription stream ourselves the moment the speech is interrupted lets
 * `forwardText` see `done` at once. Nothing is lost: what an interrupted reply keeps in the
 * history is decided from playback, not from this stream.
 */
import { ReadableStream } from 'node:stream/web';

/** The part of a `SpeechHandle` this needs. */
export interface Interruptible {
  readonly interrupted: boolean;
  waitIfNotInterrupted(aw: Promise<unknown>[]): Promise<void>;
}

const INTERRUPTED = Symbol('interrupted');

/**
 * `source` until it ends or `speech` is interrupted, whichever comes first; `onInterrupt` runs
 * once if the interruption comes first.
 */
export function untilInterrupted<T>(
  source: ReadableStream<T>,
  speech: Interruptible,
  onInterrupt?: () => void,
): ReadableStream<T> {
  const reader = source.getReader();
  let release!: () => void;
  const ended = new Promise<void>((resolve) => (release = resolve));
  // Settles when the source ends too, so nothing waits on the speech after this stream is over.
  const stopped = speech
    .waitIfNotInterrupted([ended])
    .then(() => (speech.interrupted ? INTERRUPTED : undefined))
    .catch(() => undefined);
  const interrupted = stopped.then((value) => (value === INTERRUPTED ? value : new Promise<never>(() => {})));
  void interrupted.then(() => onInterrupt?.());

  return new ReadableStream<T>({
    async pull(controller) {
      // The read left pending on an interruption is dropped rather than cancelled: cancelling the
      // framework's stream would turn the TTS task's next write into one more error to report.
      const next = await Promise.race([reader.read(), interrupted]);
      if (next === INTERRUPTED || next.done) {
        release();
        controller.close();
        return;
      }
      controller.enqueue(next.value);
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
}
