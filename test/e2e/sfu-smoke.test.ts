/**
 * The network works: a real livekit-server inside the run's own namespace carries audio between
 * two rtc-node participants, and headless Chromium on the project's page joins the same way.
 * ICE must pair on the veth addresses; a loopback candidate would mean the setup is not what
 * docs/livekit-stack.md describes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NETWORK } from '../../scripts/stack/layout.js';
import { CALLER_FRAME_MS } from '../../src/audio/caller-frames.js';
import { type E2EStack, requireStack, startStack } from './stack.js';

interface Candidate {
  address: string;
  port: number;
  type: string;
  local: boolean;
}

const VETH_ADDRESSES = NETWORK.addresses.map((cidr) => cidr.split('/')[0]);
const available = requireStack({ chromium: true });
const freshRoom = (name: string) => `${name}-${Date.now().toString(36)}`;

function expectVethOnly(candidates: unknown): void {
  const list = candidates as Candidate[];
  const local = list.filter((c) => c.local);
  const remote = list.filter((c) => !c.local);
  expect(local.some((c) => c.type === 'host' && VETH_ADDRESSES.includes(c.address))).toBe(true);
  expect(remote).toContainEqual(expect.objectContaining({ address: NETWORK.nodeIp, type: 'host' }));
  expect(list.filter((c) => !VETH_ADDRESSES.includes(c.address))).toEqual([]);
}

describe.skipIf(!available)('livekit-server in a network namespace', () => {
  let stack: E2EStack;

  beforeAll(async () => {
    // The network is under test, not the agent: no worker, no OpenAI fake.
    stack = await startStack({ worker: false, openai: false });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  it('carries a tone from one rtc-node participant to another', async () => {
    const room = freshRoom('smoke');
    const [publisher, receiver] = await Promise.all([
      // A subscriber-only participant's join reaches others in the server's 3 s batch, so the
      // publisher may wait that long before it starts.
      stack.client('tone-publisher', ['--room', room, '--identity', 'tone', '--wait-for', 'ear', '--seconds', '3']),
      stack.client('audio-receiver', ['--room', room, '--identity', 'ear', '--from', 'tone', '--frames', '50']),
    ]);

    expect(publisher).toMatchObject({ ok: true, framesSent: 300 });
    expect(receiver).toMatchObject({ ok: true, from: 'tone', energeticFrames: 50 });
    // 0.3 full scale is ~9800 peak, ~6950 RMS; Opus keeps a pure tone close to that.
    expect(receiver.maxRms).toBeGreaterThan(3000);
    expectVethOnly(publisher.candidates);
    expectVethOnly(receiver.candidates);
  }, 60_000);

  it('lets headless Chromium join from the project page, hear a participant and be heard', async () => {
    const room = freshRoom('browser');
    const [chromium, receiver, publisher] = await Promise.all([
      stack.client('chromium-page', ['--room', room, '--identity', 'browser']),
      // Chromium's fake microphone beeps; 20 loud frames prove its audio crossed the SFU.
      stack.client('audio-receiver', ['--room', room, '--identity', 'ear', '--from', 'browser', '--frames', '20']),
      stack.client('tone-publisher', ['--room', room, '--identity', 'tone', '--wait-for', 'browser', '--seconds', '10']),
    ]);

    expect(chromium).toMatchObject({ ok: true, state: 'connected' });
    expect((chromium.inbound as { energy: number }).energy).toBeGreaterThan(0.01);
    expect(chromium.outboundPackets).toBeGreaterThan(50);
    expectVethOnly(chromium.candidates);
    expect(receiver).toMatchObject({ ok: true, from: 'browser', energeticFrames: 20 });
    expect(publisher).toMatchObject({ ok: true });
    // Inbound energy only grows while an element plays the track (docs/livekit-stack.md).
    expect((chromium.energyGrowth as { playing: { energy: number } }).playing.energy).toBeGreaterThan(0);
    console.info(`[test/e2e] Chromium inbound energy growth over 1 s: ${JSON.stringify(chromium.energyGrowth)}`);
  }, 90_000);

  // patches/: @livekit/agents 1.9.0's room input always read 10 ms frames; the worker asks for
  // src/audio/caller-frames.ts's length, which halves the work every frame costs.
  it('reads a caller through the framework’s room input in frames of the length asked for, and 10 ms by default', async () => {
    const room = freshRoom('frames');
    const [asked, byDefault, publisher] = await Promise.all([
      stack.client('room-input-frames', ['--room', room, '--identity', 'asked', '--from', 'tone', '--frame-ms', String(CALLER_FRAME_MS)]),
      stack.client('room-input-frames', ['--room', room, '--identity', 'default', '--from', 'tone']),
      stack.client('tone-publisher', ['--room', room, '--identity', 'tone', '--wait-for', 'asked', '--seconds', '6']),
    ]);

    expect(publisher).toMatchObject({ ok: true });
    expect(asked).toMatchObject({ ok: true, frameMs: { [CALLER_FRAME_MS]: expect.any(Number) } });
    expect(Object.keys(asked.frameMs as object)).toEqual([String(CALLER_FRAME_MS)]);
    expect(byDefault).toMatchObject({ ok: true });
    expect(Object.keys(byDefault.frameMs as object)).toEqual(['10']);
  }, 60_000);
});
