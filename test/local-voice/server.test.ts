import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalVoiceServer, LocalVoiceError, startLocalVoiceServer } from '../../src/local-voice/index.js';
import { plausibleSeconds, rms, samplesOf, voicedShare } from './speech-checks.js';
import { RawClient, pcmRequest } from './ws-client.js';

const KOREAN = '안녕하세요, 오늘 날씨가 정말 좋네요.';
const ENGLISH = 'Hello there, the weather is lovely today.';

let server: LocalVoiceServer;
const clients: RawClient[] = [];

async function connect(auth: { apiKey: string | undefined } = { apiKey: server.apiKey }): Promise<RawClient> {
  const client = await RawClient.connect(server.url, auth.apiKey);
  clients.push(client);
  return client;
}

beforeAll(async () => {
  server = await startLocalVoiceServer({ port: 0 });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server?.close();
});

function expectSpeech(pcm: Buffer, sampleRate: number, text: string): void {
  const samples = samplesOf(pcm);
  const seconds = samples.length / sampleRate;
  const bounds = plausibleSeconds(text);
  expect(seconds).toBeGreaterThan(bounds.min);
  expect(seconds).toBeLessThan(bounds.max);
  expect(rms(samples)).toBeGreaterThan(500);
  expect(voicedShare(samples, sampleRate)).toBeGreaterThan(0.4);
}

describe('local voice server: speech', () => {
  it('voices Korean as speech at 16 kHz', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: KOREAN, request_id: 1, sample_rate: 16000 }));
    await client.waitForTerminal(1);
    const audio = client.messages.filter((m) => m.kind === 'json' && m.body.type === 'audio');
    expect(audio.length).toBeGreaterThan(10);
    expect(audio.every((m) => m.kind === 'json' && m.body.sample_rate === 16000)).toBe(true);
    expectSpeech(client.audioOf(1), 16000, KOREAN);
  });

  it('voices English as speech at 32 kHz', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: ENGLISH, request_id: 5, sample_rate: 32000 }));
    await client.waitForTerminal(5);
    expectSpeech(client.audioOf(5), 32000, ENGLISH);
  });

  it('resamples: the same text lasts as long at 16 kHz as at 32 kHz', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: ENGLISH, request_id: 1, sample_rate: 16000 }));
    client.send(pcmRequest({ data: ENGLISH, request_id: 2, sample_rate: 32000 }));
    await client.waitForTerminal(2);
    const at16k = client.audioOf(1).length / 2 / 16000;
    const at32k = client.audioOf(2).length / 2 / 32000;
    // Same seconds, different sample counts: without resampling the counts would match instead.
    expect(Math.abs(at16k - at32k)).toBeLessThan(0.05);
    expect(client.audioOf(2).length / client.audioOf(1).length).toBeCloseTo(2, 1);
  });

  it('sends frames of whole 20 ms, up to 100 ms, as eSpeak makes its blocks (only the last one may be shorter)', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: 'Frames of whole twenty milliseconds.', request_id: 3, sample_rate: 16000 }));
    await client.waitForTerminal(3);
    const sizes = client.messages.flatMap((m) =>
      m.kind === 'json' && m.body.type === 'audio' ? [Buffer.from(String(m.body.audio_content), 'base64').length] : [],
    );
    expect(sizes.slice(0, -1).every((size) => size % 640 === 0 && size <= 3200)).toBe(true);
    // eSpeak's blocks (about 95 ms) leave whole, not in 20 ms pieces.
    expect(sizes.slice(0, -1).filter((size) => size > 640).length).toBeGreaterThan(sizes.length / 2);
    expect(sizes.at(-1)).toBeLessThanOrEqual(3200);
  });
});

describe('local voice server: protocol', () => {
  it('answers pipelined requests in order, each audio run closed by its audio_end', async () => {
    const client = await connect();
    const texts = ['첫 번째 문장입니다.', 'The second sentence.', '세 번째.'];
    texts.forEach((text, i) => client.send(pcmRequest({ data: text, request_id: 10 + i })));
    await client.waitForTerminal(12);
    const sequence = client.messages.map((m) => (m.kind === 'json' ? `${m.body.type}:${m.body.request_id}` : 'binary'));
    const collapsed = sequence.filter((entry, i) => entry !== sequence[i - 1]);
    expect(collapsed).toEqual(['audio:10', 'audio_end:10', 'audio:11', 'audio_end:11', 'audio:12', 'audio_end:12']);
  });

  it('lets a second socket be voiced while the first still has requests queued', async () => {
    const busy = await connect();
    const fresh = await connect();
    const long = 'This is a long sentence that keeps the voice busy for several seconds of audio. '.repeat(3);
    [1, 2, 3].forEach((id) => busy.send(pcmRequest({ data: long, request_id: id })));
    await busy.waitFor((messages) => messages.some((m) => m.kind === 'json' && m.body.type === 'audio'), 'first audio');
    fresh.send(pcmRequest({ data: 'Fresh turn.', request_id: 1 }));
    await fresh.waitForTerminal(1);
    const busyEnds = busy.messages.filter((m) => m.kind === 'json' && m.body.type === 'audio_end');
    expect(busyEnds.length).toBeLessThan(3);
    expect(fresh.audioOf(1).length).toBeGreaterThan(0);
    await busy.waitForTerminal(3);
  });

  it('assigns request ids from 0 when the client sends none', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: 'One.' }));
    client.send(pcmRequest({ data: 'Two.' }));
    await client.waitForTerminal(1);
    const ends = client.messages.flatMap((m) => (m.kind === 'json' && m.body.type === 'audio_end' ? [m.body.request_id] : []));
    expect(ends).toEqual([0, 1]);
  });

  it('answers bad JSON with a BadJSON error and keeps the socket usable', async () => {
    const client = await connect();
    client.send('{not json');
    client.send(pcmRequest({ request_id: 7 }));
    client.send(pcmRequest({ data: 'x', request_id: 'seven' }));
    client.send(pcmRequest({ data: 'Still here.', request_id: 8 }));
    await client.waitForTerminal(8);
    const errors = client.messages.flatMap((m) => (m.kind === 'json' && m.body.type === 'error' ? [m.body] : []));
    expect(errors).toHaveLength(3);
    for (const error of errors) {
      expect(error).toMatchObject({ success: false, error_name: 'BadJSON', status_code: 400 });
      expect((error.error_params as { explanation: string }).explanation.length).toBeGreaterThan(0);
    }
    expect(errors[1]!.request_id).toBe(7);
    expect((errors[1]!.error_params as { explanation: string }).explanation).toContain('data');
    expect((errors[2]!.error_params as { explanation: string }).explanation).toContain('request_id');
    expect(client.audioOf(8).length).toBeGreaterThan(0);
    expect(client.socket.readyState).toBe(client.socket.OPEN);
  });

  it('refuses formats it cannot produce, naming the fix', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: 'No precision.', request_id: 1, precision: undefined }));
    client.send(pcmRequest({ data: 'Bad rate.', request_id: 2, sample_rate: 12345 }));
    client.send(pcmRequest({ data: 'x'.repeat(3001), request_id: 3 }));
    await client.waitForTerminal(3);
    const errors = client.messages.flatMap((m) => (m.kind === 'json' && m.body.type === 'error' ? [m.body] : []));
    expect(errors.map((e) => [e.request_id, e.error_name])).toEqual([
      [1, 'UnsupportedFormat'],
      [2, 'BadJSON'],
      [3, 'TextTooLong'],
    ]);
    expect(String(errors[0]!.message)).toContain('PCM_16');
  });

  it('puts a WAV header on the first frame when no_audio_header is false', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: 'With a header.', request_id: 4, no_audio_header: false, sample_rate: 32000 }));
    await client.waitForTerminal(4);
    const first = client.audioOf(4);
    expect(first.toString('ascii', 0, 4)).toBe('RIFF');
    expect(first.toString('ascii', 8, 12)).toBe('WAVE');
    expect(first.readUInt32LE(24)).toBe(32000);
  });

  it('sends binary frames in binary mode, then a JSON audio_end', async () => {
    const client = await connect();
    client.send(pcmRequest({ data: 'Binary please.', request_id: 6, binary_response: true }));
    await client.waitForTerminal(6);
    const kinds = client.messages.map((m) => (m.kind === 'binary' ? 'binary' : m.body.type));
    expect(kinds.at(-1)).toBe('audio_end');
    expect(kinds.slice(0, -1).every((k) => k === 'binary')).toBe(true);
    const pcm = Buffer.concat(client.messages.flatMap((m) => (m.kind === 'binary' ? [m.bytes] : [])));
    expect(rms(samplesOf(pcm))).toBeGreaterThan(500);
  });

  it('rejects a wrong or missing key with a ConnectionFailure 401 and closes', async () => {
    for (const key of ['wrong-key', undefined]) {
      const client = await connect({ apiKey: key });
      await client.waitFor(() => client.closeCode !== undefined, 'close after auth failure');
      expect(client.messages).toHaveLength(1);
      expect(client.messages[0]).toMatchObject({
        kind: 'json',
        body: { type: 'error', success: false, error_name: 'ConnectionFailure', status_code: 401 },
      });
      expect(client.closeCode).toBe(1008);
    }
  });
});

describe('local voice server: start-up errors', () => {
  it('reports a port in use clearly', async () => {
    const port = Number(new URL(server.url).port);
    const error = await startLocalVoiceServer({ port }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalVoiceError);
    expect(error).toMatchObject({ code: 'PORT_IN_USE' });
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  });

  it('refuses to listen anywhere but loopback', async () => {
    const error = await startLocalVoiceServer({ host: '0.0.0.0' as '127.0.0.1' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NOT_LOOPBACK' });
  });

  it('names the optional package and the install command when the voice is missing', async () => {
    const error = await startLocalVoiceServer({ espeakModule: '@echogarden/no-such-voice-package' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalVoiceError);
    expect(error).toMatchObject({ code: 'VOICE_NOT_INSTALLED' });
    expect((error as Error).message).toContain('@echogarden/espeak-ng-emscripten');
    expect((error as Error).message).toContain('npm i --include=optional');
  });
});
