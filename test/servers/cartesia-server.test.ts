import { initializeLogger, tts } from '@livekit/agents';
import { TTS as OfficialCartesiaTTS } from '@livekit/agents-plugin-cartesia';
import { afterEach, describe, expect, it } from 'vitest';
import { AUDIBLE_TONES_HZ, samplesForText, tagForText } from './audio-tag.js';
import { type CartesiaServer, type CartesiaServerOptions, startCartesiaServer } from './cartesia-server.js';
import {
  RawCartesiaClient,
  expectedRuns,
  generation,
  runsOf,
} from './cartesia/test-client.js';

let server: CartesiaServer | undefined;
const clients: RawCartesiaClient[] = [];

async function setup(options: Partial<CartesiaServerOptions> = {}): Promise<{ server: CartesiaServer; client: RawCartesiaClient }> {
  server = await startCartesiaServer(options);
  const client = await RawCartesiaClient.connect(server.url);
  clients.push(client);
  return { server, client };
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await server?.close();
  server = undefined;
});

/** Polls a condition on the server side (no sleeping assertions): bounded. */
async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('Cartesia server: streaming', () => {
  it('streams continuations of one context in order, tags each input, and ends with done', async () => {
    const { server, client } = await setup({ frameBytes: 1001 });
    const pieces = ['Hello there, ', 'how can I help?'];
    client.send(generation('turn-1', pieces[0]!));
    client.send(generation('turn-1', pieces[1]!, { continue: false }));
    await client.waitForType('done', 'turn-1');

    expect(runsOf(client.audioOf('turn-1'))).toEqual(expectedRuns(pieces, 24000, 60));
    const events = client.of('turn-1');
    expect(events.at(-1)).toEqual({ type: 'done', done: true, status_code: 206, context_id: 'turn-1' });
    for (const chunk of client.of('turn-1', 'chunk')) {
      expect(chunk).toMatchObject({ done: false, status_code: 206, context_id: 'turn-1' });
      expect(typeof chunk.step_time).toBe('number');
      expect(Buffer.from(chunk.data as string, 'base64').length).toBeLessThanOrEqual(1001);
    }
    // Odd frame sizes split samples across chunks.
    expect(Buffer.from(client.of('turn-1', 'chunk')[0]!.data as string, 'base64').length).toBe(1001);
    expect(server.received.map((r) => r.message.transcript)).toEqual(pieces);
    expect(client.responseHeaders['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends an unsolicited flush_done after each input and tags chunks with its flush_id', async () => {
    const { client } = await setup();
    client.send(generation('c', 'First part. '));
    client.send(generation('c', 'Second part.', { continue: false }));
    await client.waitForType('done', 'c');

    const kinds = client.of('c').map((e) => (e.type === 'chunk' ? `chunk${e.flush_id}` : `${e.type}${e.flush_id ?? ''}`));
    const compact = kinds.filter((k, i) => k !== kinds[i - 1]);
    expect(compact).toEqual(['chunk1', 'flush_done1', 'chunk2', 'flush_done2', 'done']);
  });

  it('interleaves concurrent contexts on one socket, each routed by context_id', async () => {
    const { client } = await setup({ frameBytes: 400 });
    const a = 'Alpha speaks a rather long sentence here.';
    const b = 'Bravo answers with another long sentence.';
    client.send(generation('A', a, { continue: false }));
    client.send(generation('B', b, { continue: false }));
    await Promise.all([client.waitForType('done', 'A'), client.waitForType('done', 'B')]);

    const order = client.events.filter((e) => e.type === 'chunk').map((e) => e.context_id);
    expect(order.indexOf('B')).toBeLessThan(order.lastIndexOf('A'));
    expect(order.indexOf('A')).toBeLessThan(order.lastIndexOf('B'));
    expect(runsOf(client.audioOf('A'))).toEqual(expectedRuns([a], 24000, 60));
    expect(runsOf(client.audioOf('B'))).toEqual(expectedRuns([b], 24000, 60));
  });

  it('reports word timestamps from context start, cumulative across inputs, merging split words', async () => {
    const { client } = await setup({ msPerChar: 50 });
    const format = { container: 'raw', encoding: 'pcm_s16le', sample_rate: 8000 };
    const extra = { add_timestamps: true, add_phoneme_timestamps: true, output_format: format };
    client.send(generation('t', 'Hello, wor', extra));
    client.send(generation('t', 'ld and more. ', extra));
    client.send(generation('t', 'Bye.', { ...extra, continue: false }));
    await client.waitForType('done', 't');

    const batches = client.of('t', 'timestamps').map((e) => e.word_timestamps as { words: string[]; start: number[]; end: number[] });
    const words = batches.flatMap((b) => b.words);
    const start = batches.flatMap((b) => b.start);
    const end = batches.flatMap((b) => b.end);
    expect(words).toEqual(['Hello,', 'world', 'and', 'more.', 'Bye.']);
    // 'Hello, wor' is 10 chars (0.5 s), 'ld and more. ' 13 chars (0.65 s): 'Bye.' starts at 1.15 s.
    expect(start).toEqual([0, 0.35, 0.65, 0.85, 1.15]);
    expect(end).toEqual([0.3, 0.6, 0.8, 1.1, 1.35]);
    const phonemes = client.of('t', 'phoneme_timestamps').flatMap((e) => (e.phoneme_timestamps as { phonemes: string[] }).phonemes);
    expect(phonemes.join('')).toBe('Hello,worldandmore.Bye.');
    // Timestamps never run ahead of the audio that carries them.
    const firstTimestamps = client.of('t').findIndex((e) => e.type === 'timestamps');
    expect(client.of('t')[firstTimestamps - 1]?.type).toBe('chunk');
  });

  it('answers flush:true with flush_done and moves later chunks to the next flush_id', async () => {
    const { client } = await setup({ flushDoneAfterEachInput: false });
    client.send(generation('f', 'One two three. '));
    client.send(generation('f', '', { flush: true }));
    client.send(generation('f', 'Four five.'));
    client.send(generation('f', '', { flush: true, continue: false }));
    await client.waitForType('done', 'f');

    const kinds = client.of('f').map((e) => `${e.type}${e.flush_id ?? ''}`);
    const compact = kinds.filter((k, i) => k !== kinds[i - 1]);
    expect(compact).toEqual(['chunk1', 'flush_done1', 'chunk2', 'flush_done2', 'done']);
    expect(client.of('f', 'flush_done')[0]).toEqual({
      type: 'flush_done', done: false, flush_done: true, flush_id: 1, status_code: 206, context_id: 'f',
    });
  });

  it('buffers text with max_buffer_delay_ms > 0 until a sentence ends', async () => {
    const { client } = await setup();
    client.send(generation('buf', 'Hello ', { max_buffer_delay_ms: 1000 }));
    client.send(generation('buf', 'there. ', { max_buffer_delay_ms: 1000 }));
    client.send(generation('buf', 'Bye', { max_buffer_delay_ms: 1000, continue: false }));
    await client.waitForType('done', 'buf');
    expect(runsOf(client.audioOf('buf'))).toEqual(expectedRuns(['Hello there. ', 'Bye'], 24000, 60));
    expect(client.of('buf', 'flush_done')).toEqual([]);
  });

  it("speaks a speech-band tone per piece with audio: 'audible', handing out its tones in turn and logging each (it must cross Opus in a room)", async () => {
    const { client, server } = await setup({ audio: 'audible' });
    const texts = ['Audible check. ', 'Audible check. ', 'Third piece.'];
    texts.forEach((text, i) => client.send(generation('tone', text, { continue: i < texts.length - 1 })));
    await client.waitForType('done', 'tone');
    // The same text twice still gets two tones: a tone names a voiced piece, not its words.
    expect(server.voiced).toEqual(texts.map((transcript, i) => ({ connectionId: 1, contextId: 'tone', transcript, hz: AUDIBLE_TONES_HZ[i] })));
    const audio = client.audioOf('tone');
    const lengths = texts.map((t) => samplesForText(t, 24000, 60));
    expect(audio.length).toBe(lengths.reduce((a, b) => a + b, 0) * 2);
    let offset = 0;
    lengths.forEach((samples, piece) => {
      let sumSquares = 0;
      let crossings = 0;
      for (let i = 0; i < samples; i++) {
        const s = audio.readInt16LE((offset + i) * 2);
        sumSquares += s * s;
        if (i > 0 && Math.sign(s) !== Math.sign(audio.readInt16LE((offset + i - 1) * 2)) && s !== 0) crossings++;
      }
      offset += samples;
      const rms = Math.sqrt(sumSquares / samples) / 32768;
      expect(rms).toBeGreaterThan(0.15);
      expect(rms).toBeLessThan(0.2);
      // Two zero crossings per period: the logged tone, far below Opus's cut-off.
      expect(crossings / 2 / (samples / 24000)).toBeCloseTo(server.voiced[piece]!.hz, -1);
    });
  });

  it('wraps the audible tones round after the last, so any run of that many pieces sounds apart', async () => {
    const { client, server } = await setup({ audio: 'audible', msPerChar: 1 });
    const pieces = AUDIBLE_TONES_HZ.length + 2;
    for (let i = 0; i < pieces; i++) client.send(generation('round', `Piece ${i}. `, { continue: i < pieces - 1 }));
    await client.waitForType('done', 'round');
    const tones = server.voiced.map((v) => v.hz);
    expect(tones.slice(0, AUDIBLE_TONES_HZ.length)).toEqual([...AUDIBLE_TONES_HZ]);
    expect(tones.slice(AUDIBLE_TONES_HZ.length)).toEqual(AUDIBLE_TONES_HZ.slice(0, 2));
  });

  it('synthesizes pcm_f32le and 8-bit G.711 encodings', async () => {
    const { client } = await setup();
    const text = 'Format check.';
    for (const encoding of ['pcm_f32le', 'pcm_mulaw', 'pcm_alaw']) {
      client.send(generation(encoding, text, { continue: false, output_format: { container: 'raw', encoding, sample_rate: 16000 } }));
    }
    await Promise.all(['pcm_f32le', 'pcm_mulaw', 'pcm_alaw'].map((e) => client.waitForType('done', e)));
    const samples = samplesForText(text, 16000, 60);
    const f32 = client.audioOf('pcm_f32le');
    expect(f32.length).toBe(samples * 4);
    expect(Math.round(f32.readFloatLE(0) * 32768)).toBe(tagForText(text));
    expect(Math.round(f32.readFloatLE(4) * 32768)).toBe(-tagForText(text));
    for (const encoding of ['pcm_mulaw', 'pcm_alaw']) {
      const bytes = client.audioOf(encoding);
      expect(bytes.length).toBe(samples);
      expect(new Set(bytes).size).toBe(2);
      expect(bytes[0]).not.toBe(bytes[1]);
    }
  });
});

describe('Cartesia server: pacing knobs (lower bounds only; timers never fire early)', () => {
  it('waits firstByteDelayMs before the first chunk and paces later chunks by realTimeFactor', async () => {
    // 24 kHz pcm_s16le: 4800 bytes = 100 ms of audio per chunk.
    const { client } = await setup({ firstByteDelayMs: 120, realTimeFactor: 1, frameBytes: 4800 });
    const sentAt = performance.now();
    client.send(generation('p', 'Paced.', { continue: false })); // 6 chars = 360 ms = 4 chunks
    await client.waitForType('chunk', 'p');
    const firstChunkAt = performance.now();
    await client.waitForType('done', 'p');
    const doneAt = performance.now();
    expect(client.of('p', 'chunk')).toHaveLength(4);
    expect(firstChunkAt - sentAt).toBeGreaterThanOrEqual(115);
    expect(doneAt - firstChunkAt).toBeGreaterThanOrEqual(295);
  });
});

describe('Cartesia server: cancel and early done', () => {
  // 24 kHz pcm_s16le: 14400 bytes = 300 ms per chunk; rtf 1 paces chunks 300 ms apart, far longer
  // than a loopback round trip, so "the chunk after the cancel" is a well-defined chunk.
  const slow = { frameBytes: 14400, realTimeFactor: 1 };
  const long = 'This is a long reply that will be interrupted.';

  it('stops generating after a cancel; one late chunk still arrives; queued input is dropped', async () => {
    const { server, client } = await setup({ ...slow, doneAfterCancel: true });
    client.send(generation('x', long));
    client.send(generation('x', 'Queued follow-up.', { continue: false }));
    await client.waitForType('chunk', 'x');
    client.send({ context_id: 'x', cancel: true });
    await client.waitForType('done', 'x');

    expect(client.of('x', 'chunk')).toHaveLength(2);
    expect(runsOf(client.audioOf('x')).map((r) => r.tag)).toEqual([tagForText(long)]);
    expect(client.of('x', 'flush_done')).toEqual([]);
    expect(server.received.at(-1)?.message).toEqual({ context_id: 'x', cancel: true });
    expect(server.activeContexts()).toBe(0);
  });

  it('sends no acknowledgement by default and honours lateChunksAfterCancel: 0', async () => {
    const { server, client } = await setup({ ...slow, lateChunksAfterCancel: 0 });
    client.send(generation('y', long, { continue: false }));
    await client.waitForType('chunk', 'y');
    client.send({ context_id: 'y', cancel: true });
    await until(() => server.activeContexts() === 0, 'the cancelled context to be released');
    // A new context on the same socket completes; nothing more of 'y' arrived before it.
    client.send(generation('z', 'Next.', { continue: false }));
    await client.waitForType('done', 'z');
    expect(client.of('y').map((e) => e.type)).toEqual(['chunk']);
  });

  it('refuses more input on a cancelled context', async () => {
    const { client } = await setup(slow);
    client.send(generation('c1', long));
    await client.waitForType('chunk', 'c1');
    client.send({ context_id: 'c1', cancel: true });
    client.send({ context_id: 'c1', cancel: true });
    client.send(generation('c1', 'More.', { continue: false }));
    const error = await client.waitForType('error', 'c1');
    expect(error.error_code).toBe('context_closed');
  });

  it('reproduces the early-done gotcha: an idle open context gets done, later input plays and ends with another done', async () => {
    const { client } = await setup({ earlyDoneIdleMs: 30 });
    client.send(generation('e', 'Hello there. '));
    await client.waitForType('done', 'e');
    expect(client.of('e').at(-1)?.type).toBe('done');

    client.send(generation('e', 'More text.', { continue: false }));
    await client.waitFor((ev) => ev.type === 'done' && client.of('e', 'done').length === 2, 3000, 'second done');
    expect(runsOf(client.audioOf('e'))).toEqual(expectedRuns(['Hello there. ', 'More text.'], 24000, 60));
    expect(client.of('e').at(-1)?.type).toBe('done');
  });

  it('keeps a finished context until it expires, refusing input, then releases its slot', async () => {
    const { server, client } = await setup({ contextExpiryMs: 200 });
    client.send(generation('done-ctx', 'Short.', { continue: false }));
    await client.waitForType('done', 'done-ctx');
    expect(server.activeContexts()).toBe(1);
    client.send(generation('done-ctx', 'Again.', { continue: false }));
    const error = await client.waitForType('error', 'done-ctx');
    expect(error).toMatchObject({ status_code: 400, error_code: 'context_closed', done: true });
    await until(() => server.activeContexts() === 0, 'expiry');
  });

  // Documented: "Contexts automatically expire 1 second after the last audio output is streamed
  // out". An open context waiting for an LLM that paused is no exception.
  it('expires an open context contextExpiryMs after its last audio; later input gets a per-context error', async () => {
    const { server, client } = await setup({ contextExpiryMs: 40 });
    client.send(generation('open', 'Said before the pause. '));
    await client.waitForType('flush_done', 'open');
    await until(() => server.expiredContexts.includes('open'), 'the open context to expire');
    expect(server.activeContexts()).toBe(0);
    client.send(generation('open', 'Said after the pause.'));
    const error = await client.waitForType('error', 'open');
    expect(error).toMatchObject({ status_code: 400, error_code: 'context_closed', done: true, context_id: 'open' });
    // Nothing of the late input was voiced.
    expect(runsOf(client.audioOf('open'))).toEqual(expectedRuns(['Said before the pause. '], 24000, 60));
  });

  it('keeps an open context alive while input keeps arriving within contextExpiryMs of its audio', async () => {
    const { server, client } = await setup({ contextExpiryMs: 1000 });
    client.send(generation('busy', 'One. '));
    await client.waitForType('flush_done', 'busy');
    client.send(generation('busy', 'Two.', { continue: false }));
    await client.waitForType('done', 'busy');
    expect(server.expiredContexts).toEqual([]);
    expect(runsOf(client.audioOf('busy'))).toEqual(expectedRuns(['One. ', 'Two.'], 24000, 60));
  });

  it.each([
    ['a made-up code', { statusCode: 400, errorCode: 'invalid_context', title: 'Invalid context', message: 'No context with this id.' }],
    ['no code at all', { statusCode: 404, errorCode: null, title: 'Not found', message: 'Context expired.' }],
  ])('answers input on an expired id with the configured wording (%s)', async (_name, spec) => {
    const { server, client } = await setup({ contextExpiryMs: 20, expiredContextError: spec });
    client.send(generation('gone', 'Hello. '));
    await until(() => server.expiredContexts.includes('gone'), 'expiry');
    client.send(generation('gone', '', { continue: false }));
    const error = await client.waitForType('error', 'gone');
    expect(error).toMatchObject({ status_code: spec.statusCode, error_code: spec.errorCode, title: spec.title, message: spec.message, context_id: 'gone' });
  });
});

describe('Cartesia server: official @livekit/agents-plugin-cartesia', () => {
  initializeLogger({ pretty: false, level: 'warn' });

  async function synthesizeWithPlugin(plugin: OfficialCartesiaTTS, text: string): Promise<tts.SynthesizedAudio[]> {
    const stream = plugin.stream();
    stream.pushText(text);
    stream.endInput();
    const collect = (async () => {
      const events: tts.SynthesizedAudio[] = [];
      for await (const event of stream) {
        if (event === tts.SynthesizeStream.END_OF_STREAM) break;
        events.push(event);
      }
      return events;
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('plugin stream did not finish')), 5000);
    });
    try {
      return await Promise.race([collect, timeout]);
    } finally {
      clearTimeout(timer);
      stream.close();
    }
  }

  it("speaks one sentence through the plugin's TTS.stream() with word timestamps", async () => {
    server = await startCartesiaServer();
    const plugin = new OfficialCartesiaTTS({ apiKey: 'test-key', baseUrl: server.httpUrl });
    try {
      const sentence = 'Hello from the official plugin.';
      const events = await synthesizeWithPlugin(plugin, sentence);

      const pcm = Buffer.concat(events.map((e) => Buffer.from(e.frame.data.buffer, e.frame.data.byteOffset, e.frame.data.byteLength)));
      // The plugin sends each sentence with a trailing space, then a closing ' ' with continue:false.
      expect(runsOf(pcm)).toEqual(expectedRuns([`${sentence} `], 24000, 60));
      expect(events.at(-1)?.final).toBe(true);
      const words = events.flatMap((e) => e.timedTranscripts ?? []).map((t) => t.text.trim());
      expect(words).toEqual(['Hello', 'from', 'the', 'official', 'plugin.']);
      const sent = server.received.map((r) => r.message);
      expect(sent.map((m) => [m.transcript, m.continue])).toEqual([[`${sentence} `, true], [' ', false]]);
      expect(sent[0]).toMatchObject({ model_id: 'sonic-3', max_buffer_delay_ms: 0, add_timestamps: true });
    } finally {
      await plugin.close();
    }
  });

  it('ends the plugin stream on a legacy-shaped 4xx error (model_not_found) instead of hanging', async () => {
    server = await startCartesiaServer();
    const plugin = new OfficialCartesiaTTS({ apiKey: 'test-key', baseUrl: server.httpUrl, model: 'sonic-unknown' });
    try {
      expect(await synthesizeWithPlugin(plugin, 'This model does not exist.')).toEqual([]);
    } finally {
      await plugin.close();
    }
  });
});
