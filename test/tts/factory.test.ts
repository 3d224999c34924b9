import { TTS as LiveKitCartesiaTTS } from '@livekit/agents-plugin-cartesia';
import { afterEach, describe, expect, it } from 'vitest';
import { startCartesiaServer } from '../servers/cartesia-server.js';
import { CartesiaTTS, ResembleTTS } from '@firstword/agents-plugin-tts';
import { type CreatedTTS, createTTS } from '../../src/tts/factory.js';
import { testConfig } from '../helpers/config.js';
import { collect, speak } from '../../packages/agents-plugin-tts/test/driver/harness.js';

describe('createTTS', () => {
  let created: CreatedTTS | undefined;
  afterEach(async () => {
    await created?.close();
    created = undefined;
  });

  it('builds ResembleTTS from RESEMBLE_* with the configured rate and chunking', async () => {
    created = await createTTS(
      testConfig({
        TTS_PROVIDER: 'resemble',
        RESEMBLE_API_KEY: 'k',
        RESEMBLE_VOICE_UUID: 'v',
        TTS_SAMPLE_RATE: '16000',
        CHUNK_POLICY: 'unit',
      }),
    );
    expect(created.tts).toBeInstanceOf(ResembleTTS);
    expect(created.tts.sampleRate).toBe(16000);
    // The unit policy is never paced.
    expect((created.tts as ResembleTTS).pacingEstimates).toBeUndefined();
  });

  it('paces the default asymmetric policy', async () => {
    created = await createTTS(testConfig({ TTS_PROVIDER: 'resemble', RESEMBLE_API_KEY: 'k', RESEMBLE_VOICE_UUID: 'v' }));
    expect((created.tts as ResembleTTS).pacingEstimates).toBeDefined();
  });

  it('builds CartesiaTTS from CARTESIA_*', async () => {
    created = await createTTS(
      testConfig({ TTS_PROVIDER: 'cartesia', CARTESIA_API_KEY: 'k', CARTESIA_VOICE: 'v', TTS_NORMALIZE: 'off' }),
    );
    expect(created.tts).toBeInstanceOf(CartesiaTTS);
    expect(created.tts.sampleRate).toBe(24000);
    expect(created.tts.model).toBe('sonic-3.5');
    expect(created.tts.capabilities.alignedTranscript).toBe(true);
    await created.close();
    created = await createTTS(testConfig({ TTS_PROVIDER: 'cartesia', CARTESIA_API_KEY: 'k', CARTESIA_VOICE: 'v', CARTESIA_WORD_TIMESTAMPS: 'off' }));
    expect(created.tts.capabilities.alignedTranscript).toBe(false);
  });

  it("cartesia-livekit: LiveKit's own Cartesia plugin on the same CARTESIA_* settings, speaking", async () => {
    const server = await startCartesiaServer({ msPerChar: 20 });
    try {
      created = await createTTS(
        testConfig({ TTS_PROVIDER: 'cartesia-livekit', CARTESIA_API_KEY: 'test-key', CARTESIA_VOICE: 'v', CARTESIA_BASE_URL: server.httpUrl }),
      );
      expect(created.tts).toBeInstanceOf(LiveKitCartesiaTTS);
      await created.prewarm();
      const stream = created.tts.stream();
      speak(stream, ['Hello from the official plugin.']);
      const out = await collect(stream, 10_000);
      expect(out.samples.length).toBeGreaterThan(0);
      expect(server.received.some((r) => (r.message as { transcript?: string }).transcript?.includes('official plugin'))).toBe(true);
    } finally {
      await created?.close();
      created = undefined;
      await server.close();
    }
  });

  it('local: the production Resemble client speaks through the embedded voice', async () => {
    created = await createTTS(testConfig({ TTS_PROVIDER: 'local' }));
    expect(created.tts).toBeInstanceOf(ResembleTTS);
    const stream = created.tts.stream();
    speak(stream, ['Hello, this is the embedded voice.']);
    const out = await collect(stream, 15_000);
    const seconds = out.samples.length / created.tts.sampleRate;
    expect(seconds).toBeGreaterThan(0.8);
    expect(seconds).toBeLessThan(6);
    const rms = Math.sqrt(out.samples.reduce((s, x) => s + x * x, 0) / out.samples.length);
    expect(rms).toBeGreaterThan(300); // speech, not silence
  });
});
