import { describe, expect, it } from 'vitest';
import { pickLanguage } from '../../src/local-voice/language.js';
import { PcmFramer } from '../../src/local-voice/pcm-framer.js';
import { countedLength, parseRequest } from '../../src/local-voice/protocol.js';
import { decodeWav, encodeWav } from '../../src/local-voice/wav.js';

describe('pickLanguage', () => {
  it('uses the Korean voice for any Hangul and English otherwise', () => {
    expect(pickLanguage('안녕하세요')).toBe('ko');
    expect(pickLanguage('오늘 meeting은 3시예요.')).toBe('ko');
    expect(pickLanguage('Hello, world.')).toBe('en-us');
    expect(pickLanguage('1, 2, 3')).toBe('en-us');
  });
});

describe('parseRequest', () => {
  const ids = () => {
    let next = 0;
    return () => next++;
  };
  const valid = { voice_uuid: 'v', data: 'hi', precision: 'PCM_16', sample_rate: 16000, no_audio_header: true };

  it('reads a recommended payload and tolerates unknown fields', () => {
    const result = parseRequest(JSON.stringify({ ...valid, request_id: 9, continue: true, model: 'chatterbox' }), ids());
    expect(result).toEqual({
      ok: true,
      request: { requestId: 9, voiceUuid: 'v', text: 'hi', sampleRate: 16000, binary: false, withHeader: false },
    });
  });

  it('does not count SSML tags against the 3,000-character limit', () => {
    const text = `<speak>${'a'.repeat(3000)}</speak>`;
    expect(countedLength(text)).toBe(3000);
    expect(parseRequest(JSON.stringify({ ...valid, data: text }), ids()).ok).toBe(true);
    expect(parseRequest(JSON.stringify({ ...valid, data: `${text}b` }), ids()).ok).toBe(false);
  });

  it('rejects fractional and negative request ids', () => {
    for (const requestId of [1.5, -1]) {
      const result = parseRequest(JSON.stringify({ ...valid, request_id: requestId }), ids());
      expect(result.ok).toBe(false);
    }
  });
});

describe('PcmFramer', () => {
  const ramp = (n: number) => Int16Array.from({ length: n }, (_, i) => (i % 200) * 50 - 5000);

  it('cuts fixed-size frames without resampling when rates match', () => {
    const framer = new PcmFramer({ inputRate: 16000, outputRate: 16000, frameMs: 20 });
    const input = ramp(1000);
    const frames = [...framer.push(input.subarray(0, 333)), ...framer.push(input.subarray(333)), ...framer.end()];
    expect(frames.map((f) => f.length)).toEqual([640, 640, 640, 80]);
    const joined = Buffer.concat(frames);
    expect(Array.from({ length: 1000 }, (_, i) => joined.readInt16LE(i * 2))).toEqual(Array.from(input));
  });

  it('keeps the duration when converting 22.05 kHz to 48 kHz', () => {
    const framer = new PcmFramer({ inputRate: 22050, outputRate: 48000, frameMs: 40 });
    const frames = [...framer.push(ramp(22050)), ...framer.end()];
    const seconds = Buffer.concat(frames).length / 2 / 48000;
    expect(seconds).toBeGreaterThan(0.97);
    expect(seconds).toBeLessThan(1.03);
    expect(frames.slice(0, -1).every((f) => f.length === 48000 * 0.04 * 2)).toBe(true);
  });
});

describe('WAV', () => {
  it('round-trips samples and rate', () => {
    const samples = Int16Array.from([0, 1, -1, 32767, -32768, 1234]);
    const file = encodeWav(samples, 24000);
    expect(file.length).toBe(44 + samples.length * 2);
    expect(file.readUInt32LE(4)).toBe(36 + samples.length * 2);
    const decoded = decodeWav(file);
    expect(decoded.sampleRate).toBe(24000);
    expect(Array.from(decoded.samples)).toEqual(Array.from(samples));
  });
});
