import { describe, expect, it } from 'vitest';
import { startResembleServer } from './resemble-server.js';
import { audioFrames, jsonFrames, pcm, request, resembleFixture, roundTrip } from './resemble/fixture.js';
import { jsonAudio, RawClient, withTimeout } from './resemble/raw-client.js';
import { settledWithin } from '../helpers/async.js';

const fx = resembleFixture();

describe('Resemble server: request errors keep the socket open', () => {
  it('answers unparsable, incomplete and binary requests with BadJSON 400', async () => {
    await fx.start();
    const client = await fx.connect();
    client.ws.send('not json');
    client.send({ voice_uuid: 'v', request_id: 5 });
    client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    client.send({ ...request(8, 'x'), request_id: '8' });
    client.send(request(6, 'still works'));
    await client.audioEnd(6);
    const errors = jsonFrames(client.frames).filter((v) => v.type === 'error');
    expect(errors).toHaveLength(4);
    for (const error of errors) {
      expect(error).toMatchObject({ success: false, error_name: 'BadJSON', status_code: 400 });
      expect(error.error_params).toEqual({ explanation: expect.any(String) });
    }
    expect(errors.map((e) => e.request_id)).toEqual([undefined, 5, undefined, undefined]);
    expect((errors[1].error_params as { explanation: string }).explanation).toContain('data');
    expect(fx.server().received.map((r) => r.requestId)).toEqual([6]);
    expect(fx.server().rejected.map((r) => r.requestId)).toEqual([undefined, 5, undefined, undefined]);
  });

  it('rejects text over maxChars (markup not counted) with a configurable error tied to the request', async () => {
    await fx.start({ maxChars: 10 });
    const client = await fx.connect();
    client.send(request(1, '<speak>abcde<break time="1s"/>fghij</speak>'));
    client.send(request(2, 'abcdefghijk'));
    await client.json((v) => v.type === 'error');
    await client.audioEnd(1);
    expect(jsonFrames(client.frames).find((v) => v.type === 'error')).toMatchObject({
      type: 'error',
      success: false,
      error_name: 'TextTooLong',
      status_code: 400,
      request_id: 2,
    });
    fx.server().setOptions({ errorNames: { textTooLong: 'DataTooLong' } });
    client.send(request(3, 'abcdefghijk'));
    expect(await client.json((v) => v.request_id === 3)).toMatchObject({ error_name: 'DataTooLong' });
  });

  it('rejects unsupported sample rates, mp3 and unknown voices with errors tied to the request', async () => {
    await fx.start({ voices: ['voice-1'] });
    const client = await fx.connect();
    client.send(request(1, 'x', { sample_rate: 24000 }));
    client.send(request(2, 'x', { output_format: 'mp3' }));
    client.send(request(3, 'x', { voice_uuid: 'nobody' }));
    client.send(request(4, 'x', { precision: 'FLOAT' }));
    client.send(request(5, 'fine'));
    await client.audioEnd(5);
    const errors = jsonFrames(client.frames).filter((v) => v.type === 'error');
    expect(errors.map((e) => [e.request_id, e.error_name, e.status_code])).toEqual([
      [1, 'BadJSON', 400],
      [2, 'UnsupportedOutputFormat', 400],
      [3, 'InvalidVoice', 400],
      [4, 'BadJSON', 400],
    ]);
  });
});

describe('Resemble server: injected faults', () => {
  it('error-frame: sends an error tied to the request instead of audio_end, then serves the next one', async () => {
    await fx.start({ fault: (req) => (req.requestId === 1 ? { kind: 'error-frame', afterBytes: 100 } : undefined) });
    const client = await fx.connect();
    client.send(request(1, 'this one fails'));
    client.send(request(2, 'this one works'));
    await client.audioEnd(2);
    const sequence = jsonFrames(client.frames).filter((v) => v.type !== 'audio');
    expect(sequence).toEqual([
      { type: 'error', success: false, error_name: 'ServerError', message: 'Injected server fault', status_code: 500, request_id: 1 },
      { type: 'audio_end', request_id: 2 },
    ]);
    expect(jsonAudio(client.frames, 1).equals(pcm('this one fails').subarray(0, 100))).toBe(true);
    expect(jsonAudio(client.frames, 2).equals(pcm('this one works'))).toBe(true);
  });

  it('reject: refuses the request on arrival, ahead of the queue, optionally without request_id or status_code', async () => {
    await fx.start({
      realTimeFactor: 1,
      fault: (req) =>
        req.requestId === 2
          ? { kind: 'reject', withRequestId: false }
          : req.requestId === 3
            ? { kind: 'reject', errorName: 'Odd', statusCode: null, message: 'no status' }
            : undefined,
    });
    const client = await fx.connect();
    client.send(request(1, 'the request ahead streams in real time'));
    client.send(request(2, 'refused without an id'));
    client.send(request(3, 'refused without a status'));
    client.send(request(4, 'served after the first'));
    await client.audioEnd(4);
    const sequence = jsonFrames(client.frames).filter((v) => v.type !== 'audio');
    expect(sequence).toEqual([
      { type: 'error', success: false, error_name: 'BadJSON', message: 'Injected server fault', status_code: 400 },
      { type: 'error', success: false, error_name: 'Odd', message: 'no status', request_id: 3 },
      { type: 'audio_end', request_id: 1 },
      { type: 'audio_end', request_id: 4 },
    ]);
    expect(audioFrames(client.frames, 2)).toEqual([]);
    expect(jsonAudio(client.frames, 4).equals(pcm('served after the first'))).toBe(true);
  });

  it('availableModels: a model the voice lacks gets DBCacheError tied to the request; [] refuses every request', async () => {
    await fx.start({ availableModels: ['chatterbox'] });
    const client = await fx.connect();
    client.send(request(1, 'wrong model', { model: 'chatterbox-turbo' }));
    client.send(request(2, 'right model', { model: 'chatterbox' }));
    await client.audioEnd(2);
    expect(jsonFrames(client.frames).find((v) => v.type === 'error')).toEqual({
      type: 'error',
      success: false,
      error_name: 'DBCacheError',
      message: 'chatterbox-turbo is not available for this voice',
      status_code: 500,
      error_params: { explanation: 'chatterbox-turbo is not available for this voice' },
      request_id: 1,
    });
    fx.server().setOptions({ availableModels: [], modelUnavailableStatus: null });
    client.send(request(3, 'no model at all'));
    const refused = await client.json((v) => v.request_id === 3);
    expect(refused).toMatchObject({ error_name: 'DBCacheError', message: 'default is not available for this voice' });
    expect(refused).not.toHaveProperty('status_code');
    expect(fx.server().rejected.map((r) => [r.requestId, r.errorName])).toEqual([[1, 'DBCacheError'], [3, 'DBCacheError']]);
  });

  it('streamingPlan false: every request gets Unauthorized 401 tied to it, and the socket stays open', async () => {
    await fx.start({ streamingPlan: false });
    const client = await fx.connect();
    client.send(request(1, 'not on this plan'));
    expect(await client.json((v) => v.request_id === 1)).toMatchObject({ type: 'error', error_name: 'Unauthorized', status_code: 401 });
    await roundTrip(client);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    expect(fx.server().received).toEqual([]);
  });

  it('close-mid-request: closes normally after exactly afterBytes', async () => {
    await fx.start({ fault: () => ({ kind: 'close-mid-request', afterBytes: 250 }) });
    const client = await fx.connect();
    client.send(request(1, 'interrupted by a close'));
    client.send(request(2, 'never served'));
    expect((await client.waitClosed()).code).toBe(1011);
    expect(jsonAudio(client.frames, 1).equals(pcm('interrupted by a close').subarray(0, 250))).toBe(true);
    expect(jsonFrames(client.frames).some((v) => v.type === 'audio_end' || v.request_id === 2)).toBe(false);
  });

  it('terminate-mid-request: drops the TCP connection (1006) after afterBytes', async () => {
    await fx.start({ fault: () => ({ kind: 'terminate-mid-request', afterBytes: 99 }) });
    const client = await fx.connect();
    client.send(request(1, 'interrupted by a drop'));
    expect((await client.waitClosed()).code).toBe(1006);
    expect(jsonAudio(client.frames, 1).equals(pcm('interrupted by a drop').subarray(0, 99))).toBe(true);
  });

  it('no-audio-end: sends the audio but no audio_end, then moves on', async () => {
    await fx.start({ fault: (_req, index) => (index === 0 ? { kind: 'no-audio-end', afterBytes: Infinity } : undefined) });
    const client = await fx.connect();
    client.send(request(1, 'no ending'));
    client.send(request(2, 'normal'));
    await client.audioEnd(2);
    expect(jsonAudio(client.frames, 1).equals(pcm('no ending'))).toBe(true);
    expect(jsonFrames(client.frames).filter((v) => v.type === 'audio_end')).toEqual([{ type: 'audio_end', request_id: 2 }]);
  });

  it('stall: pauses after afterBytes, then finishes the request', async () => {
    await fx.start({ fault: () => ({ kind: 'stall', afterBytes: 300, stallMs: 20 }) });
    const client = await fx.connect();
    client.send(request(1, 'a stalled request'));
    await client.audioEnd(1);
    expect(jsonAudio(client.frames, 1).equals(pcm('a stalled request'))).toBe(true);
  });

  it('stall without stallMs holds the request and the queue behind it', async () => {
    await fx.start({ fault: (req) => (req.requestId === 1 ? { kind: 'stall', afterBytes: 300 } : undefined) });
    const client = await fx.connect();
    client.send(request(1, 'a stalled request'));
    client.send(request(2, 'queued behind it'));
    await client.until((frames) => jsonAudio(frames, 1).length === 300);
    await roundTrip(client);
    await roundTrip(client);
    expect(jsonFrames(client.frames).filter((v) => v.type !== 'audio')).toEqual([]);
    expect(jsonAudio(client.frames, 1).length).toBe(300);
  });

  it('dropAllConnections terminates every socket', async () => {
    await fx.start();
    const a = await fx.connect();
    const b = await fx.connect();
    fx.server().dropAllConnections();
    expect((await a.waitClosed()).code).toBe(1006);
    expect((await b.waitClosed()).code).toBe(1006);
  });
});

describe('Resemble server: going silent', () => {
  it('goSilent: open sockets answer nothing, pongs included, and stay open; new sockets are served', async () => {
    await fx.start();
    const a = await fx.connect();
    a.send(request(1, 'before the silence'));
    await a.audioEnd(1);
    await roundTrip(a);
    a.send(request(2, 'a long request that is cut off by the silence '.repeat(20)));
    await a.json((v) => v.type === 'audio' && v.request_id === 2);
    expect(fx.server().goSilent()).toBe(1);
    const framesAtSilence = a.frames.length;
    const pong = new Promise<'pong'>((resolve) => a.ws.once('pong', () => resolve('pong')));
    a.ws.ping();
    a.send(request(3, 'never answered'));
    expect(await settledWithin(pong, 300)).toBeUndefined();
    // A frame already on the wire may land; nothing after the request in flight does.
    expect(jsonFrames(a.frames.slice(framesAtSilence)).filter((v) => v.request_id === 3 || v.type === 'audio_end')).toEqual([]);
    expect(a.ws.readyState).toBe(a.ws.OPEN);
    expect(fx.server().openConnections()).toBe(1);
    expect(fx.server().goSilent()).toBe(0); // already silent

    const b = await fx.connect();
    await roundTrip(b);
    b.send(request(1, 'after the silence'));
    await b.audioEnd(1);
    expect(jsonAudio(b.frames, 1).equals(pcm('after the silence'))).toBe(true);
  });
});

describe('Resemble server: shutdown', () => {
  const tracked = ['Timeout', 'Immediate', 'TCPServerWrap', 'TCPSocketWrap'];
  const census = () => {
    const counts = Object.fromEntries(tracked.map((type) => [type, 0]));
    for (const type of process.getActiveResourcesInfo()) if (type in counts) counts[type]++;
    return counts;
  };

  it('close() cancels pending streams and leaves no timers or sockets behind', async () => {
    const before = census();
    const local = await startResembleServer({ firstByteDelayMs: 60_000, realTimeFactor: 1, idleCloseMs: 60_000 });
    const slow = await RawClient.connect(local.url);
    slow.send(request(1, 'waits a minute for its first byte'));
    const stalled = await RawClient.connect(local.url);
    local.setOptions({ firstByteDelayMs: 0, fault: () => ({ kind: 'stall', afterBytes: 10 }) });
    stalled.send(request(1, 'stalls forever'));
    await stalled.until((frames) => frames.length > 0);
    expect(local.received).toHaveLength(2);
    const during = census();

    await withTimeout(local.close(), 3000, 'server close');
    expect((await slow.waitClosed()).code).toBe(1006);
    expect((await stalled.waitClosed()).code).toBe(1006);
    await new Promise((resolve) => setImmediate(resolve));
    const after = census();
    for (const type of tracked) expect(after[type], type).toBeLessThanOrEqual(before[type]);
    // What went away: the pending first-byte timer, two idle timers, four socket ends, the listener.
    expect(during.Timeout - after.Timeout).toBeGreaterThanOrEqual(3);
    expect(during.TCPSocketWrap - after.TCPSocketWrap).toBe(4);
    expect(during.TCPServerWrap - after.TCPServerWrap).toBe(1);
    expect(slow.frames).toEqual([]);
  });
});
