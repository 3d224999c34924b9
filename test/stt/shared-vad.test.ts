/**
 * One Silero inference per call: the session's VAD stream runs the model, the STT's follows it.
 * First against a scripted VAD (what is forwarded, and when), then the real `openai.STT` with a
 * live model, the real Silero and real speech against the local server: one model stream, and
 * the STT commits once, after the session's own end of speech.
 */
import { VAD, type VADEvent, VADEventType, VADStream, initializeLogger, stt } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { AudioFrame } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { shareVad } from '../../src/stt/shared-vad.js';
import { withTimeout } from '../helpers/async.js';
import { useSpokenStt } from '../helpers/spoken-stt.js';
import { framesOf, speak } from '../servers/openai/test-audio.js';

initializeLogger({ pretty: false, level: 'warn' });

function vadEvent(type: VADEventType): VADEvent {
  return { type, samplesIndex: 0, timestamp: 0, speechDuration: 0, silenceDuration: 0, frames: [], probability: 0, inferenceDuration: 0, speaking: type !== VADEventType.END_OF_SPEECH, rawAccumulatedSilence: 0, rawAccumulatedSpeech: 0 };
}

/** A VAD whose streams emit what the test tells them to and count the frames they were given. */
class ScriptedVAD extends VAD {
  label = 'scripted';
  readonly streams: ScriptedStream[] = [];
  constructor() {
    super({ updateInterval: 32 });
  }
  override get minSilenceDuration(): number {
    return 550;
  }
  stream(): ScriptedStream {
    const stream = new ScriptedStream(this);
    this.streams.push(stream);
    return stream;
  }
}

class ScriptedStream extends VADStream {
  framesSeen = 0;
  constructor(vad: VAD) {
    super(vad);
    void (async () => {
      for (;;) {
        const { done } = await this.inputReader.read();
        if (done) return;
        this.framesSeen++;
      }
    })();
  }
  emit(type: VADEventType): void {
    this.sendVADEvent(vadEvent(type));
  }
}

const frame = (): AudioFrame => new AudioFrame(new Int16Array(160), 16000, 1, 160);

/** Reads `count` events from a stream (bounded). */
async function read(stream: VADStream, count: number): Promise<VADEventType[]> {
  const types: VADEventType[] = [];
  await withTimeout(
    (async () => {
      while (types.length < count) {
        const { done, value } = await stream.next();
        if (done) return;
        types.push(value.type);
      }
    })(),
    2000,
    `${count} VAD events; got ${JSON.stringify(types)}`,
  );
  return types;
}

describe('shareVad with a scripted VAD', () => {
  it('runs one model stream; the STT stream gets the starts and ends of speech the session read, and no frame reaches the model twice', async () => {
    const inner = new ScriptedVAD();
    const shared = shareVad(inner);
    const sessionStream = shared.session.stream();
    const sttStream = shared.stt.stream();
    expect(inner.streams).toHaveLength(1);
    expect(shared.session.minSilenceDuration).toBe(550);

    for (let i = 0; i < 5; i++) sessionStream.pushFrame(frame());
    for (let i = 0; i < 5; i++) sttStream.pushFrame(frame());
    const model = inner.streams[0]!;
    model.emit(VADEventType.START_OF_SPEECH);
    model.emit(VADEventType.INFERENCE_DONE);
    model.emit(VADEventType.END_OF_SPEECH);

    // Nothing is forwarded before the session reads it: the STT never commits ahead of the turn.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const early = await Promise.race([sttStream.next().then(() => 'forwarded'), new Promise((resolve) => setTimeout(() => resolve('nothing'), 50))]);
    expect(early).toBe('nothing');

    expect(await read(sessionStream, 3)).toEqual([VADEventType.START_OF_SPEECH, VADEventType.INFERENCE_DONE, VADEventType.END_OF_SPEECH]);
    // The pending next() above takes the start; the end follows.
    expect(await read(sttStream, 1)).toEqual([VADEventType.END_OF_SPEECH]);
    expect(model.framesSeen).toBe(5);
    sessionStream.close();
    sttStream.close();
  });

  it('stops delivering to a closed STT stream, and a new one hears the next utterance', async () => {
    const inner = new ScriptedVAD();
    const shared = shareVad(inner);
    const sessionStream = shared.session.stream();
    const first = shared.stt.stream();
    first.close();
    const second = shared.stt.stream();
    inner.streams[0]!.emit(VADEventType.START_OF_SPEECH);
    inner.streams[0]!.emit(VADEventType.END_OF_SPEECH);
    expect(await read(sessionStream, 2)).toEqual([VADEventType.START_OF_SPEECH, VADEventType.END_OF_SPEECH]);
    expect(await read(second, 2)).toEqual([VADEventType.START_OF_SPEECH, VADEventType.END_OF_SPEECH]);
    sessionStream.close();
    second.close();
  });

  it('hands every frame the session stream is given to the frame listeners, before the model reads it, and none the STT is given', async () => {
    const inner = new ScriptedVAD();
    const shared = shareVad(inner);
    const sessionStream = shared.session.stream();
    const sttStream = shared.stt.stream();
    const heard: number[] = [];
    const modelSawBefore: number[] = [];
    const unsubscribe = shared.frames.subscribe((f) => {
      heard.push(f.data[0]!);
      modelSawBefore.push(inner.streams[0]!.framesSeen);
    });
    const numbered = (n: number): AudioFrame => new AudioFrame(Int16Array.from({ length: 160 }, () => n), 16000, 1, 160);
    const modelHas = (n: number) => withTimeout((async () => { while (inner.streams[0]!.framesSeen < n) await new Promise((r) => setTimeout(r, 5)); })(), 2000, `${n} frames at the model`);
    sessionStream.pushFrame(numbered(1));
    sessionStream.pushFrame(numbered(2));
    // How the session feeds its VAD in agents 1.9: a stream, pumped into the same input.
    sessionStream.updateInputStream(new ReadableStream<AudioFrame>({ start: (c) => (c.enqueue(numbered(3)), c.enqueue(numbered(4))) }));
    sttStream.pushFrame(numbered(99));
    await modelHas(4);
    unsubscribe();
    sessionStream.pushFrame(numbered(5));
    await modelHas(5);
    expect(heard).toEqual([1, 2, 3, 4]);
    modelSawBefore.forEach((seen, i) => expect(seen).toBeLessThanOrEqual(i));
    sessionStream.close();
    sttStream.close();
  });

  it('forwards the model metrics only while the session listens, leaving no listener on the process-wide VAD', () => {
    const inner = new ScriptedVAD();
    const shared = shareVad(inner);
    const seen: unknown[] = [];
    const listener = (metrics: unknown): void => void seen.push(metrics);
    expect(inner.listenerCount('metrics_collected')).toBe(0);
    shared.session.on('metrics_collected', listener);
    expect(inner.listenerCount('metrics_collected')).toBe(1);
    const metrics = { type: 'vad_metrics', timestamp: 1, idleTimeMs: 0, inferenceDurationTotalMs: 3, inferenceCount: 31, label: 'scripted' } as const;
    inner.emit('metrics_collected', metrics);
    expect(seen).toEqual([metrics]);
    shared.session.off('metrics_collected', listener);
    expect(inner.listenerCount('metrics_collected')).toBe(0);
  });
});

describe('shareVad with the real openai.STT, Silero and speech', () => {
  const spoken = useSpokenStt();

  for (const [language, text] of [
    ['en-us', 'Can you book a table for two tonight?'],
    ['ko', '내일 오후 세 시에 예약하고 싶어요.'],
  ] as const) {
    it(`commits a live model's audio once, at the session's end of speech (${language})`, async () => {
      const server = await spoken.startServer({ finalAfterCommitMs: 0 });
      const speech = await speak(spoken.synthesizer, text, language);
      server.queueTranscripts([text]);
      let modelStreams = 0;
      const counted = new Proxy(spoken.vad, {
        get(target, key) {
          if (key === 'stream') return () => (modelStreams++, target.stream());
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const shared = shareVad(counted);
      const recognizer = new openai.STT({ apiKey: 'test-key', baseURL: server.url, model: 'gpt-realtime-whisper', detectLanguage: true, vad: shared.stt });
      recognizer.on('error', () => {});
      const sessionStream = shared.session.stream();
      const sttStream = recognizer.stream();

      const frames = framesOf(speech, { leadMs: 200, silenceMs: 1000 });
      let sessionEndAt: number | undefined;
      const sessionEvents = (async () => {
        for await (const event of sessionStream) {
          if (event.type === VADEventType.END_OF_SPEECH) {
            sessionEndAt = Date.now();
            return;
          }
        }
      })();
      let finalText: string | undefined;
      const sttEvents = (async () => {
        for await (const event of sttStream) {
          if (event.type === stt.SpeechEventType.FINAL_TRANSCRIPT) {
            finalText = event.alternatives?.[0]?.text;
            return;
          }
        }
      })();
      const start = performance.now();
      for (const [i, f] of frames.entries()) {
        const wait = start + i * 20 - performance.now(); // a microphone's pace
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sessionStream.pushFrame(f);
        sttStream.pushFrame(f);
      }
      await withTimeout(Promise.all([sessionEvents, sttEvents]), 15_000, 'the session end of speech and the STT final');

      expect(modelStreams).toBe(1);
      expect(finalText).toBe(text);
      const commits = server.utterances.filter((u) => u.source === 'commit');
      expect(commits).toHaveLength(1);
      expect(commits[0]!.receivedAt).toBeGreaterThanOrEqual(sessionEndAt!);
      sttStream.close();
      sessionStream.close();
    }, 30_000);
  }
});
