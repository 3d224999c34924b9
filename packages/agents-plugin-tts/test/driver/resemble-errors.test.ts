/**
 * Resemble error frames as the live service sends them (docs/providers.md A.8 and
 * docs/provider-fidelity.md): `BadJSON` without `request_id`, errors without `status_code`, `DBCacheError` for a
 * model the voice (or the plan) lacks, and `Unauthorized` for a plan without WebSocket streaming.
 */
import { APIError, type APIError as APIErrorType } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderEvent, TrackKey } from '../../src/protocol/codec.js';
import { ResembleCodec } from '../../src/providers/resemble/codec.js';
import type { ResembleTTS } from '../../src/index.js';
import { ProviderSocket, type TrackOwner } from '../../src/transport/socket.js';
import type { ResembleServer, ResembleServerOptions } from '../../../../test/servers/resemble-server.js';
import { type ProviderFixture, collect, fixtures, sleep, speak, tokens, withTimeout, everyStream } from './harness.js';

const CONN = { maxRetry: 3, retryIntervalMs: 10, timeoutMs: 5000 };

/** A stream's side of a socket, recording what reaches it. */
class Recorder implements TrackOwner {
  readonly events: Array<ProviderEvent & { track: TrackKey }> = [];
  readonly failures: APIErrorType[] = [];
  onTrackEvent(event: ProviderEvent & { track: TrackKey }): void {
    this.events.push(event);
  }
  onSocketFailure(error: APIErrorType): void {
    this.failures.push(error);
  }
  ended(track: TrackKey): boolean {
    return this.events.some((e) => e.track === track && (e.type === 'end' || e.type === 'error'));
  }
}

describe('resemble errors', () => {
  let fx: ProviderFixture;
  let engine: ResembleTTS | undefined;
  let socket: ProviderSocket | undefined;
  afterEach(async () => {
    socket?.close();
    socket = undefined;
    await engine?.close();
    engine = undefined;
    await fx?.close();
  });
  const server = () => fx.server as ResembleServer;

  const setup = async (opts: Partial<ResembleServerOptions>, tts: Record<string, unknown> = {}) => {
    fx = await fixtures.resemble(opts);
    engine = fx.make(tts) as ResembleTTS;
    const errors: APIErrorType[] = [];
    engine.on('error', (e) => errors.push(e.error as APIErrorType));
    // The timeline reports every failed attempt; only a retryable one is tried again.
    const retries: string[] = [];
    everyStream(engine).on('retry', (e) => e.retryable && retries.push(e.error));
    return { errors, retries };
  };

  const turn = async (text: string, opts: { unit?: boolean } = {}) => {
    const stream = opts.unit ? engine!.unitStream(CONN) : engine!.stream({ connOptions: CONN });
    speak(stream, tokens(text));
    return collect(stream, 8000);
  };

  it('a BadJSON without request_id fails only the request it refused: other streams on the socket carry on', async () => {
    // The refused request waits behind one that streams in real time, with another queued after
    // it, so neither arrival order nor the head of the queue tells which request was refused.
    fx = await fixtures.resemble({
      realTimeFactor: 1,
      msPerChar: 5,
      frameBytes: 640,
      fault: (req) => (String(req.payload.data).startsWith('Bravo') ? { kind: 'reject', withRequestId: false } : undefined),
    });
    const codec = new ResembleCodec({
      apiKey: 'test-key',
      voiceUuid: 'voice-1',
      sampleRate: 16000,
      url: `${fx.server.url}/stream`,
      binaryResponse: false,
      connectTimeoutMs: 2000,
      maxInFlight: 4,
    });
    socket = new ProviderSocket(
      await codec.connect(),
      codec,
      { inactivityTimeoutMs: 5000, pingIntervalMs: 60_000, pongTimeoutMs: 60_000 },
      { onIdle: () => {}, onBlocked: () => {}, onClosed: () => {} },
    );
    const alpha = new Recorder();
    const bravo = new Recorder();
    const send = (owner: Recorder, text: string) => {
      const track = codec.newTrack();
      socket!.sendText(owner, { track, text, opensTrack: true, closesTrack: true }, { awaitingInput: false });
      return track;
    };
    const a1 = send(alpha, 'Alpha speaks first, for a while.');
    const b1 = send(bravo, 'Bravo is refused.');
    const a2 = send(alpha, 'Alpha again.');
    await withTimeout(
      (async () => {
        while (!(alpha.ended(a1) && alpha.ended(a2) && bravo.ended(b1))) await sleep(5);
      })(),
      4000,
      'every request to end (well before the 5 s watchdog)',
    );
    expect(alpha.failures).toEqual([]);
    expect(alpha.events.filter((e) => e.type === 'end').map((e) => e.track)).toEqual([a1, a2]);
    expect(bravo.failures).toEqual([]);
    const refused = bravo.events.filter((e) => e.type === 'error');
    expect(refused.map((e) => e.track)).toEqual([b1]);
    const error = (refused[0] as { error: APIErrorType }).error;
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('BadJSON');
    expect(socket.isOpen).toBe(true);
    expect(socket.outstanding).toBe(0);
  });

  it('a refused request without request_id does not block the socket: the next turn is served on it', async () => {
    let refused = false;
    const { errors, retries } = await setup(
      { fault: () => (refused ? undefined : ((refused = true), { kind: 'reject', withRequestId: false })) },
      { pool: { inactivityTimeoutMs: 3000 } },
    );
    await engine!.prewarm();
    const first = await turn('This reply is refused as one request.', { unit: true });
    expect(first.frames).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.retryable).toBe(false);
    expect(errors[0]!.message).toContain('BadJSON');
    const second = await turn('Okay, this one is fine.');
    expect(second.endOfStream).toBe(true);
    expect(retries).toEqual([]);
    expect(server().connectionsOpened).toBe(1);
  });

  it('an error without status_code is not taken for a retryable 5xx', async () => {
    let struck = false;
    const { errors, retries } = await setup({
      fault: () => (struck ? undefined : ((struck = true), { kind: 'error-frame', statusCode: null, errorName: 'Mystery' })),
    });
    const out = await turn('Hello there, how can I help?');
    expect(out.frames).toEqual([]);
    expect(retries).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.retryable).toBe(false);
    expect(errors[0]!.message).toContain('Mystery');
    expect(errors[0]!.message).toContain('no status');
  });

  for (const status of [500, null]) {
    it(`a model the voice lacks (DBCacheError, status ${status}) fails at once, naming RESEMBLE_MODEL and the plan`, async () => {
      const { errors, retries } = await setup({ availableModels: ['chatterbox'], modelUnavailableStatus: status }, { model: 'chatterbox-turbo' });
      const out = await turn('Hello there, how can I help?');
      expect(out.frames).toEqual([]);
      expect(retries).toEqual([]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(APIError);
      expect(errors[0]!.retryable).toBe(false);
      expect(errors[0]!.message).toContain('chatterbox-turbo');
      expect(errors[0]!.message).toContain('RESEMBLE_MODEL');
      expect(errors[0]!.message).toMatch(/plan/i);
      expect(server().received).toEqual([]);
    });
  }

  it('a plan without WebSocket streaming (Unauthorized per request) fails at once, naming the key and the plan, and stops reconnecting', async () => {
    const { errors, retries } = await setup({ streamingPlan: false });
    await engine!.prewarm();
    const out = await turn('Hello there, how can I help?');
    expect(out.frames).toEqual([]);
    expect(retries).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.retryable).toBe(false);
    expect(errors[0]!.message).toContain('RESEMBLE_API_KEY');
    expect(errors[0]!.message).toMatch(/plan/i);
    const opened = server().connectionsOpened;
    await sleep(300);
    expect(server().connectionsOpened - opened).toBeLessThanOrEqual(1);
  });
});
