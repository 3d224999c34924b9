/** Shared setup of the Resemble server tests: one server per test, raw clients, cleanup. */
import { afterEach } from 'vitest';
import { synthesizeTaggedPcm16 } from '../audio-tag.js';
import { startResembleServer, type ResembleServer } from '../resemble-server.js';
import { RawClient, withTimeout, type ServerFrame } from './raw-client.js';

export const RATE = 16000;
export const MS_PER_CHAR = 2; // 32 samples = 64 bytes of PCM_16 per character

/** Registers cleanup; `start`/`connect` track what they create so every test ends clean. */
export function resembleFixture() {
  let server: ResembleServer | undefined;
  const clients: RawClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.terminate();
    await server?.close();
    server = undefined;
  });
  return {
    server: (): ResembleServer => {
      if (!server) throw new Error('start() the server first');
      return server;
    },
    async start(options: Parameters<typeof startResembleServer>[0] = {}): Promise<ResembleServer> {
      server = await startResembleServer({ msPerChar: MS_PER_CHAR, frameBytes: 200, ...options });
      return server;
    },
    async connect(opts: Parameters<typeof RawClient.connect>[1] = {}): Promise<RawClient> {
      if (!server) throw new Error('start() the server first');
      const client = await RawClient.connect(server.url, opts);
      clients.push(client);
      return client;
    },
  };
}

/** The recommended real-time payload (docs/providers.md A.3) at 16 kHz. */
export function request(requestId: number | undefined, data: string, extra: Record<string, unknown> = {}) {
  return {
    voice_uuid: 'voice-1',
    data,
    ...(requestId === undefined ? {} : { request_id: requestId }),
    binary_response: false,
    output_format: 'wav',
    sample_rate: RATE,
    precision: 'PCM_16',
    no_audio_header: true,
    ...extra,
  };
}

export const pcm = (text: string) => synthesizeTaggedPcm16(text, RATE, MS_PER_CHAR);

export const jsonFrames = (frames: ServerFrame[]) => frames.flatMap((f) => (f.kind === 'json' ? [f.value] : []));

export const audioFrames = (frames: ServerFrame[], id: number) =>
  jsonFrames(frames).filter((v) => v.type === 'audio' && v.request_id === id);

/** A ping/pong round trip: the server has processed everything sent before it. */
export function roundTrip(client: RawClient): Promise<void> {
  return withTimeout(
    new Promise<void>((resolve) => {
      client.ws.once('pong', () => resolve());
      client.ws.ping();
    }),
    3000,
    'pong',
  );
}
