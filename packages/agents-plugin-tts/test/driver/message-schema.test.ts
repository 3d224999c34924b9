/**
 * A provider message that is valid JSON but not a shape the codec knows is skipped and reported —
 * once per message type and interval, naming the type and the failing fields, never the payload
 * (it carries customer text and audio) — instead of vanishing into seconds of silence.
 */
import { initializeLogger } from '@livekit/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CartesiaCodec } from '../../src/providers/cartesia/codec.js';
import { ResembleCodec } from '../../src/providers/resemble/codec.js';
import { type OutputCapture, captureOutput } from '../../../../test/chaos/capture.js';

const SECRET_TEXT = 'my card number is 4111 1111 1111 1111';

function reports(output: OutputCapture): Array<Record<string, unknown>> {
  return output
    .text()
    .split('\n')
    .filter((line) => line.includes('does not match its schema'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('provider messages that fail their schema', () => {
  let output: OutputCapture | undefined;
  beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));
  afterEach(() => output?.restore());

  it('Cartesia: skipped, reported once per type with the failing fields, never with the payload', () => {
    const codec = new CartesiaCodec({
      apiKey: 'k', apiVersion: '2026-03-01', voice: 'v', model: 'sonic-3', sampleRate: 16000,
      url: 'ws://127.0.0.1:1', bytesUrl: 'http://127.0.0.1:1', wordTimestamps: false, connectTimeoutMs: 1000,
    });
    output = captureOutput();
    // `data` became an object in this imagined API change; the transcript rides along.
    const changed = JSON.stringify({ type: 'chunk', context_id: 'c1', data: { pcm: 'AAAA' }, transcript: SECRET_TEXT });
    for (let i = 0; i < 5; i++) expect(codec.decode(Buffer.from(changed), false)).toEqual([]);
    expect(codec.decode(Buffer.from(JSON.stringify({ type: 'done', context_id: 7 })), false)).toEqual([]);
    output.restore();
    const lines = reports(output);
    expect(lines.map((l) => l.messageType)).toEqual(['chunk', 'done']);
    expect(lines[0]).toMatchObject({ provider: 'cartesia', issues: ['data: invalid_type'] });
    expect(output.text()).not.toContain('4111');
    expect(output.text()).not.toContain('AAAA');
  });

  it('Resemble: the same, and a well-formed message still decodes', () => {
    const codec = new ResembleCodec({
      apiKey: 'k', voiceUuid: 'v', sampleRate: 16000, url: 'ws://127.0.0.1:1', binaryResponse: false, connectTimeoutMs: 1000, maxInFlight: 4,
    });
    output = captureOutput();
    expect(codec.decode(Buffer.from(JSON.stringify({ type: 'audio', request_id: 1, audio_content: 42 })), false, undefined)).toEqual([]);
    const good = codec.decode(Buffer.from(JSON.stringify({ type: 'audio_end', request_id: 1 })), false, undefined);
    output.restore();
    expect(good).toEqual([{ type: 'end', track: '1' }]);
    expect(reports(output)).toEqual([expect.objectContaining({ provider: 'resemble', messageType: 'audio', issues: ['audio_content: invalid_type'] })]);
  });
});
