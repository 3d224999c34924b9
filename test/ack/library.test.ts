import { initializeLogger } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckLibrary, type CachedAck, DEFAULT_ACK_PHRASES, detectAckLanguage, prepareAcknowledgements } from '../../src/ack/index.js';
import { diskAckStore } from '../../src/ack/audio-store.js';
import { tagForText } from '../servers/audio-tag.js';
import { type ProviderFixture, heardTags, resembleFixture, withTimeout } from '../../packages/agents-plugin-tts/test/driver/harness.js';

function fakeAck(id: string): CachedAck {
  const [language] = id.split(':') as ['ko' | 'en'];
  return { id, language, text: id, frames: [new AudioFrame(new Int16Array(160), 16000, 1, 160)], durationMs: 10 };
}

describe('detectAckLanguage', () => {
  it.each([
    ['서울 날씨 어때요?', 'ko'],
    ['OK, 서울 날씨', 'ko'],
    ['What is the weather in Seoul?', 'en'],
    ['Seoul 가요', 'en'],
    ['', 'en'],
    ['1234?', 'en'],
  ] as const)('%j → %s', (text, language) => {
    expect(detectAckLanguage(text)).toBe(language);
  });
});

describe('AckLibrary.pick', () => {
  const library = new AckLibrary(['ko:0', 'ko:1', 'ko:2', 'en:0'].map(fakeAck), () => 0);

  it('never returns the phrase just played when the language has another', () => {
    let previous: string | undefined;
    const picked: string[] = [];
    for (let i = 0; i < 6; i++) {
      previous = library.pick('ko', previous)!.id;
      picked.push(previous);
    }
    expect(picked).toEqual(['ko:0', 'ko:1', 'ko:0', 'ko:1', 'ko:0', 'ko:1']);
  });

  it('spreads over every phrase of the language with a uniform source', () => {
    const seen = new Set<string>();
    for (const r of [0, 0.34, 0.67, 0.99]) seen.add(new AckLibrary(['ko:0', 'ko:1', 'ko:2'].map(fakeAck), () => r).pick('ko')!.id);
    expect([...seen].sort()).toEqual(['ko:0', 'ko:1', 'ko:2']);
  });

  it('repeats the only phrase of a language rather than staying silent', () => {
    expect(library.pick('en', 'en:0')!.id).toBe('en:0');
  });

  it('falls back to another language when one has no phrase, and to nothing when empty', () => {
    const onlyKo = new AckLibrary(['ko:0'].map(fakeAck));
    expect(onlyKo.pick('en')!.id).toBe('ko:0');
    expect(new AckLibrary([]).pick('ko')).toBeUndefined();
  });
});

describe('prepareAcknowledgements', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));
  let fx: ProviderFixture | undefined;
  afterEach(async () => {
    await fx?.close();
    fx = undefined;
  });

  it('holds each phrase as the frames our TTS made of it, in the defaults when none are given', async () => {
    fx = await resembleFixture({ msPerChar: 10 });
    const engine = fx.make();
    try {
      const library = await withTimeout(prepareAcknowledgements(engine), 10_000, 'acks');
      const all = library.all();
      expect(all.map((a) => a.text)).toEqual([...DEFAULT_ACK_PHRASES.ko, ...DEFAULT_ACK_PHRASES.en]);
      for (const ack of all) {
        const samples = ack.frames.flatMap((f) => Array.from(f.data.subarray(0, f.samplesPerChannel)));
        expect(heardTags(Int16Array.from(samples)).map((r) => r.tag)).toEqual([tagForText(ack.text)]);
        expect(ack.durationMs).toBeCloseTo((samples.length / 16000) * 1000, 6);
      }
      expect(all.map((a) => a.id)).toEqual(['ko:0', 'ko:1', 'ko:2', 'en:0', 'en:1', 'en:2']);
    } finally {
      await engine.close();
    }
  });

  it('leaves out a phrase the provider fails on and keeps the rest', async () => {
    fx = await resembleFixture({
      msPerChar: 10,
      fault: (req) => (String(req.payload.data).includes('잠시만요') ? { kind: 'error-frame', statusCode: 400, errorName: 'BadRequest' } : undefined),
    });
    const engine = fx.make();
    try {
      const library = await withTimeout(
        prepareAcknowledgements(engine, { phrases: { ko: ['잠시만요.', '네, 알겠어요.'], en: [] } }),
        10_000,
        'acks',
      );
      expect(library.all().map((a) => [a.id, a.text])).toEqual([['ko:1', '네, 알겠어요.']]);
    } finally {
      await engine.close();
    }
  });

  describe('with the worker\'s shared audio', () => {
    let dir: string | undefined;
    afterEach(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    });
    const samplesOf = (library: AckLibrary) => library.all().map((a) => [a.id, a.frames.flatMap((f) => Array.from(f.data.subarray(0, f.samplesPerChannel)))]);

    it('synthesizes each phrase once per worker: the next process reads the same audio and asks the provider nothing', async () => {
      dir = mkdtempSync(join(tmpdir(), 'ack-shared-'));
      fx = await resembleFixture({ msPerChar: 10 });
      const first = fx.make();
      const second = fx.make();
      try {
        const made = await withTimeout(prepareAcknowledgements(first, { shared: { store: diskAckStore(dir), voice: 'resemble' } }), 10_000, 'first');
        const asked = fx.sentTexts().length;
        expect(asked).toBe(6);
        expect(made.fromStore).toBe(0);
        const read = await withTimeout(prepareAcknowledgements(second, { shared: { store: diskAckStore(dir), voice: 'resemble' } }), 10_000, 'second');
        expect(fx.sentTexts()).toHaveLength(asked);
        expect(read.fromStore).toBe(6);
        expect(samplesOf(read)).toEqual(samplesOf(made));
        expect(read.all().map((a) => a.durationMs)).toEqual(made.all().map((a) => a.durationMs));
      } finally {
        await first.close();
        await second.close();
      }
    });

    it('asks again for a phrase that failed, and for another voice', async () => {
      dir = mkdtempSync(join(tmpdir(), 'ack-shared-'));
      let failing = true;
      fx = await resembleFixture({
        msPerChar: 10,
        fault: (req) => (failing && String(req.payload.data).includes('잠시만요') ? { kind: 'error-frame', statusCode: 400, errorName: 'BadRequest' } : undefined),
      });
      const engine = fx.make();
      const phrases = { ko: ['잠시만요.', '네, 알겠어요.'], en: [] };
      try {
        await withTimeout(prepareAcknowledgements(engine, { phrases, shared: { store: diskAckStore(dir), voice: 'resemble' } }), 10_000, 'first');
        failing = false;
        const before = fx.sentTexts().length;
        const again = await withTimeout(prepareAcknowledgements(engine, { phrases, shared: { store: diskAckStore(dir), voice: 'resemble' } }), 10_000, 'again');
        expect(fx.sentTexts().slice(before)).toEqual(['잠시만요.']);
        expect(again.all().map((a) => a.id)).toEqual(['ko:0', 'ko:1']);
        expect(again.fromStore).toBe(1);
        const otherVoice = await withTimeout(prepareAcknowledgements(engine, { phrases, shared: { store: diskAckStore(dir), voice: 'local' } }), 10_000, 'other voice');
        expect(fx.sentTexts().slice(before + 1)).toEqual(['잠시만요.', '네, 알겠어요.']);
        expect(otherVoice.fromStore).toBe(0);
      } finally {
        await engine.close();
      }
    });
  });
});
