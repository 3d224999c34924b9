import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { maskPhoneNumbersIn, maskPhoneNumbersInOutput } from '../../src/sip/log-privacy.js';

// The shapes @livekit/agents 1.9 writes to a SIP call's worker log (seen in a call through livekit-sip 1.0.0 built from source).
const FRAMEWORK_LINE =
  '{"level":30,"time":1796130224307,"pid":10828,"lk.pii.participant_identity":"sip_+15557654321",' +
  '"trackPublications":[{"info":{"name":"sip_+15557654321"}}],"reason":"CLIENT_INITIATED","msg":"closing agent session"}';

describe('maskPhoneNumbersIn', () => {
  it('masks SIP identities and E.164 numbers, keeping the last digits', () => {
    const masked = maskPhoneNumbersIn(FRAMEWORK_LINE);
    expect(masked).not.toContain('5557654321');
    expect(masked.match(/sip_\+\*{7}4321/g)).toHaveLength(2);
    expect(maskPhoneNumbersIn('room call-_+821012345678_Ab3x')).toBe('room call-_+********5678_Ab3x');
    expect(maskPhoneNumbersIn('identity sip_15557654321 joined')).toBe('identity sip_*******4321 joined');
  });

  it('leaves numbers that are not phone numbers alone', () => {
    const line = '{"time":1796130224307,"pid":10828,"ms":+1250,"offset":"+0100","port":18081}';
    expect(maskPhoneNumbersIn(line)).toBe(line);
    // JSON stays JSON: only digits change.
    expect(JSON.parse(maskPhoneNumbersIn(FRAMEWORK_LINE)).time).toBe(1796130224307);
  });
});

describe('maskPhoneNumbersInOutput', () => {
  function sink() {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString('utf8'));
        callback();
      },
    }) as unknown as NodeJS.WriteStream;
    return { stream, written };
  }

  it('masks strings and buffers written to the stream, once however often it is installed', async () => {
    const { stream, written } = sink();
    maskPhoneNumbersInOutput(stream);
    maskPhoneNumbersInOutput(stream);
    await new Promise<void>((resolve) => stream.write(`${FRAMEWORK_LINE}\n`, () => resolve()));
    stream.write(Buffer.from('caller sip_+15557654321\n'));
    expect(written.join('')).not.toContain('5557654321');
    expect(written).toEqual([maskPhoneNumbersIn(`${FRAMEWORK_LINE}\n`), 'caller sip_+*******4321\n']);
  });
});
