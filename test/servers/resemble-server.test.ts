import { describe, expect, it } from 'vitest';
import { samplesForText, tagForText } from './audio-tag.js';
import { readWavHeader, startResembleServer } from './resemble-server.js';
import { linearToMulaw } from './resemble/audio.js';
import { releaseOffsetMs } from './resemble/pacing.js';
import { audioFrames, jsonFrames, MS_PER_CHAR, pcm, RATE, request, resembleFixture } from './resemble/fixture.js';
import { jsonAudio, RawClient, withTimeout } from './resemble/raw-client.js';

const fx = resembleFixture();

describe('Resemble server: framing and ordering', () => {
  it('answers pipelined requests in order, each as audio frames then one audio_end', async () => {
    await fx.start();
    const client = await fx.connect();
    const texts = ['Hello there.', 'How are you today?', 'Fine.'];
    texts.forEach((text, i) => client.send(request(10 + i, text)));
    await client.audioEnd(12);

    const sequence = jsonFrames(client.frames).map((v) => `${v.type}:${v.request_id}`);
    const collapsed = sequence.filter((entry, i) => entry !== sequence[i - 1]);
    expect(collapsed).toEqual(['audio:10', 'audio_end:10', 'audio:11', 'audio_end:11', 'audio:12', 'audio_end:12']);
    for (const [i, text] of texts.entries()) {
      expect(jsonAudio(client.frames, 10 + i).equals(pcm(text))).toBe(true);
      for (const frame of audioFrames(client.frames, 10 + i)) {
        expect(frame.sample_rate).toBe(RATE);
        expect(frame).not.toHaveProperty('audio_timestamps');
      }
    }
    expect(audioFrames(client.frames, 11).length).toBe(Math.ceil(pcm(texts[1]).length / 200));
  });

  it('numbers requests without request_id from 0 per connection and records every valid payload', async () => {
    await fx.start();
    const first = await fx.connect();
    first.send({ ...request(undefined, 'one'), continue: true, model: 'chatterbox-turbo' });
    first.send(request(undefined, 'two'));
    await first.audioEnd(1);
    const second = await fx.connect();
    second.send(request(undefined, 'three'));
    await second.audioEnd(0);

    expect(fx.server().received.map((r) => [r.connectionId, r.requestId, r.payload.data])).toEqual([
      [1, 0, 'one'],
      [1, 1, 'two'],
      [2, 0, 'three'],
    ]);
    expect(fx.server().received[0].payload).toMatchObject({ continue: true, model: 'chatterbox-turbo' });
    expect(fx.server().connectionsOpened).toBe(2);
  });

  it('cuts frames to odd lengths when asked, deterministically per seed, without changing the bytes', async () => {
    await fx.start({ oddFrameProbability: 1, frameBytes: 64, seed: 7 });
    const client = await fx.connect();
    client.send(request(1, 'odd frames everywhere'));
    await client.audioEnd(1);
    const lengths = audioFrames(client.frames, 1).map((f) => Buffer.from(String(f.audio_content), 'base64').length);
    expect(lengths.slice(0, -1).every((n) => n % 2 === 1 && n < 64)).toBe(true);
    expect(jsonAudio(client.frames, 1).equals(pcm('odd frames everywhere'))).toBe(true);

    client.send(request(2, 'odd frames everywhere'));
    await client.audioEnd(2);
    const again = audioFrames(client.frames, 2).map((f) => Buffer.from(String(f.audio_content), 'base64').length);
    expect(again.length).toBeGreaterThan(1);
    expect(again).not.toEqual(lengths); // each request has its own stream of cuts...
    const replay = await startResembleServer({ msPerChar: MS_PER_CHAR, oddFrameProbability: 1, frameBytes: 64, seed: 7 });
    try {
      const other = await RawClient.connect(replay.url);
      other.send(request(1, 'odd frames everywhere'));
      await other.audioEnd(1);
      other.terminate();
      const replayed = audioFrames(other.frames, 1).map((f) => Buffer.from(String(f.audio_content), 'base64').length);
      expect(replayed).toEqual(lengths); // ...but the same seed replays the same cuts
    } finally {
      await replay.close();
    }
  });

  it('uses an odd frameBytes as is', async () => {
    await fx.start({ frameBytes: 33 });
    const client = await fx.connect();
    client.send(request(1, 'abc'));
    await client.audioEnd(1);
    const lengths = audioFrames(client.frames, 1).map((f) => Buffer.from(String(f.audio_content), 'base64').length);
    expect(lengths).toEqual([33, 33, 33, 33, 33, 27]);
  });

  it('sends raw binary frames then a JSON audio_end in binary mode', async () => {
    await fx.start();
    const client = await fx.connect();
    client.send(request(4, 'binary please', { binary_response: true }));
    client.send(request(5, 'and again', { binary_response: true }));
    await client.audioEnd(5);
    const kinds = client.frames.map((f) => (f.kind === 'binary' ? 'bin' : `${f.value.type}:${f.value.request_id}`));
    const firstEnd = kinds.indexOf('audio_end:4');
    expect(kinds.slice(0, firstEnd).every((k) => k === 'bin')).toBe(true);
    expect(kinds.filter((k) => k !== 'bin')).toEqual(['audio_end:4', 'audio_end:5']);
    const binary = (from: number, to: number) =>
      Buffer.concat(client.frames.slice(from, to).map((f) => (f.kind === 'binary' ? f.bytes : Buffer.alloc(0))));
    expect(binary(0, firstEnd).equals(pcm('binary please'))).toBe(true);
    expect(binary(firstEnd + 1, client.frames.length - 1).equals(pcm('and again'))).toBe(true);
  });

  it('interleaves frames of queued requests only when asked', async () => {
    await fx.start({ interleave: true, frameBytes: 64 });
    const client = await fx.connect();
    client.send(request(1, 'first request text'));
    client.send(request(2, 'second request text'));
    await client.until((frames) => jsonFrames(frames).filter((v) => v.type === 'audio_end').length === 2);
    const ids = jsonFrames(client.frames).filter((v) => v.type === 'audio').map((v) => v.request_id);
    expect(ids.indexOf(2)).toBeLessThan(ids.lastIndexOf(1));
    expect(jsonAudio(client.frames, 1).equals(pcm('first request text'))).toBe(true);
    expect(jsonAudio(client.frames, 2).equals(pcm('second request text'))).toBe(true);
  });
});

describe('Resemble server: audio formats and metadata', () => {
  it('puts a streaming WAV header with cue/adtl labels before the samples when no_audio_header is false', async () => {
    await fx.start();
    const client = await fx.connect();
    client.send(request(1, 'Hi you', { no_audio_header: false }));
    await client.audioEnd(1);
    const bytes = jsonAudio(client.frames, 1);
    const header = readWavHeader(bytes);
    expect(header).toMatchObject({ formatCode: 1, sampleRate: RATE, bitsPerSample: 16 });
    expect(header.riffSize).toBe(0xffffffff);
    expect(header.dataSize).toBe(0xffffffff);
    expect(header.dataOffset).toBeGreaterThan(44);
    expect(header.labels.map((l) => l.text).join('')).toBe('Hi you');
    expect(header.labels.every((l) => l.purpose === 'grph')).toBe(true);
    expect(header.labels.map((l) => l.sampleOffset)).toEqual([0, 32, 64, 96, 128, 160]);
    expect(bytes.subarray(header.dataOffset).equals(pcm('Hi you'))).toBe(true);
  });

  it('defaults to a header and PCM_32 when the request leaves them out, keeping the tag recoverable', async () => {
    await fx.start();
    const client = await fx.connect();
    client.send({ voice_uuid: 'v', data: 'default', request_id: 1, sample_rate: RATE });
    await client.audioEnd(1);
    const bytes = jsonAudio(client.frames, 1);
    const header = readWavHeader(bytes);
    expect(header.bitsPerSample).toBe(32);
    const body = bytes.subarray(header.dataOffset);
    expect(body.length).toBe(samplesForText('default', RATE, MS_PER_CHAR) * 4);
    expect(body.readInt32LE(0) / 65536).toBe(tagForText('default'));
    expect(body.readInt32LE(4) / 65536).toBe(-tagForText('default'));
  });

  it('serveSampleRate: streams at its own rate whatever was asked, and says so in sample_rate', async () => {
    await fx.start({ serveSampleRate: 32000 });
    const client = await fx.connect();
    client.send(request(1, 'at its own rate'));
    client.send(request(2, 'with a header', { no_audio_header: false }));
    await client.audioEnd(2);
    for (const frame of [...audioFrames(client.frames, 1), ...audioFrames(client.frames, 2)]) expect(frame.sample_rate).toBe(32000);
    expect(jsonAudio(client.frames, 1).length).toBe(samplesForText('at its own rate', 32000, MS_PER_CHAR) * 2);
    expect(readWavHeader(jsonAudio(client.frames, 2)).sampleRate).toBe(32000);
  });

  it('encodes PCM_24 and MULAW', async () => {
    await fx.start();
    const client = await fx.connect();
    client.send(request(1, 'deep', { precision: 'PCM_24' }));
    client.send(request(2, 'law', { precision: 'MULAW' }));
    await client.audioEnd(2);
    const deep = jsonAudio(client.frames, 1);
    expect(deep.length).toBe(samplesForText('deep', RATE, MS_PER_CHAR) * 3);
    expect(deep.readIntLE(0, 3) / 256).toBe(tagForText('deep'));
    const law = jsonAudio(client.frames, 2);
    expect(law.length).toBe(samplesForText('law', RATE, MS_PER_CHAR));
    expect([law[0], law[1]]).toEqual([linearToMulaw(tagForText('law')), linearToMulaw(-tagForText('law'))]);
  });

  it('adds request-relative grapheme timestamps to JSON audio frames when enabled', async () => {
    await fx.start({ timestamps: true, frameBytes: 100 });
    const client = await fx.connect();
    client.send(request(1, 'abc'));
    client.send(request(2, 'Hello world'));
    await client.audioEnd(2);
    const stamps = audioFrames(client.frames, 2).map(
      (f) => f.audio_timestamps as { graph_chars: string[]; graph_times: number[][]; phon_chars: string[] },
    );
    expect(stamps.flatMap((s) => s.graph_chars).join('')).toBe('Hello world');
    const times = stamps.flatMap((s) => s.graph_times);
    expect(times[0]).toEqual([0, 0.002]);
    expect(times[10]).toEqual([0.02, 0.022]);
    expect(stamps[0].phon_chars).toEqual(stamps[0].graph_chars);
  });
});

describe('Resemble server: auth, paths and limits', () => {
  it('sends ConnectionFailure 401 as an error frame, then closes, for a bad or missing key', async () => {
    await fx.start();
    for (const key of ['wrong-key', null]) {
      const client = await fx.connect({ key });
      const closed = await client.waitClosed();
      expect(jsonFrames(client.frames)).toEqual([
        expect.objectContaining({ type: 'error', success: false, error_name: 'ConnectionFailure', status_code: 401 }),
      ]);
      expect(closed.code).toBe(1000);
    }
    expect(fx.server().connectionsOpened).toBe(2);
  });

  it('refuses the upgrade with HTTP 401 in http-401 mode', async () => {
    await fx.start({ authFailure: 'http-401', apiKeys: ['k1'] });
    const refused = await RawClient.refusal(fx.server().url, { key: 'test-key' });
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error_name: 'ConnectionFailure', status_code: 401, success: false });
    const ok = await fx.connect({ key: 'k1' });
    ok.send(request(1, 'ok'));
    await ok.audioEnd(1);
    expect(fx.server().connectionsOpened).toBe(1);
  });

  it('serves only /stream', async () => {
    await fx.start();
    expect((await RawClient.refusal(fx.server().url, { path: '/other' })).status).toBe(404);
  });

  it('refuses upgrades over the per-key limit with 429 and accepts again once one closes', async () => {
    await fx.start({ maxConnectionsPerKey: 2, apiKeys: ['a', 'b'] });
    const first = await fx.connect({ key: 'a' });
    await fx.connect({ key: 'a' });
    expect((await RawClient.refusal(fx.server().url, { key: 'a' })).status).toBe(429);
    await fx.connect({ key: 'b' }); // other keys have their own budget
    expect(fx.server().openConnections()).toBe(3);
    first.terminate();
    await first.waitClosed();
    await withTimeout(
      (async () => {
        while (fx.server().openConnections() > 2) await new Promise((r) => setTimeout(r, 5));
      })(),
      3000,
      'the server to notice the close',
    );
    await fx.connect({ key: 'a' });
    // Only served connections, each with its key (the refused one is not among them).
    expect(fx.server().connectionKeys.map((c) => [c.connectionId, c.key])).toEqual([[1, 'a'], [2, 'a'], [3, 'b'], [4, 'a']]);
  });

  // How Resemble refuses the 21st connection is UNCONFIRMED: the form is an option, the count holds.
  it('can refuse over the limit with an error frame then a close, and counts every refusal', async () => {
    await fx.start({ maxConnectionsPerKey: 1, connectionLimitRefusal: { kind: 'error-frame', status: 503 } });
    await fx.connect();
    const refused = await fx.connect();
    expect(await refused.json((v) => v.type === 'error')).toMatchObject({
      error_name: 'TooManyConnections',
      status_code: 503,
      success: false,
    });
    expect((await refused.waitClosed()).code).toBe(1000);
    expect(fx.server().connectionsRefused).toBe(1);
    fx.server().setOptions({ connectionLimitRefusal: { kind: 'http', status: 429 } });
    expect(await RawClient.refusal(fx.server().url)).toMatchObject({ status: 429, body: { error_name: 'TooManyConnections' } });
    expect(fx.server().connectionsRefused).toBe(2);
  });

  it('answers pings with a pong that echoes their payload', async () => {
    await fx.start();
    const client = await fx.connect();
    const pong = new Promise<Buffer>((resolve) => client.ws.once('pong', resolve));
    client.ws.ping(Buffer.from('are you there'));
    expect((await withTimeout(pong, 3000, 'pong')).toString()).toBe('are you there');
  });

  it('acknowledges the close handshake by default and ignores it when asked', async () => {
    await fx.start();
    const polite = await fx.connect();
    polite.ws.close(1000, 'bye');
    expect((await polite.waitClosed()).code).toBe(1000);

    fx.server().setOptions({ ignoreClientClose: true });
    const ignored = await fx.connect({ closeTimeout: 100 });
    ignored.ws.close(1000, 'bye');
    // No ack: the client gives up after its close timeout and drops the TCP connection.
    expect((await ignored.waitClosed()).code).toBe(1006);
  });

  it('closes idle sockets after idleCloseMs', async () => {
    await fx.start({ idleCloseMs: 30 });
    const client = await fx.connect();
    client.send(request(1, 'then idle'));
    await client.audioEnd(1);
    expect(await client.waitClosed()).toEqual({ code: 1000, reason: 'idle timeout' });
  });
});

describe('Resemble server: pacing', () => {
  it('bursts by audio: audioMs of audio as rtf allows, then gapMs of nothing, again and again', () => {
    const plan = { firstByteDelayMs: 100, realTimeFactor: 0.1, burst: { audioMs: 400, gapMs: 300 } };
    // Frames of 100 ms of audio: four per burst, a 300 ms gap before each later burst.
    const offsets = [0, 1, 2, 3, 4, 5, 8].map((i) => releaseOffsetMs(plan, i, i * 100));
    expect(offsets).toEqual([100, 110, 120, 130, 100 + 40 + 300, 100 + 50 + 300, 100 + 80 + 600]);
  });

  it('bursts by frames: group n not before n × gapMs, rtf still applies', () => {
    const plan = { firstByteDelayMs: 0, realTimeFactor: 1, burst: { framesPerBurst: 2, gapMs: 500 } };
    expect([0, 1, 2, 3, 4].map((i) => releaseOffsetMs(plan, i, i * 100))).toEqual([0, 100, 500, 500, 1000]);
  });
});
