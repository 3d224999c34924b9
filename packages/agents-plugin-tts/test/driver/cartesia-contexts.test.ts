/**
 * Cartesia contexts against the live service's documented and observed behaviour
 * (docs/providers.md B.5, B.8): a context expires 1 s after its last audio, so an LLM that pauses
 * mid-reply outlives it; per-context errors whose wording nobody has seen; a `done` that never
 * comes. The server does each of these on a knob (test/servers/README.md).
 */
import type { TimedString } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '../../src/driver/base.js';
import { samplesForText } from '../../../../test/servers/audio-tag.js';
import type { CartesiaServer, CartesiaServerOptions } from '../../../../test/servers/cartesia-server.js';
import { type Collected, type ProviderFixture, collect, fixtures, heardTags, recordSent, everyStream } from './harness.js';

const RATE = 16000;
const MS_PER_CHAR = 2; // the fixture's
const BEFORE = 'First part, said before the pause. ';
const AFTER = 'And the rest arrives after it, on its own. ';

/** Two wordings nobody has confirmed for input on an expired context: the codec must not need either. */
const WORDINGS: Array<[string, NonNullable<CartesiaServerOptions['expiredContextError']>]> = [
  ['400 with a made-up code', { statusCode: 400, errorCode: 'invalid_context', title: 'Invalid context', message: 'No context with this id.' }],
  ['404 without a code', { statusCode: 404, errorCode: null, title: 'Not found', message: 'Context expired.' }],
];

/** Bounded poll of server-side state (no sleeping assertions). */
async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('cartesia contexts that expire while the LLM pauses', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  const server = () => fx!.server as CartesiaServer;
  const contextsUsed = () => new Set(server().received.map((r) => r.message.context_id)).size;

  /** A TTS on a server whose contexts expire 30 ms after their last audio; errors and retries recorded. */
  async function start(serverOpts: Partial<CartesiaServerOptions>, ttsOpts: Record<string, unknown> = {}) {
    fx = await fixtures.cartesia({ contextExpiryMs: 30, ...serverOpts });
    engine = fx.make({ speech: false, ...ttsOpts });
    const errors: Error[] = [];
    const retries: string[] = [];
    engine.on('error', (e) => errors.push(e.error));
    everyStream(engine).on('retry', (e) => retries.push(e.error));
    await engine.prewarm();
    return { engine, errors, retries, sent: recordSent(engine) };
  }

  /** The texts heard, in order, each checked to be whole (every sample of its audio played once). */
  function heardTexts(out: Collected, sent: string[]): string[] {
    return heardTags(out.samples).map((run) => {
      const text = sent.find((t) => fx!.tagOf(t) === run.tag);
      expect(text, `audio of a text that was never sent (tag ${run.tag})`).toBeDefined();
      expect(run.samples).toBe(samplesForText(fx!.wireText(text!), RATE, MS_PER_CHAR));
      return text!;
    });
  }

  /**
   * Pushes BEFORE, waits until the server expired its context, then pushes AFTER and ends the
   * input (`endAfterReopen`: only once AFTER went out on a second context).
   */
  async function pauseLongerThanTheContext(engineIn: FirstwordTTS, endAfterReopen = false) {
    const stream = engineIn.stream();
    const reading = collect(stream);
    stream.pushText(BEFORE);
    await until(() => server().expiredContexts.length === 1, 'the context to expire during the pause');
    stream.pushText(AFTER);
    if (endAfterReopen) await until(() => contextsUsed() === 2, 'the rest to go out on a second context');
    stream.endInput();
    return { stream, out: await reading };
  }

  it.each(WORDINGS)('the rest of the reply goes out on a fresh context, in order, nothing lost (%s)', async (_name, wording) => {
    const { engine, errors, retries, sent } = await start({ expiredContextError: wording });
    const { stream, out } = await pauseLongerThanTheContext(engine);
    expect(errors).toEqual([]);
    expect(retries).toEqual([]);
    expect(out.endOfStream).toBe(true);
    expect(heardTexts(out, sent.get(stream.id) ?? []).join(' ')).toBe(`${BEFORE}${AFTER}`.trim());
    expect(contextsUsed()).toBe(2);
    expect(server().connectionsOpened).toBe(1);
    expect(out.frames.at(-1)?.final).toBe(true);
  });

  it.each(WORDINGS)('a close that lands on an expired context after all audio played ends the turn cleanly (%s)', async (_name, wording) => {
    const { engine, errors, retries, sent } = await start({ expiredContextError: wording });
    const stream = engine.stream();
    const reading = collect(stream);
    stream.pushText(BEFORE);
    await until(() => server().expiredContexts.length === 1, 'the context to expire before the input ends');
    stream.endInput(); // the LLM is done: only the close message is left, and it meets an expired context
    const out = await reading;
    expect(errors).toEqual([]);
    expect(retries).toEqual([]);
    expect(out.endOfStream).toBe(true);
    expect(heardTexts(out, sent.get(stream.id) ?? []).join(' ')).toBe(BEFORE.trim());
    expect(contextsUsed()).toBe(1); // nothing was left to say: no fresh context for it
    const close = server().received.at(-1)!.message;
    expect(close).toMatchObject({ transcript: '', continue: false });
  });

  // Word times of a context count from that context's start; after a reopen they must be placed
  // after the audio the track already played, or heard text over-reports on a barge-in.
  // The first text a fresh context gets must have words: what met the expired context may be
  // only punctuation (a run of it ends a "sentence" for the chunker), which Cartesia refuses as a
  // context's first input and which would make no sound anyway.
  it('a fresh context never opens with the letterless text that met the expired one', async () => {
    const { engine, errors, sent } = await start({});
    const stream = engine.stream();
    const reading = collect(stream);
    const transcripts = () => server().received.map((r) => String(r.message.transcript));
    stream.pushText(BEFORE);
    await until(() => server().expiredContexts.length === 1, 'the context to expire during the pause');
    stream.pushText('?!?! ?!?! ?!?! ');
    await until(() => transcripts().some((t) => t.startsWith('?!')), 'the punctuation to meet the expired context');
    stream.pushText(AFTER);
    stream.endInput();
    const out = await reading;
    expect(errors).toEqual([]);
    expect(out.endOfStream).toBe(true);
    expect(heardTexts(out, sent.get(stream.id) ?? []).join(' ')).toBe(`${BEFORE}${AFTER}`.trim());
    const openers = [...new Set(server().received.map((r) => r.message.context_id))].map((id) =>
      String(server().received.find((r) => r.message.context_id === id)!.message.transcript),
    );
    expect(openers).toHaveLength(2);
    expect(openers[1]).toMatch(/^And/);
  });

  it('word timings after a reopen are where their audio actually played', async () => {
    const { engine, sent } = await start({}, { wordTimestamps: true });
    const { stream, out } = await pauseLongerThanTheContext(engine, true);
    expect(contextsUsed()).toBe(2);
    const texts = sent.get(stream.id) ?? [];
    const timed: TimedString[] = out.frames.flatMap((f) => f.timedTranscripts ?? []);
    // Where each word starts in the audio that was played: its text's run, plus the server's
    // layout inside a text (msPerChar per code point).
    const expected: Array<{ word: string; startSample: number }> = [];
    let at = 0;
    for (const text of heardTexts(out, texts)) {
      const wire = fx!.wireText(text);
      for (const m of wire.matchAll(/\S+/gu)) {
        expected.push({ word: m[0], startSample: at + Math.round(([...wire.slice(0, m.index)].length * MS_PER_CHAR * RATE) / 1000) });
      }
      at += samplesForText(wire, RATE, MS_PER_CHAR);
    }
    expect(timed.map((t) => t.text.trim())).toEqual(expected.map((e) => e.word));
    for (const [i, t] of timed.entries()) {
      expect(Math.abs(t.startTime! * RATE - expected[i]!.startSample), `start of ${JSON.stringify(t.text)}`).toBeLessThanOrEqual(1);
    }
  });
});

describe('cartesia per-context errors that can never work', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  const firstContext = (f: ProviderFixture | undefined): unknown => (f?.server as CartesiaServer | undefined)?.received[0]?.message.context_id;

  /** Speaks a reply of several inputs and checks every text was heard once, in order, without an error. */
  async function spokenAll(f: ProviderFixture, contexts: number): Promise<string[]> {
    engine = f.make({ speech: false });
    const errors: Error[] = [];
    const retries: string[] = [];
    engine.on('error', (e) => errors.push(e.error));
    everyStream(engine).on('retry', (e) => retries.push(e.error));
    const sent = recordSent(engine);
    const stream = engine.stream();
    stream.pushText('One short sentence first. ');
    stream.pushText('Then a second sentence follows it. ');
    stream.pushText('And the third one ends it here.');
    stream.endInput();
    const out = await collect(stream);
    expect(errors).toEqual([]);
    expect(out.endOfStream).toBe(true);
    const texts = [...new Set(sent.get(stream.id) ?? [])];
    expect(texts.length).toBeGreaterThan(2);
    expect(heardTags(out.samples).map((r) => r.tag)).toEqual(texts.map((t) => f.tagOf(t)));
    expect(new Set((f.server as CartesiaServer).received.map((r) => r.message.context_id)).size).toBe(contexts);
    return retries;
  }

  async function failureOf(serverOpts: Partial<CartesiaServerOptions>, ttsOpts: Record<string, unknown> = {}) {
    fx = await fixtures.cartesia(serverOpts);
    engine = fx.make(ttsOpts);
    const errors: Array<Error & { retryable?: boolean }> = [];
    engine.on('error', (e) => errors.push(e.error));
    const stream = engine.stream();
    stream.pushText('Hello there, this will not be said.');
    stream.endInput();
    const out = await collect(stream);
    const contexts = new Set((fx.server as CartesiaServer).received.map((r) => r.message.context_id)).size;
    return { errors, out, contexts };
  }

  // Not an expiry: a context that spoke fails on one of its inputs, before that input's audio.
  // What it voiced in full (each input's flush_done) stays played; the rest goes on a fresh one.
  it('a 4xx on a context that spoke, between inputs, continues the rest on a fresh context', async () => {
    const fault = { kind: 'error-event' as const, statusCode: 400, errorCode: 'never_seen', message: 'Refused.' };
    fx = await fixtures.cartesia({ fault: (c) => (c.index === 1 && c.contextId === firstContext(fx) ? fault : undefined) });
    await spokenAll(fx, 2);
  });

  // The error cuts an input's audio short: where the voicing stopped is not known to the word, so
  // the track is synthesized again (one retry) and what already played is skipped.
  it('a 4xx that cuts an input off mid-audio retries the track, nothing lost or repeated', async () => {
    const fault = { kind: 'error-event' as const, statusCode: 400, errorCode: 'never_seen', message: 'Refused.', afterBytes: 201 };
    fx = await fixtures.cartesia({ fault: (c) => (c.index === 1 && c.contextId === firstContext(fx) ? fault : undefined) });
    const retries = await spokenAll(fx, 2);
    expect(retries).toHaveLength(1);
  });

  it('an unknown voice fails at once, not retried, naming CARTESIA_VOICE', async () => {
    const { errors, out, contexts } = await failureOf({ voices: ['some-other-voice'] });
    expect(out.endOfStream).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.retryable).toBe(false);
    expect(errors[0]!.message).toMatch(/CARTESIA_VOICE/);
    expect(contexts).toBe(1);
  });

  it('a 4xx nobody has seen on a context that voiced nothing fails once, without reopening it', async () => {
    const fault = { kind: 'error-event' as const, statusCode: 422, errorCode: 'never_seen', message: 'Unprocessable.' };
    const { errors, contexts } = await failureOf({ fault: () => fault });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.retryable).toBe(false);
    expect(errors[0]!.message).toMatch(/never_seen/);
    expect(contexts).toBe(1);
  });
});

describe('cartesia contexts whose done never comes', () => {
  let fx: ProviderFixture | undefined;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
    fx = undefined;
  });

  // Today's cost without this: the watchdog fails the attempt, the framework retries three times,
  // about 26 s before the stream ends with an error. The watchdog here is short so the test is fast.
  async function neverDone(serverOpts: Partial<CartesiaServerOptions>, warmUp: boolean) {
    fx = await fixtures.cartesia(serverOpts);
    const srv = fx.server as CartesiaServer;
    engine = fx.make({ speech: false, pool: { inactivityTimeoutMs: 150 } });
    const errors: Error[] = [];
    const retries: string[] = [];
    engine.on('error', (e) => errors.push(e.error));
    everyStream(engine).on('retry', (e) => retries.push(e.error));
    if (warmUp) {
      // One ordinary turn, with its done: the codec learns this service sends no flush_done.
      const first = engine.stream();
      first.pushText('A first reply that ends normally.');
      first.endInput();
      expect((await collect(first)).endOfStream).toBe(true);
    }
    srv.setOptions({ sendsDone: false });
    const sentBefore = fx.sentTexts().length;
    const sent = recordSent(engine);
    const stream = engine.stream();
    stream.pushText('Every word of this arrives, but the context never says done.');
    stream.endInput();
    const out = await collect(stream);
    expect(errors).toEqual([]);
    expect(retries).toEqual([]);
    expect(out.endOfStream).toBe(true);
    const texts = sent.get(stream.id) ?? [];
    expect(heardTags(out.samples).map((r) => r.tag)).toEqual(texts.map((t) => fx!.tagOf(t)));
    expect(srv.connectionsOpened).toBe(1);
    // Each text went to the server once: nothing was synthesized again.
    expect(fx.sentTexts().slice(sentBefore)).toEqual(texts.map((t) => fx!.wireText(t)));
  }

  it('a closed context whose audio has all arrived (every input flush_done) ends at the watchdog, no retry, no error', async () => {
    await neverDone({ flushDoneAfterEachInput: true }, false);
  });

  it('the same from a service that sends no flush_done, once a context ended without one', async () => {
    await neverDone({ flushDoneAfterEachInput: false }, true);
  });
});
