import { describe, expect, it } from 'vitest';
import { pickLanguage } from '../../src/local-voice/language.js';
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
