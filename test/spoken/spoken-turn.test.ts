/**
 * Spoken turns end to end in a room-less session: the local voice's speech at real time through
 * the real Silero VAD, the scripted STT, the production session wiring, the early ack and the
 * turn budget — what `npm run demo` and `npm run bench:turn` measure with.
 */
import { initializeLogger } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareAcknowledgements } from '../../src/ack/index.js';
import type { AckLibrary } from '../../src/ack/library.js';
import { EARLY_ACK_PHRASES } from '../../src/ack/phrases.js';
import { ReplayLLM } from '../../src/demo/replay-llm.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { SpokenSession } from '../../src/spoken/spoken-session.js';
import { type RenderedUtterance, renderUtterance } from '../../src/spoken/utterance.js';
import { ResembleTTS } from '@firstword/agents-plugin-tts';
import { TranscriptTurnDetector, predictTurnComplete } from '../../src/turn/transcript-detector.js';
import { type ResembleServer, startResembleServer } from '../servers/resemble-server.js';

initializeLogger({ pretty: false, level: 'error' });

let server: ResembleServer;
let engine: ResembleTTS;
let library: AckLibrary;
const clips: Record<'complete' | 'paused', RenderedUtterance> = {} as never;

beforeAll(async () => {
  const synth = await EspeakSynthesizer.start();
  try {
    clips.complete = await renderUtterance(synth, { language: 'en', pieces: [{ text: 'What time does the pharmacy open tomorrow?' }] });
    clips.paused = await renderUtterance(synth, { language: 'ko', pieces: [{ text: '내일 서울 날씨가', pauseAfterMs: 700 }, { text: '어떨까요?' }] });
  } finally {
    await synth.close();
  }
  server = await startResembleServer({ firstByteDelayMs: 120, msPerChar: 60, realTimeFactor: 0.2 });
  engine = new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: server.url, sampleRate: 22050 });
  await engine.prewarm();
  library = await prepareAcknowledgements(engine, { phrases: EARLY_ACK_PHRASES });
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await server?.close();
});

function replay(): ReplayLLM {
  return new ReplayLLM({ replies: [], fallback: (p) => (/[가-힣]/.test(p) ? '네, 맑을 거예요.' : 'Sure, it opens at nine.'), firstTokenDelayMs: 300, tokensPerSecond: 40 });
}

describe('spoken turns', () => {
  it('firstword: the early ack after the caller is done, then the reply; a pause after unfinished words is waited out', async () => {
    const vad = await silero.VAD.load({ minSilenceDuration: 250 });
    const spoken = await SpokenSession.start({
      vad,
      llm: replay(),
      tts: engine,
      turn: { minDelayMs: 300, maxDelayMs: 1500, preemptive: true, detection: new TranscriptTurnDetector() },
      earlyAck: { library, predict: predictTurnComplete },
    });
    try {
      const complete = await spoken.say(clips.complete, { cutReplyAfterMs: 300 });
      expect(complete.falseEnds).toBe(0);
      const played = complete.acks.find((a) => a.outcome === 'played');
      expect(played?.playback?.startedAt).toBeGreaterThanOrEqual(complete.endOfSpeechAt);
      expect(complete.firstSoundMs).toBeDefined();
      expect(complete.firstContentMs).toBeGreaterThan(complete.firstSoundMs!);
      // The worker's log line says the same: the ack was this turn's first sound.
      expect(complete.report?.ack).toMatchObject({ outcome: 'played', reason: 'early' });
      expect(complete.report?.firstSoundMs).toBeLessThan(complete.report!.firstContentMs!);

      const paused = await spoken.say(clips.paused, { cutReplyAfterMs: 300 });
      expect(paused.pauses).toBe(1);
      expect(paused.falseEnds).toBe(0);
      expect(paused.acks.some((a) => a.outcome === 'skipped' && a.reason === 'not_over')).toBe(true);
      expect(paused.firstContentMs).toBeDefined();
      expect(paused.report?.interrupted).toBe(true);
    } finally {
      await spoken.close();
    }
  }, 60_000);

  it('silence alone takes the pause for the end: the ack and the reply start while the caller only paused, and are counted', async () => {
    const vad = await silero.VAD.load({ minSilenceDuration: 200 });
    const spoken = await SpokenSession.start({
      vad,
      llm: replay(),
      tts: engine,
      turn: { minDelayMs: 100, maxDelayMs: 100, preemptive: true, detection: 'vad' },
      earlyAck: { library, predict: () => 1 },
    });
    try {
      const paused = await spoken.say(clips.paused, { cutReplyAfterMs: 300 });
      expect(paused.falseEnds).toBeGreaterThanOrEqual(1);
      const early = paused.acks.find((a) => a.outcome === 'played' || a.outcome === 'cut');
      expect(early?.endOfSpeechAt).toBeLessThan(paused.utterance.pieces[1]!.firstVoicedAt);
    } finally {
      await spoken.close();
    }
  }, 60_000);
});
