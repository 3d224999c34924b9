/**
 * The worker's budget reaches the TTS it builds (src/tts/factory.ts): with TTS_LEASE_SOCKET set,
 * as the worker sets it for its job processes, TTS instances built from the configuration share
 * the per-key limit; without it, each is on its own.
 */
import { initializeLogger } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { type CreatedTTS, createTTS } from '../../src/tts/factory.js';
import { type LeaseService, startLeaseService } from '@firstword/agents-plugin-tts/budget';
import { type ResembleServer, startResembleServer } from '../servers/resemble-server.js';
import { testConfig } from '../helpers/config.js';

initializeLogger({ pretty: false, level: 'error' });

describe('createTTS and the connection budget', () => {
  let created: CreatedTTS[] = [];
  let server: ResembleServer | undefined;
  let service: LeaseService | undefined;
  afterEach(async () => {
    await Promise.all(created.map((c) => c.close()));
    created = [];
    await service?.close();
    service = undefined;
    await server?.close();
    server = undefined;
  });

  const build = async (extra: Record<string, string>) => {
    const c = await createTTS(
      testConfig({ TTS_PROVIDER: 'resemble', RESEMBLE_API_KEY: 'test-key', RESEMBLE_VOICE_UUID: 'v', RESEMBLE_BASE_URL: server!.url, ...extra }),
    );
    created.push(c);
    return c;
  };

  it('instances of one worker share the per-key limit; outside a worker they do not', async () => {
    server = await startResembleServer();
    service = await startLeaseService({ limit: 1 });
    const first = await build({ TTS_LEASE_SOCKET: service.path });
    const second = await build({ TTS_LEASE_SOCKET: service.path });
    await first.prewarm();
    await second.prewarm();
    expect([(first.tts as FirstwordTTS).poolStats.open, (second.tts as FirstwordTTS).poolStats.open]).toEqual([1, 0]);
    const alone = await build({});
    await alone.prewarm();
    expect((alone.tts as FirstwordTTS).poolStats.open).toBe(1);
  });
});
