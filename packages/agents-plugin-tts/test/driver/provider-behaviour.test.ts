import { APIError, type tts } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, speak, tokens, withTimeout, everyStream } from './harness.js';

const REPLY_EN =
  'Sure, I can help with that. The store opens at nine in the morning on weekdays. On weekends it opens an hour later, at ten.';
const REPLY_KO = '네, 확인해 드릴게요. 매장은 평일 오전 아홉 시에 문을 엽니다. 주말에는 한 시간 늦게 열어요.';

/** Every sent text voiced exactly once, whole, in send order — and nothing else. */
function expectVoicedInOrder(fx: ProviderFixture, samples: Int16Array, texts: string[], sampleRate = 16000) {
  const heard = heardTags(samples);
  const expected = texts.map((t) => ({ tag: fx.tagOf(t), samples: samplesForText(fx.wireText(t), sampleRate, 2) }));
  expect(heard).toEqual(expected);
}

/**
 * The first clause, then the rest once the first went to the provider. Pushed all at once, a
 * starved host may hold every token before the first send, and the whole reply then rightly goes
 * as one request: no pipeline left to test.
 */
async function speakAfterFirstSend(stream: ReturnType<FirstwordTTS['stream']>, reply: string, sent: Map<string, string[]>): Promise<void> {
  const cut = reply.indexOf(', ') + 2;
  for (const token of tokens(reply.slice(0, cut))) stream.pushText(token);
  await withTimeout(
    (async () => {
      while ((sent.get(stream.id)?.length ?? 0) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    })(),
    10_000,
    `the first clause of ${JSON.stringify(reply.slice(0, cut))} sent`,
  );
  speak(stream, tokens(reply.slice(cut)));
}

for (const name of ['resemble', 'cartesia'] as const) {
  describe(`${name}: shared driver behaviour`, () => {
    let fx: ProviderFixture;
    let engine: FirstwordTTS | undefined;
    afterEach(async () => {
      await engine?.close();
      engine = undefined;
      await fx?.close();
    });

    it('pipelines a multi-chunk reply and plays every chunk once, in order (English and Korean)', async () => {
      fx = await fixtures[name]({ firstByteDelayMs: 5 });
      engine = fx.make();
      const sent = recordSent(engine);
      const done: Array<{ streamId: string; startSample: number; endSample: number }> = [];
      everyStream(engine).on('track_done', (e) => done.push(e));
      for (const reply of [REPLY_EN, REPLY_KO, REPLY_EN]) {
        const stream = engine.stream();
        const collected = collect(stream);
        await speakAfterFirstSend(stream, reply, sent);
        const out = await collected;
        const texts = sent.get(stream.id) ?? [];
        expect(texts.length).toBeGreaterThan(1);
        expect(out.endOfStream).toBe(true);
        expectVoicedInOrder(fx, out.samples, texts);
        // The segment's last frame, and only it, is final.
        expect(out.frames.filter((f) => f.final)).toHaveLength(1);
        expect(out.frames[out.frames.length - 1]!.final).toBe(true);
        // Each track's audio sits right after the previous one's in the segment.
        const tracks = done.filter((d) => d.streamId === stream.id);
        expect(tracks[0]!.startSample).toBe(0);
        tracks.forEach((t, i) => i > 0 && expect(t.startSample).toBe(tracks[i - 1]!.endSample));
        const voiced = heardTags(out.samples).reduce((n, r) => n + r.samples, 0);
        expect(tracks[tracks.length - 1]!.endSample).toBe(voiced);
      }
    });

    it('reuses one socket across turns, including an interrupted one, and plays no stale frame', async () => {
      fx = await fixtures[name]({ realTimeFactor: 0.5, msPerChar: 2 });
      engine = fx.make({ pool: { warmSpare: false, maxSockets: name === 'resemble' ? 2 : 1 } });
      await engine.prewarm();
      const sent = recordSent(engine);
      // Turn 1 completes.
      const s1 = engine.stream();
      speak(s1, tokens(REPLY_EN));
      await collect(s1);
      // Turn 2 is interrupted right after its first audio.
      const s2 = engine.stream();
      speak(s2, tokens(REPLY_EN + ' ' + REPLY_EN));
      const first = await withTimeout(s2.next(), 5000, 'first frame');
      expect(first.done).toBe(false);
      s2.close();
      // Turn 3 right away: nothing from turn 2 may be heard.
      const s3 = engine.stream();
      speak(s3, tokens(REPLY_KO));
      const out3 = await collect(s3);
      const turn3Texts = sent.get(s3.id) ?? [];
      const allowed = new Set(turn3Texts.map((t) => fx.tagOf(t)));
      for (const run of heardTags(out3.samples)) expect(allowed.has(run.tag)).toBe(true);
      expectVoicedInOrder(fx, out3.samples, turn3Texts);
      const opened = fx.server.connectionsOpened;
      // In-order Resemble may use its second socket while the first drains stale requests.
      expect(opened).toBeLessThanOrEqual(name === 'resemble' ? 2 : 1);
      expect(engine.poolStats.open).toBeGreaterThanOrEqual(1);
    });

    it('produces identical samples whether frames are odd-sized or even', async () => {
      fx = await fixtures[name]({ frameBytes: 1001, ...(name === 'resemble' ? { oddFrameProbability: 0.7 } : {}) });
      engine = fx.make();
      const a = engine.stream();
      speak(a, tokens(REPLY_EN));
      const odd = await collect(a);
      fx.setServer({ frameBytes: 2048, ...(name === 'resemble' ? { oddFrameProbability: 0 } : {}) });
      // The pacer learns from a TTS's replies: a fresh TTS cuts the same reply exactly as the first did.
      await engine.close();
      engine = fx.make();
      const b = engine.stream();
      speak(b, tokens(REPLY_EN));
      const even = await collect(b);
      expect(odd.samples.length).toBeGreaterThan(0);
      expect(Buffer.from(odd.samples.buffer).equals(Buffer.from(even.samples.buffer))).toBe(true);
    });

    it('fails a bad key with a clear, non-retryable error naming the env variable', async () => {
      fx = await fixtures[name]();
      engine = fx.make({ apiKey: 'wrong-key' });
      const errors: APIError[] = [];
      engine.on('error', (e) => errors.push(e.error as APIError));
      const stream = engine.stream();
      speak(stream, ['Hello there, friend.']);
      const out = await collect(stream);
      expect(out.frames).toHaveLength(0);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(APIError);
      expect(errors[0]!.retryable).toBe(false);
      expect(errors[0]!.message).toContain(name === 'resemble' ? 'RESEMBLE_API_KEY' : 'CARTESIA_API_KEY');
      expect(errors[0]!.message).not.toContain('wrong-key');
    });

    it('recovers from a socket dropped mid-reply with every chunk voiced exactly once', async () => {
      let faulted = false;
      const fault =
        name === 'resemble'
          ? (_req: unknown, index: number) =>
              index === 1 && !faulted ? ((faulted = true), { kind: 'terminate-mid-request' as const, afterBytes: 300 }) : undefined
          : (ctx: { index: number }) =>
              ctx.index === 1 && !faulted ? ((faulted = true), { kind: 'terminate' as const, afterBytes: 300 }) : undefined;
      fx = await fixtures[name]({ fault } as Record<string, unknown>);
      engine = fx.make();
      const sent = recordSent(engine);
      const stream = engine.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
      speak(stream, tokens(REPLY_EN));
      const out = await collect(stream);
      expect(faulted).toBe(true);
      expect(out.endOfStream).toBe(true);
      // Distinct texts in order; a text re-sent after the drop must not be heard twice.
      const texts = [...new Set(sent.get(stream.id))];
      const heard = heardTags(out.samples);
      expect(heard.map((h) => h.tag)).toEqual(texts.map((t) => fx.tagOf(t)));
      heard.forEach((h, i) => expect(h.samples).toBe(samplesForText(fx.wireText(texts[i]!), 16000, 2)));
    });

    it('synthesize() returns the whole text as audio', async () => {
      fx = await fixtures[name]();
      engine = fx.make();
      const frames: tts.SynthesizedAudio[] = [];
      for await (const ev of engine.synthesize('Hello there. This is one request.')) frames.push(ev);
      const total = frames.reduce((n, f) => n + f.frame.samplesPerChannel, 0);
      expect(total).toBeGreaterThan(0);
      expect(frames.every((f) => f.frame.sampleRate === 16000)).toBe(true);
    });

    it('ends quietly and without audio on an empty or markup-only reply', async () => {
      fx = await fixtures[name]();
      engine = fx.make();
      for (const reply of [[''], ['   ', '\n'], ['**', '**']]) {
        const stream = engine.stream();
        speak(stream, reply);
        const out = await collect(stream, 5000);
        expect(out.endOfStream).toBe(true);
        expect(out.frames).toHaveLength(0);
      }
      expect(fx.sentTexts()).toHaveLength(0);
    });

    it('turns a provider that stops sending into a retryable timeout instead of a hang', async () => {
      const fault =
        name === 'resemble'
          ? () => ({ kind: 'stall' as const, afterBytes: 200 })
          : () => ({ kind: 'stall' as const, afterBytes: 200 });
      fx = await fixtures[name]({ fault } as Record<string, unknown>);
      engine = fx.make({ pool: { inactivityTimeoutMs: 300 } });
      const errors: APIError[] = [];
      engine.on('error', (e) => errors.push(e.error as APIError));
      const stream = engine.stream({ connOptions: { maxRetry: 1, retryIntervalMs: 10, timeoutMs: 2000 } });
      speak(stream, ['Hello there, this will stall.']);
      await collect(stream, 8000);
      expect(errors).toHaveLength(1);
      // Retries exhausted → the framework wraps it; the underlying cause was a timeout.
      expect(errors[0]!.message).toMatch(/attempts|sent nothing/);
    });
  });
}
