import type { APIError } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { ResembleCodec } from '../../src/providers/resemble/codec.js';
import { Pcm16Reassembler, stripRiffHeader } from '../../src/pcm/pcm.js';
import { splitForLimit } from '../../src/driver/request-text.js';
import type { ResembleTTS } from '../../src/index.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
import { buildWavHeader, type ResembleServer } from '../../../../test/servers/resemble-server.js';
import { type ProviderFixture, collect, fixtures, heardTags, recordSent, speak, tokens } from './harness.js';

const REPLY = 'Sure, here is the plan. First we check the order. Then we call the courier and confirm the time.';

describe('resemble codec on the wire', () => {
  let fx: ProviderFixture;
  let engine: ResembleTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });
  const server = () => fx.server as ResembleServer;

  it('sends one numeric, increasing request per chunk with the real-time PCM settings', async () => {
    fx = await fixtures.resemble();
    engine = fx.make({ projectUuid: 'proj-1', model: 'chatterbox-turbo' }) as ResembleTTS;
    const stream = engine.stream();
    speak(stream, tokens(REPLY));
    await collect(stream);
    const payloads = server().received.map((r) => r.payload);
    expect(payloads.length).toBeGreaterThan(1);
    const ids = payloads.map((p) => p.request_id as number);
    ids.forEach((id, i) => i > 0 && expect(id).toBeGreaterThan(ids[i - 1]!));
    for (const p of payloads) {
      expect(p).toMatchObject({
        voice_uuid: 'voice-1',
        project_uuid: 'proj-1',
        model: 'chatterbox-turbo',
        precision: 'PCM_16',
        sample_rate: 16000,
        no_audio_header: true,
        output_format: 'wav',
        binary_response: false,
      });
    }
  });

  it('binary frames are attributed in order with one request in flight', async () => {
    fx = await fixtures.resemble({ frameBytes: 777 });
    engine = fx.make({ binaryResponse: true }) as ResembleTTS;
    const sent = recordSent(engine);
    const stream = engine.stream();
    speak(stream, tokens(REPLY));
    const out = await collect(stream);
    const texts = sent.get(stream.id)!;
    expect(heardTags(out.samples).map((r) => r.tag)).toEqual(texts.map((t) => fx.tagOf(t)));
    // Never two requests in flight: each request arrived after the previous one's audio_end.
    const received = server().received;
    expect(received.every((r) => r.payload.binary_response === true)).toBe(true);
  });

  it('turns audio_timestamps into word TimedStrings offset to the segment', async () => {
    // Tiny frames: words straddle frame boundaries and must still come out whole.
    fx = await fixtures.resemble({ timestamps: true, frameBytes: 62, msPerChar: 2 });
    engine = fx.make({ wordTimestamps: true }) as ResembleTTS;
    expect(engine.capabilities.alignedTranscript).toBe(true);
    const stream = engine.stream();
    speak(stream, tokens(REPLY));
    const out = await collect(stream);
    const timed = out.frames.flatMap((f) => f.timedTranscripts ?? []);
    expect(timed.map((t) => t.text)).toEqual(REPLY.split(' ').map((w) => `${w} `));
    for (let i = 1; i < timed.length; i++) expect(timed[i]!.startTime!).toBeGreaterThanOrEqual(timed[i - 1]!.startTime!);
    const audioSeconds = out.samples.length / 16000;
    expect(timed[timed.length - 1]!.endTime!).toBeLessThanOrEqual(audioSeconds + 1e-6);
    expect(timed[timed.length - 1]!.endTime!).toBeGreaterThan(audioSeconds * 0.8);
  });

  it('splits text over the 3,000-character limit before sending and loses none of it', async () => {
    fx = await fixtures.resemble({ msPerChar: 0.2 });
    engine = fx.make({ chunking: { policy: 'unit' } }) as ResembleTTS;
    const sentence = 'This sentence is one of many in a very long answer that never stops. ';
    const reply = sentence.repeat(110).trim(); // ~7,600 characters, one unit
    const stream = engine.stream();
    speak(stream, tokens(reply));
    await collect(stream, 20_000);
    const data = server().received.map((r) => String(r.payload.data));
    expect(data.length).toBeGreaterThanOrEqual(3);
    for (const d of data) expect(d.length).toBeLessThanOrEqual(3000);
    expect(server().rejected).toHaveLength(0);
    expect(data.join(' ')).toBe(reply);
  });

  it('sends numbers in spoken form by default, as written when disabled, and escaped SSML on request', async () => {
    fx = await fixtures.resemble();
    const say = async (opts: Record<string, unknown>, text: string) => {
      const e = fx.make(opts) as ResembleTTS;
      const before = server().received.length;
      const stream = e.stream();
      speak(stream, [text]);
      await collect(stream);
      await e.close();
      return server().received.slice(before).map((r) => String(r.payload.data)).join(' ');
    };
    expect(await say({}, '매장은 3시에 열고 입장료는 1,500원이에요.')).toBe('매장은 세 시에 열고 입장료는 천오백 원이에요.');
    expect(await say({ speech: false }, '매장은 3시에 열어요.')).toBe('매장은 3시에 열어요.');
    const ssml = await say({ ssml: true }, 'Doors open at 3 <b>sharp</b> & fast.');
    expect(ssml.startsWith('<speak>')).toBe(true);
    expect(ssml).toContain('&lt;b&gt;');
    expect(ssml).toContain('&amp;');
    expect(ssml).not.toContain('<b>');
  });

  it('after two quick barge-ins, the next turn does not queue behind stale audio', async () => {
    fx = await fixtures.resemble({ realTimeFactor: 1, msPerChar: 30, frameBytes: 640 });
    engine = fx.make() as ResembleTTS;
    await engine.prewarm();
    const long = 'This answer is long and slow. It keeps going for quite a while. Nobody will hear the end of it.';
    for (let i = 0; i < 2; i++) {
      const s = engine.stream();
      speak(s, tokens(long));
      await s.next(); // first audio, then the user barges in
      s.close();
    }
    const staleConnections = new Set(server().received.map((r) => r.connectionId));
    const sent = recordSent(engine);
    const s3 = engine.stream();
    speak(s3, ['Okay.']);
    const out = await collect(s3);
    expect(heardTags(out.samples).map((r) => r.tag)).toEqual(sent.get(s3.id)!.map((t) => fx.tagOf(t)));
    // Both earlier sockets were still draining stale requests: the new turn got a fresh one.
    const turn3 = server().received.filter((r) => r.payload.data === 'Okay.');
    expect(turn3).toHaveLength(1);
    expect(staleConnections.has(turn3[0]!.connectionId)).toBe(false);
    expect(engine.poolStats.open).toBeLessThanOrEqual(2);
  });

  // Audio frames echo `sample_rate`. A voice that streams at another rate than asked must not play
  // at the wrong speed and pitch: it is resampled to the asked rate (and to the asked length).
  for (const served of [32000, 8000]) {
    it(`resamples audio the server streams at ${served} Hz when 16000 Hz was asked`, async () => {
      fx = await fixtures.resemble({ serveSampleRate: served });
      engine = fx.make() as ResembleTTS;
      const errors: unknown[] = [];
      engine.on('error', (e) => errors.push(e.error));
      const sent = recordSent(engine);
      const stream = engine.stream();
      speak(stream, tokens(REPLY));
      const out = await collect(stream);
      expect(errors).toEqual([]);
      expect(out.endOfStream).toBe(true);
      expect(new Set(out.frames.map((f) => f.frame.sampleRate))).toEqual(new Set([16000]));
      const expected = sent.get(stream.id)!.reduce((n, t) => n + samplesForText(t, 16000, 2), 0);
      expect(Math.abs(out.samples.length - expected)).toBeLessThan(expected * 0.01);
    });
  }

  it('checks the echoed sample_rate: the asked rate passes, another is marked for resampling, an unusable one is a clear error', () => {
    const codec = new ResembleCodec({
      apiKey: 'k',
      voiceUuid: 'v',
      sampleRate: 16000,
      url: 'ws://127.0.0.1:1/stream',
      binaryResponse: false,
      connectTimeoutMs: 1000,
      maxInFlight: 4,
    });
    const frame = (rate: number) => Buffer.from(JSON.stringify({ type: 'audio', request_id: 1, audio_content: 'AAAA', sample_rate: rate }));
    expect(codec.decode(frame(16000), false, undefined)[0]).not.toHaveProperty('sampleRate');
    expect(codec.decode(frame(44100), false, undefined)[0]).toMatchObject({ type: 'audio', track: '1', sampleRate: 44100 });
    const [bad] = codec.decode(frame(3), false, undefined);
    expect(bad).toMatchObject({ type: 'error', track: '1', closesSocket: false });
    const error = (bad as { error: APIError }).error;
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('sample_rate 3');
  });

  it('counts the watchdog from the head of the queue, not from the send', async () => {
    // Each request takes ~0.3 s of real time; four are queued at once, so the last waits ~0.9 s
    // behind the others — longer than the 0.5 s inactivity timeout — and must not time out.
    fx = await fixtures.resemble({ realTimeFactor: 1, msPerChar: 15, frameBytes: 320 });
    engine = fx.make({ pool: { inactivityTimeoutMs: 500 }, chunking: { policy: 'sentence' } }) as ResembleTTS;
    const errors: Error[] = [];
    engine.on('error', (e) => errors.push(e.error));
    const sent = recordSent(engine);
    const stream = engine.stream();
    speak(stream, ['One two three four. ', 'Five six seven eight. ', 'Nine ten eleven twelve. ', 'Thirteen fourteen fifteen.']);
    const out = await collect(stream, 10_000);
    expect(errors).toHaveLength(0);
    expect(heardTags(out.samples).map((r) => r.tag)).toEqual(sent.get(stream.id)!.map((t) => fx.tagOf(t)));
  });
});

describe('PCM reassembly', () => {
  const pcm = Buffer.from(Int16Array.from([1, -2, 300, -400, 5000, -6000]).buffer);

  it('carries a byte across odd-length pieces', () => {
    const r = new Pcm16Reassembler();
    const parts = [pcm.subarray(0, 3), pcm.subarray(3, 4), pcm.subarray(4, 9), pcm.subarray(9)];
    const out = Buffer.concat([...parts.map((p) => r.push(p)), r.end()]);
    expect(out.equals(pcm)).toBe(true);
    expect(r.droppedBytes).toBe(0);
  });

  it('strips a RIFF header with cue/LIST metadata, even when it arrives in pieces', () => {
    const header = buildWavHeader({ sampleRate: 16000, formatCode: 1, bitsPerSample: 16 }, [
      { sampleOffset: 0, sampleLength: 3, purpose: 'grph', text: 'Hi' },
    ]);
    expect(header.length).toBeGreaterThan(44);
    const stream = Buffer.concat([header, pcm]);
    const r = new Pcm16Reassembler();
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i += 5) out.push(r.push(stream.subarray(i, i + 5)));
    out.push(r.end());
    expect(Buffer.concat(out).equals(pcm)).toBe(true);
  });

  it('leaves plain PCM alone, and drops only a dangling last byte', () => {
    expect(stripRiffHeader(pcm)).toBe(pcm);
    const r = new Pcm16Reassembler();
    const out = Buffer.concat([r.push(pcm.subarray(0, 5)), r.end()]);
    expect(out.equals(pcm.subarray(0, 4))).toBe(true);
    expect(r.droppedBytes).toBe(1);
  });

  it('splitForLimit keeps every word, prefers sentence ends, and respects the limit', () => {
    const text = 'Alpha beta gamma. Delta epsilon, zeta eta theta. Iota kappa lambda mu nu xi omicron.';
    const pieces = splitForLimit(text, 30);
    for (const p of pieces) expect(p.length).toBeLessThanOrEqual(30);
    expect(pieces.join(' ')).toBe(text);
    expect(pieces[0]).toBe('Alpha beta gamma.');
  });
});
