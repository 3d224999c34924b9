/**
 * The early final through the real `openai.STT` (a live model), the real Silero and real speech
 * against the local server, whose own final comes long after its commit: the settled words reach
 * the framework as the final before the model's, and the model's final is then held against them.
 */
import { initializeLogger, stt } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS } from '../../src/config/defaults.js';
import { PreflightSTT, type TranscriptRevision } from '../../src/stt/preflight.js';
import { earlyFinalTiming } from '../../src/stt/index.js';
import { shareVad } from '../../src/stt/shared-vad.js';
import { withTimeout } from '../helpers/async.js';
import { useSpokenStt } from '../helpers/spoken-stt.js';
import { framesOf, speak } from '../servers/openai/test-audio.js';

initializeLogger({ pretty: false, level: 'warn' });

/** Far longer than the early final waits, so the order below does not hang on the machine's load. */
const MODEL_FINAL_AFTER_COMMIT_MS = 4000;

describe('the early final with the real plugin, Silero and speech', () => {
  const spoken = useSpokenStt({ minSilenceDuration: CONFIG_DEFAULTS.turn.silenceMs });

  async function hear(text: string, language: 'en-us' | 'ko', final?: string) {
    const server = await spoken.startServer({ finalAfterCommitMs: MODEL_FINAL_AFTER_COMMIT_MS });
    const speech = await speak(spoken.synthesizer, text, language);
    const frames = framesOf(speech, { leadMs: 200, silenceMs: 1000 });
    // At most the speech's length, so no second transcript binds to its tail; the last words come ~300 ms after its last sound.
    server.queueTranscripts([{ text, voicedMs: (speech.samples.length * 1000) / speech.sampleRate, ...(final !== undefined ? { final } : {}) }]);
    const shared = shareVad(spoken.vad);
    const inner = new openai.STT({ apiKey: 'test-key', baseURL: server.url, model: 'gpt-realtime-whisper', detectLanguage: true, vad: shared.stt });
    inner.on('error', () => {});
    const recognizer = new PreflightSTT(inner, { earlyFinal: earlyFinalTiming(CONFIG_DEFAULTS.turn) });
    const revisions: TranscriptRevision[] = [];
    recognizer.onRevision((r) => revisions.push(r));
    const sessionStream = shared.session.stream();
    const sttStream = recognizer.stream();
    const sessionEvents = (async () => {
      for await (const _ of sessionStream) void _;
    })();
    const finals: { text: string; modelFinalsBefore: number }[] = [];
    const sttEvents = (async () => {
      for await (const event of sttStream) {
        if (event.type !== stt.SpeechEventType.FINAL_TRANSCRIPT) continue;
        const c = recognizer.counts;
        finals.push({ text: event.alternatives?.[0]?.text ?? '', modelFinalsBefore: c.earlyConfirmed + c.earlyRevised });
      }
    })();
    const start = performance.now();
    for (const [i, f] of frames.entries()) {
      const wait = start + i * 20 - performance.now(); // a microphone's pace
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      sessionStream.pushFrame(f);
      sttStream.pushFrame(f);
    }
    // Until the model's own final for the speech has come and been held against the early one.
    await withTimeout(
      (async () => {
        while (recognizer.counts.earlyConfirmed + recognizer.counts.earlyRevised === 0) await new Promise((r) => setTimeout(r, 50));
      })(),
      20_000,
      `the model's final (counts ${JSON.stringify(recognizer.counts)})`,
    );
    sttStream.close();
    sessionStream.close();
    await Promise.allSettled([sessionEvents, sttEvents]);
    return { finals, revisions, counts: recognizer.counts };
  }

  for (const [language, text] of [
    ['en-us', 'Can you book a table for two tonight?'],
    ['ko', '내일 오후 세 시에 예약하고 싶어요.'],
  ] as const) {
    it(`hands on every word as the final before the model's final comes, then drops the model's (${language})`, async () => {
      const { finals, revisions, counts } = await hear(text, language);
      expect(finals).toEqual([{ text, modelFinalsBefore: 0 }]);
      expect(revisions).toEqual([]);
      expect(counts).toMatchObject({ earlyFinals: 1, earlyConfirmed: 1, earlyRevised: 0 });
    }, 40_000);
  }

  it('a model final that hears other words is not a second final: it goes to the revision listeners', async () => {
    const text = 'I need a table for four people.';
    const { finals, revisions, counts } = await hear(text, 'en-us', 'I need a cable for four people.');
    expect(finals).toEqual([{ text, modelFinalsBefore: 0 }]);
    expect(revisions.map(({ early, final }) => ({ early, final }))).toEqual([{ early: text, final: 'I need a cable for four people.' }]);
    expect(counts).toMatchObject({ earlyFinals: 1, earlyConfirmed: 0, earlyRevised: 1 });
  }, 40_000);
});
