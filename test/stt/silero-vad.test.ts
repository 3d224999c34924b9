/**
 * The worker's Silero load (src/stt/silero-vad.ts): its VAD says what the plugin's own
 * `VAD.load()` says, whether its graph was optimized here, saved for the next process, or read back;
 * a saved graph that does not load is replaced, and a directory that cannot be written costs
 * nothing but the saving.
 */
import { VADEventType, initializeLogger } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { AudioFrame, AudioResampler, AudioResamplerQuality } from '@livekit/rtc-node';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { loadSileroVad, optimizedGraphPath } from '../../src/stt/silero-vad.js';
import { withTimeout } from '../helpers/async.js';
import { SteppedStream } from '../helpers/stepped-vad.js';
import { framesOf, speak } from '../servers/openai/test-audio.js';

initializeLogger({ pretty: false, level: 'fatal' });

const SILENCE_MS = 250;
/** onnxruntime's fusions may round differently from the unoptimized graph's; events must not move. */
const PROBABILITY_TOLERANCE = 1e-4;

/**
 * eSpeak's 22.05 kHz speech as 20 ms frames at Silero's 16 kHz. Fed at another rate, the plugin
 * resamples it with rtc-node's sox resampler, whose output differs by ±1 in some samples from one
 * resampler to the next; the model's state carries that on (up to 0.04 in a window's
 * probability), so two VADs could not be compared window for window.
 */
function atModelRate(frames: AudioFrame[]): AudioFrame[] {
  const resampler = new AudioResampler(frames[0]!.sampleRate, 16_000, 1, AudioResamplerQuality.HIGH);
  const resampled = [...frames.flatMap((f) => resampler.push(f)), ...resampler.flush()];
  const samples = new Int16Array(resampled.reduce((n, f) => n + f.data.length, 0));
  let offset = 0;
  for (const f of resampled) {
    samples.set(f.data, offset);
    offset += f.data.length;
  }
  const out: AudioFrame[] = [];
  for (let at = 0; at + 320 <= samples.length; at += 320) out.push(new AudioFrame(samples.slice(at, at + 320), 16_000, 1, 320));
  return out;
}

interface Said {
  kinds: string[];
  probabilities: number[];
}

describe('the worker\'s Silero VAD', () => {
  let synthesizer: EspeakSynthesizer;
  let frames: AudioFrame[];
  let reference: Said;
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-silero-test-'));
    dirs.push(dir);
    return dir;
  };

  async function said(vad: silero.VAD): Promise<Said> {
    const stepped = new SteppedStream(vad.stream());
    for (const frame of frames) await stepped.push(frame);
    stepped.close();
    const windows = stepped.events.filter((e) => e.type === VADEventType.INFERENCE_DONE);
    return {
      // Every event but the per-window ones, with the sample it came at and the audio it carries
      // (the padding before speech, the buffered speech): speech start and end.
      kinds: stepped.events
        .filter((e) => e.type !== VADEventType.INFERENCE_DONE)
        .map((e) => `${e.type}@${e.samplesIndex}+${e.frames.reduce((n, f) => n + f.samplesPerChannel, 0)}`),
      probabilities: windows.map((e) => e.probability),
    };
  }

  const expectSameAsPlugin = (got: Said) => {
    expect(got.kinds).toEqual(reference.kinds);
    expect(got.probabilities.length).toBe(reference.probabilities.length);
    const worst = Math.max(...got.probabilities.map((p, i) => Math.abs(p - reference.probabilities[i]!)));
    expect(worst).toBeLessThan(PROBABILITY_TOLERANCE);
  };

  beforeAll(async () => {
    synthesizer = await withTimeout(EspeakSynthesizer.start(), 30_000, 'eSpeak start');
    const first = await speak(synthesizer, 'I would like to book a table', 'en-us');
    const second = await speak(synthesizer, '내일 저녁 일곱 시요', 'ko');
    frames = atModelRate([...framesOf(first, { leadMs: 300, silenceMs: 600 }), ...framesOf(second, { silenceMs: 600 })]);
    reference = await said((await silero.VAD.load({ minSilenceDuration: SILENCE_MS })) as silero.VAD);
    // Two turns: each starts and ends speech once at least.
    expect(reference.kinds.length).toBeGreaterThanOrEqual(4);
  }, 60_000);

  afterAll(async () => {
    await synthesizer?.close();
  });
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says what the plugin\'s VAD.load() says without a directory', async () => {
    expectSameAsPlugin(await said(await loadSileroVad({ minSilenceDuration: SILENCE_MS })));
  }, 30_000);

  it('saves the optimized graph once, and a later load reads it as saved', async () => {
    const dir = freshDir();
    const saved = optimizedGraphPath(dir);
    expect(existsSync(saved)).toBe(false);

    expectSameAsPlugin(await said(await loadSileroVad({ minSilenceDuration: SILENCE_MS, cacheDir: dir })));
    expect(statSync(saved).size).toBeGreaterThan(100_000);
    // Only the graph: the file it was written under is gone.
    expect(readdirSync(join(dir, 'onnxruntime'))).toEqual([saved.split('/').pop()]);
    const writtenAt = statSync(saved).mtimeMs;

    expectSameAsPlugin(await said(await loadSileroVad({ minSilenceDuration: SILENCE_MS, cacheDir: dir })));
    expect(statSync(saved).mtimeMs).toBe(writtenAt);
  }, 60_000);

  it('replaces a saved graph that does not load, and still listens', async () => {
    const dir = freshDir();
    await loadSileroVad({ minSilenceDuration: SILENCE_MS, cacheDir: dir });
    const saved = optimizedGraphPath(dir);
    writeFileSync(saved, 'cut short');

    expectSameAsPlugin(await said(await loadSileroVad({ minSilenceDuration: SILENCE_MS, cacheDir: dir })));
    expect(statSync(saved).size).toBeGreaterThan(100_000);
  }, 60_000);

  it('listens as before when the directory cannot be written', async () => {
    // root may write anywhere: a path under a file cannot be made by anyone.
    const dir = freshDir();
    const notADir = join(dir, 'file');
    writeFileSync(notADir, '');

    expectSameAsPlugin(await said(await loadSileroVad({ minSilenceDuration: SILENCE_MS, cacheDir: notADir })));
    expect(readdirSync(dir)).toEqual(['file']);
  }, 30_000);

  it('names the saved graph by onnxruntime\'s version and the model, so no other build reads it', () => {
    const dir = '/x';
    expect(optimizedGraphPath(dir)).toMatch(/^\/x\/onnxruntime\/silero_vad-\d+\.\d+\.\d+-\d+-extended\.onnx$/);
    const other = join(freshDir(), 'other.onnx');
    writeFileSync(other, 'a different model');
    expect(optimizedGraphPath(dir, other)).not.toBe(optimizedGraphPath(dir));
  });
});
