/**
 * A full room-less AgentSession turn through each real provider client: the framework's FakeLLM
 * streams a reply, our driver chunks and synthesizes it against the protocol server, and
 * RecordingAudioOutput "plays" it. What was played must be exactly the server's audio for the
 * chunks we sent, in order.
 */
import { llm, stt, voice } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingAudioOutput, segmentAudio } from '../../src/audio/recording-output.js';
import { createAssistant, createSession } from '../../src/session.js';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { nextEvent } from '../helpers/async.js';
import { type ProviderFixture, fixtures, heardTags, recordSent, withTimeout } from '../../packages/agents-plugin-tts/test/driver/harness.js';

const REPLY_KO = '네, 알겠습니다. 서울은 오늘 맑고 최고 기온은 이십삼 도예요. 우산은 필요 없어요.';

for (const name of ['resemble', 'cartesia'] as const) {
  describe(`${name}: room-less AgentSession turn`, () => {
    let fx: ProviderFixture;
    let engine: FirstwordTTS;
    const cleanups: Array<() => Promise<void>> = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await withTimeout(c(), 5000, 'cleanup');
      await engine?.close();
      await fx?.close();
    });

    it('a user turn becomes assistant audio from our TTS and the reply lands in the history', async () => {
      fx = await fixtures[name]({ firstByteDelayMs: 5 });
      engine = fx.make();
      await engine.prewarm();
      const sent = recordSent(engine);
      const session = createSession(
        {
          stt: new stt.testing.FakeSTT(),
          llm: new voice.testing.FakeLLM([{ input: '서울 날씨 어때요?', content: REPLY_KO, ttft: 0.05, duration: 0.5 }]),
          tts: engine,
        },
      );
      const output = new RecordingAudioOutput({ playout: 'instant' });
      session.output.audio = output;
      cleanups.push(async () => {
        await session.close();
        output.close();
      });
      await withTimeout(session.start({ agent: createAssistant() }), 5000, 'start');
      const committed = nextEvent<voice.ConversationItemAddedEvent>(
        session,
        voice.AgentSessionEventTypes.ConversationItemAdded,
        (ev) => ev.item.type === 'message' && ev.item.role === 'assistant',
      );
      const handle = session.generateReply({ userInput: '서울 날씨 어때요?' });
      await withTimeout(handle.waitForPlayout(), 8000, 'playout');
      await withTimeout(committed, 5000, 'history');

      const texts = [...sent.values()].flat();
      expect(texts.length).toBeGreaterThan(1);
      expect(texts.join(' ').replace(/\s+/g, ' ')).toBe(REPLY_KO);
      expect(output.segments).toHaveLength(1);
      const played = segmentAudio(output.segments[0]!)!;
      expect(played.sampleRate).toBe(16000);
      expect(heardTags(played.data).map((r) => r.tag)).toEqual(texts.map((t) => fx.tagOf(t)));
      const assistant = session.history.items.filter(
        (i): i is llm.ChatMessage => i.type === 'message' && i.role === 'assistant',
      );
      expect(assistant.map((m) => m.textContent)).toEqual([REPLY_KO]);
    });
  });
}
