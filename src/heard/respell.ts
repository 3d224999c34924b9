/**
 * Word timings spelled as the reply spells them.
 *
 * With aligned transcripts, agents 1.9 builds the transcript — and, for a reply played to the
 * end, the chat-history message — from the provider's timed words, not from the reply. Those
 * are the provider's spelling (numbers read out, punctuation and spacing its own) and can be cut
 * wherever a frame boundary fell: a client that attaches timings per audio frame turns
 * "Of course, go ahead." into "Of co urse , go ahea d. ". Here each timed word keeps its times
 * but carries the slice of the reply it voiced, found by counting its non-space characters
 * against the chunks' text; joined, the slices are exactly the reply.
 */
import { type TimedString, voice } from '@livekit/agents';
import { TransformStream } from 'node:stream/web';
import { replyOffset } from './heard-prefix.js';
import { nonSpaceCount } from './text.js';
import type { ReplyTracker } from './tracker.js';

export function respellTimedWords(tracker: ReplyTracker): TransformStream<string | TimedString, string | TimedString> {
  let spoken = 0;
  let emitted = 0;
  let timed = false;
  return new TransformStream({
    transform(item, controller) {
      if (!voice.isTimedString(item)) {
        controller.enqueue(item); // plain text already is the reply
        return;
      }
      timed = true;
      spoken += nonSpaceCount(item.text);
      const offset = Math.max(emitted, replyOffset(tracker.reply, tracker.chunks, spoken));
      const text = tracker.reply.slice(emitted, offset);
      emitted = offset;
      controller.enqueue(voice.createTimedString({ ...item, text }));
    },
    flush(controller) {
      // The TTS stream has ended, so the reply is complete: whatever no timing covered follows.
      const rest = tracker.reply.slice(emitted);
      if (timed && rest) controller.enqueue(rest);
    },
  });
}
