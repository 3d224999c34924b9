/** The Cartesia fake as a process (what the real-LiveKit stack runs): `--options`, `/_control/*`, SIGTERM. */
import { describe, expect, it } from 'vitest';
import { AUDIBLE_TONES_HZ } from './audio-tag.js';
import { withTimeout } from '../helpers/async.js';
import { collectExit, spawnTsx } from '../lifecycle/spawn-tsx.js';
import { STRUCTURED_VERSION, RawCartesiaClient, generation } from './cartesia/test-client.js';

const getJson = async (url: string) => (await withTimeout(fetch(url), 5000, `GET ${url}`)).json() as Promise<Record<string, unknown>>;

describe('Cartesia server: CLI entry', () => {
  it('takes --options, reports what it received on /_control/received, what it finished on /_control/finished, and /_control/stats, and exits 0 on SIGTERM', async () => {
    const child = spawnTsx('test/servers/cartesia-main.ts', ['--options', JSON.stringify({ audio: 'audible', msPerChar: 5 })]);
    const exit = collectExit(child, 20_000);
    try {
      const line = await withTimeout(
        new Promise<string>((resolve) => {
          let out = '';
          child.stdout!.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('\n')) resolve(out);
          });
        }),
        15_000,
        'the ready line',
      );
      const ready = JSON.parse(line.trim()) as { url: string; port: number };
      expect(ready).toEqual({ url: `http://127.0.0.1:${ready.port}`, port: ready.port });

      const client = await RawCartesiaClient.connect(ready.url.replace('http', 'ws'), { key: 'test-key', version: STRUCTURED_VERSION });
      try {
        client.send(generation('c1', 'Hello there. ', { continue: false }));
        const chunk = await client.waitForType('chunk', 'c1');
        // Audible, not tagged: a sine (many distinct sample values), not ±tag.
        const samples = new Int16Array(new Uint8Array(Buffer.from(chunk.data as string, 'base64')).buffer.slice(0, 400));
        expect(new Set(samples.map(Math.abs)).size).toBeGreaterThan(10);
        await client.waitForType('done', 'c1');
        client.send({ context_id: 'c1', cancel: true });
        await withTimeout(
          (async () => {
            while (((await getJson(`${ready.url}/_control/stats`)).messages as number) < 2) await new Promise((r) => setTimeout(r, 20));
          })(),
          5000,
          'the cancel to be recorded',
        );
      } finally {
        client.close();
      }

      const received = (await getJson(`${ready.url}/_control/received`)).messages as { connectionId: number; receivedAt: number; message: Record<string, unknown> }[];
      expect(received.map((m) => m.message)).toEqual([
        expect.objectContaining({ context_id: 'c1', transcript: 'Hello there. ', continue: false }),
        { context_id: 'c1', cancel: true },
      ]);
      expect(received.every((m) => m.connectionId === 1 && typeof m.receivedAt === 'number')).toBe(true);
      expect(((await getJson(`${ready.url}/_control/received?since=1`)).messages as unknown[]).length).toBe(1);
      expect(await getJson(`${ready.url}/_control/stats`)).toMatchObject({ connectionsOpened: 1, messages: 2, voiced: 1, finished: 1, httpRequests: 0 });
      expect(await getJson(`${ready.url}/_control/voiced`)).toEqual({ voiced: [{ connectionId: 1, contextId: 'c1', transcript: 'Hello there. ', hz: AUDIBLE_TONES_HZ[0] }] });
      expect(await getJson(`${ready.url}/_control/voiced?since=1`)).toEqual({ voiced: [] });
      // When the context had generated all its audio: before its `done` reached the client.
      const { finished } = (await getJson(`${ready.url}/_control/finished`)) as { finished: { contextId: string; at: number }[] };
      expect(finished).toEqual([{ contextId: 'c1', at: expect.any(Number) }]);
      expect(finished[0]!.at).toBeLessThanOrEqual(received[1]!.receivedAt);
      expect(await getJson(`${ready.url}/_control/finished?since=1`)).toEqual({ finished: [] });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit).toMatchObject({ code: 0, signal: null });
  });
});
