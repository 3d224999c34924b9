import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { withTimeout } from './ws-client.js';

let synthesizer: EspeakSynthesizer;

beforeAll(async () => {
  synthesizer = await EspeakSynthesizer.start();
});

afterAll(async () => {
  await synthesizer?.close();
});

describe('EspeakSynthesizer', () => {
  it('produces 22.05 kHz audio in several blocks, so the first can leave before the sentence ends', async () => {
    const blocks: number[] = [];
    await withTimeout(
      synthesizer.synthesize('This sentence is long enough to take several blocks of audio.', 'en-us', {
        onAudio: (samples) => blocks.push(samples.length),
      }),
      10_000,
      'synthesis',
    );
    expect(synthesizer.sampleRate).toBe(22050);
    expect(blocks.length).toBeGreaterThan(3);
    expect(blocks.reduce((a, b) => a + b, 0) / 22050).toBeGreaterThan(1.5);
  });

  it('skips queued jobs whose caller has gone, and runs the rest in order', async () => {
    const order: string[] = [];
    const gone = new AbortController();
    const first = synthesizer.synthesize('First.', 'en-us', { onAudio: () => order.push('first') });
    const skipped = synthesizer.synthesize('Skipped.', 'en-us', { onAudio: () => order.push('skipped') }, gone.signal);
    const last = synthesizer.synthesize('마지막.', 'ko', { onAudio: () => order.push('last') });
    gone.abort();
    await withTimeout(Promise.all([first, skipped, last]), 10_000, 'jobs');
    const collapsed = order.filter((entry, i) => entry !== order[i - 1]);
    expect(collapsed).toEqual(['first', 'last']);
  });

  // Runs last: it closes the shared synthesizer.
  it('fails jobs with a clear error once closed', async () => {
    const running = synthesizer
      .synthesize('Cut off by close.', 'en-us', { onAudio: () => {} })
      .then(() => 'finished', (error: Error) => error.message);
    await synthesizer.close();
    expect(await running).toContain('closed');
    await expect(synthesizer.synthesize('Too late.', 'en-us', { onAudio: () => {} })).rejects.toThrow('closed');
  });
});
