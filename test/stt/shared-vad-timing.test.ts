/**
 * Where the shared Silero stream says an utterance ended, and when the STT hears it: the real
 * model over real eSpeak speech with known silence around it, cut into the frames a room (48 kHz,
 * 10 ms) and a phone leg (16 kHz, 20 ms) deliver. The STT commits its audio at the end of speech it
 * is handed (src/stt/shared-vad.ts), so that end must be the session's own, never before the voice
 * stops (by more than one window), and must reach the STT with the frame that completed the
 * deciding window, not a frame later.
 */
import { type VADEvent, VADEventType, initializeLogger } from '@livekit/agents';
import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS } from '../../src/config/defaults.js';
import type { VoiceLanguage } from '../../src/local-voice/worker-messages.js';
import { shareVad } from '../../src/stt/shared-vad.js';
import { useSpokenStt } from '../helpers/spoken-stt.js';
import { SteppedStream, modelSamplesAfterEach } from '../helpers/stepped-vad.js';
import { speak } from '../servers/openai/test-audio.js';

initializeLogger({ pretty: false, level: 'error' });

const WINDOW_MS = 32;
/** Silero's probability stays up for up to this long after speech that stops abruptly. */
const HANGOVER_MS = 4 * WINDOW_MS;
const LEAD_MS = 600;
const TAIL_MS = 1200;
/** A sample this far from zero is voice: eSpeak's pauses are digital silence. */
const VOICED = 300;

function resampled(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples;
  const resampler = new AudioResampler(from, to, 1, AudioResamplerQuality.VERY_HIGH);
  const out = [...resampler.push(new AudioFrame(samples, from, 1, samples.length)), ...resampler.flush()];
  resampler.close();
  const joined = new Int16Array(out.reduce((n, f) => n + f.samplesPerChannel, 0));
  let offset = 0;
  for (const f of out) {
    joined.set(f.data.subarray(0, f.samplesPerChannel), offset);
    offset += f.samplesPerChannel;
  }
  return joined;
}

/** Lead silence, the speech, tail silence, at `rate`; and where the voice really starts and ends (ms). */
function utterance(samples: Int16Array, rate: number): { audio: Int16Array; startMs: number; endMs: number } {
  const lead = Math.round((rate * LEAD_MS) / 1000);
  const audio = new Int16Array(lead + samples.length + Math.round((rate * TAIL_MS) / 1000));
  audio.set(samples, lead);
  const first = audio.findIndex((s) => Math.abs(s) > VOICED);
  const last = audio.findLastIndex((s) => Math.abs(s) > VOICED);
  return { audio, startMs: (first * 1000) / rate, endMs: ((last + 1) * 1000) / rate };
}

function framesOf(audio: Int16Array, rate: number, frameMs: number): AudioFrame[] {
  const step = (rate * frameMs) / 1000;
  const frames: AudioFrame[] = [];
  for (let offset = 0; offset < audio.length; offset += step) {
    const chunk = audio.slice(offset, Math.min(audio.length, offset + step));
    frames.push(new AudioFrame(chunk, rate, 1, chunk.length));
  }
  return frames;
}

describe('the shared Silero stream over real speech', () => {
  // The worker's own settings (src/agent.ts): end of speech after the turn's silence.
  const spoken = useSpokenStt({ minSilenceDuration: CONFIG_DEFAULTS.turn.silenceMs });

  const cases: { language: VoiceLanguage; text: string; rate: number; frameMs: number }[] = [
    { language: 'en-us', text: 'Can you book a table for two tonight?', rate: 48000, frameMs: 10 },
    { language: 'ko', text: '내일 오후 세 시에 예약하고 싶어요.', rate: 48000, frameMs: 10 },
    { language: 'en-us', text: 'Yes, please.', rate: 16000, frameMs: 20 },
    { language: 'ko', text: '네, 좋아요.', rate: 16000, frameMs: 20 },
  ];

  for (const { language, text, rate, frameMs } of cases) {
    it(`hands the STT the session's end of speech, where the voice stopped, with the frame that decided it (${language}, ${rate} Hz, ${frameMs} ms frames)`, async () => {
      const speech = await speak(spoken.synthesizer, text, language);
      const { audio, startMs, endMs } = utterance(resampled(speech.samples, speech.sampleRate, rate), rate);
      const frames = framesOf(audio, rate, frameMs);
      const modelSamples = modelSamplesAfterEach(frames);

      const shared = shareVad(spoken.vad);
      const session = new SteppedStream(shared.session.stream());
      const sttStream = shared.stt.stream();
      const heardBySTT: VADEvent[] = [];
      void (async () => {
        for await (const event of sttStream) heardBySTT.push(event);
      })();

      let endAfterFrame: number | undefined;
      let sttHadEnd = false;
      for (const [i, frame] of frames.entries()) {
        await session.push(frame);
        if (endAfterFrame === undefined && session.events.some((e) => e.type === VADEventType.END_OF_SPEECH)) {
          endAfterFrame = i;
          // FollowingStream's output is read a few microtasks after the session's event.
          await new Promise((resolve) => setImmediate(resolve));
          sttHadEnd = heardBySTT.some((e) => e.type === VADEventType.END_OF_SPEECH);
        }
      }
      await new Promise((resolve) => setImmediate(resolve));
      session.close();
      sttStream.close();

      const boundaries = heardBySTT.map((e) => e.type);
      expect(boundaries).toEqual([VADEventType.START_OF_SPEECH, VADEventType.END_OF_SPEECH]);
      const [start, end] = heardBySTT as [VADEvent, VADEvent];
      const sessionEnd = session.events.find((e) => e.type === VADEventType.END_OF_SPEECH)!;
      expect(end.timestamp).toBe(sessionEnd.timestamp);

      // Where the model heard the voice stop: the end event comes after the silence it counted,
      // which began after its last window above the threshold (the plugin's default, 0.5).
      const heardEndMs = end.timestamp - end.silenceDuration;
      const lastSpeechWindow = session.events.findLast((e) => e.type === VADEventType.INFERENCE_DONE && e.timestamp < end.timestamp && e.probability > 0.5)!;
      expect(heardEndMs).toBe(lastSpeechWindow.timestamp);
      expect(end.silenceDuration).toBeGreaterThan(CONFIG_DEFAULTS.turn.silenceMs);
      expect(end.silenceDuration).toBeLessThanOrEqual(CONFIG_DEFAULTS.turn.silenceMs + WINDOW_MS);
      // Against the audio: never before the voice stops (the STT would commit a clipped
      // utterance), and after it by no more than the model's own hangover. Measured: within
      // 2–30 ms where eSpeak's English fades out; 55–100 ms where its Korean stops dead at
      // -21 dBFS, the model's probability staying above 0.5 for two or three windows of silence.
      expect(heardEndMs).toBeGreaterThanOrEqual(endMs - WINDOW_MS);
      expect(heardEndMs).toBeLessThanOrEqual(endMs + HANGOVER_MS);
      expect(Math.abs(start.timestamp - start.speechDuration - startMs)).toBeLessThanOrEqual(2 * WINDOW_MS);

      // The end came with the frame that completed its window, and the STT had it then.
      expect(endAfterFrame).toBeDefined();
      const samplesIn = modelSamples[endAfterFrame!]!;
      const samplesBefore = endAfterFrame! > 0 ? modelSamples[endAfterFrame! - 1]! : 0;
      expect(end.samplesIndex).toBeLessThanOrEqual(samplesIn);
      expect(end.samplesIndex).toBeGreaterThan(samplesBefore);
      expect(sttHadEnd).toBe(true);
    }, 60_000);
  }
});
