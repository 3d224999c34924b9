/**
 * The watchdog must tell a stalled provider from a slow LLM: an open Cartesia context whose audio
 * has all arrived is waiting for our text, not for the provider, and must not be timed out.
 */
import { initializeLogger } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { type ProviderFixture, collect, everyStream, fixtures, heardTags, recordSent, sleep } from '../../packages/agents-plugin-tts/test/driver/harness.js';
import { checkComplete, expectedRuns, heardRuns } from './checks.js';
import { samplesForText } from '../servers/audio-tag.js';

initializeLogger({ pretty: false, level: 'silent' as 'error' });

const WATCHDOG_MS = 150;
const FIRST = 'Let me check that for you, one moment. ';
const REST = 'The order left the warehouse this morning and arrives tomorrow.';

describe.each(['resemble', 'cartesia'] as const)('%s watchdog', (name) => {
  let fx: ProviderFixture;
  let engine: FirstwordTTS | undefined;
  afterEach(async () => {
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });

  const setup = async (server: Record<string, unknown> = {}) => {
    fx = await fixtures[name]({ msPerChar: 1, ...server });
    engine = fx.make({ pool: { inactivityTimeoutMs: WATCHDOG_MS, backoffBaseMs: 5 } });
    const retries: Array<{ at: number; error: string }> = [];
    everyStream(engine).on('retry', (e) => retries.push({ at: performance.now(), error: e.error }));
    const errors: unknown[] = [];
    engine.on('error', (e) => errors.push(e.error));
    return { retries, errors, sent: recordSent(engine) };
  };

  const expectWholeReply = (samples: Int16Array, texts: string[]) => {
    const expected = expectedRuns(texts, (t) => fx.tagOf(t), (t) => samplesForText(fx.wireText(t), 16000, 1));
    expect(checkComplete(heardRuns(samples), expected)).toBeUndefined();
  };

  it('does not time out a reply while the LLM pauses longer than the watchdog', async () => {
    const { retries, errors, sent } = await setup();
    const stream = engine!.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
    stream.pushText(FIRST);
    await sleep(WATCHDOG_MS * 4);
    stream.pushText(REST);
    stream.endInput();
    const out = await collect(stream, 5000);
    expect(out.endOfStream).toBe(true);
    expect(retries).toEqual([]);
    expect(errors).toEqual([]);
    expect(fx.server.connectionsOpened).toBe(1);
    expectWholeReply(out.samples, [...new Set(sent.get(stream.id))]);
  });

  it('still catches a provider that never sends a first byte while the LLM pauses', async () => {
    let struck = false;
    const stall = () => (struck ? undefined : ((struck = true), { kind: 'stall' as const, afterBytes: 0 }));
    const { retries, sent } = await setup({ fault: stall });
    const stream = engine!.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
    stream.pushText(FIRST);
    const pausedAt = performance.now();
    await sleep(WATCHDOG_MS * 4);
    // Caught during the pause, not only once more text arrived.
    expect(retries).toHaveLength(1);
    expect(retries[0]!.at - pausedAt).toBeLessThan(WATCHDOG_MS * 4);
    stream.pushText(REST);
    stream.endInput();
    const out = await collect(stream, 5000);
    expect(out.endOfStream).toBe(true);
    expectWholeReply(out.samples, [...new Set(sent.get(stream.id))]);
  });

  it('catches a provider that stalls mid-audio once the reply is complete, without repeating audio', async () => {
    let struck = false;
    const stall = () => (struck ? undefined : ((struck = true), { kind: 'stall' as const, afterBytes: 300 }));
    const { retries, sent } = await setup({ fault: stall });
    const stream = engine!.stream({ connOptions: { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 } });
    stream.pushText(FIRST);
    await sleep(WATCHDOG_MS * 2);
    stream.pushText(REST);
    stream.endInput();
    const out = await collect(stream, 5000);
    expect(out.endOfStream).toBe(true);
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(heardTags(out.samples).length).toBeGreaterThan(0);
    expectWholeReply(out.samples, [...new Set(sent.get(stream.id))]);
  });
});
