/**
 * After an interruption, the next reply must not wait for the interrupted one to unwind.
 *
 * agents 1.9 with aligned transcripts (our TTS with word timestamps) used to hold an interrupted
 * reply for 2 × REPLY_TASK_CANCEL_TIMEOUT (2 s each) before committing it, and every reply queued
 * behind it waited too (see src/heard/until-interrupted.ts). The bound here is that single 2 s
 * timeout: the fixed path needs a few tens of milliseconds, the broken one at least 4 s.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { withTimeout } from '../helpers/async.js';
import { type HeardSession, interruptAfterPlayed, nextAssistantMessage, startHeardSession } from './session-harness.js';

/** The framework's REPLY_TASK_CANCEL_TIMEOUT (voice/speech_handle.ts), which the bug waited out twice. */
const REPLY_TASK_CANCEL_TIMEOUT_MS = 2_000;

const LONG_REPLY =
  'Here is the whole story from the very beginning, told slowly and with every detail you could wish for, ' +
  'so that it keeps the voice busy for a good while after anyone stops listening to it.';
const NEXT_REPLY = 'Of course, go ahead.';

describe('the next reply after an interruption', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));

  let h: HeardSession | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  for (const provider of ['resemble', 'cartesia'] as const) {
    it(`starts before the framework's 2 s cancel timeout could have passed (${provider}, word timestamps)`, async () => {
      h = await startHeardSession({
        provider,
        timestamps: true,
        msPerChar: 30,
        // Twice real time: the interrupted reply is still being synthesized when it is cut.
        realTimeFactor: 0.5,
        responses: [
          { input: 'tell me everything', content: LONG_REPLY },
          { input: 'wait', content: NEXT_REPLY },
        ],
      });
      const interruptedMessage = nextAssistantMessage(h.session);
      const first = h.session.generateReply({ userInput: 'tell me everything' });
      await withTimeout(interruptAfterPlayed(h, 600), 10_000, 'the first reply to play');

      // The caller speaks again right away.
      const nextPlaying = new Promise<void>((resolve) =>
        h!.output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => resolve()),
      );
      const second = h.session.generateReply({ userInput: 'wait' });
      let timer: NodeJS.Timeout | undefined;
      const timeoutPassed = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), REPLY_TASK_CANCEL_TIMEOUT_MS);
      });
      const winner = await Promise.race([nextPlaying.then(() => 'next reply'), timeoutPassed]);
      clearTimeout(timer);

      expect(winner).toBe('next reply');
      expect(first.interrupted).toBe(true);
      const committed = await withTimeout(interruptedMessage, 1_000, 'the interrupted reply in the history');
      expect(committed.interrupted).toBe(true);
      expect(LONG_REPLY.startsWith(committed.textContent ?? '')).toBe(true);
      await withTimeout(second.waitForPlayout(), 10_000, 'the next reply to finish');
      expect(second.interrupted).toBe(false);
      // History order: the interrupted reply is committed before the next one.
      const assistant = h.session.history.items
        .filter((i) => i.type === 'message' && i.role === 'assistant')
        .map((i) => (i.type === 'message' ? i.textContent : ''));
      expect(assistant).toEqual([committed.textContent, NEXT_REPLY]);
    });
  }
});
