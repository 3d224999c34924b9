import { describe, expect, it } from 'vitest';
import { initializeLogger } from '@livekit/agents';
import { holdGreeting, isCallRoom } from '../../src/sip/greeting-audio.js';
import { CallStartup } from '../../src/sip/startup.js';
import { ToneTTS, toneFrames } from '../helpers/tone-tts.js';

initializeLogger({ pretty: false, level: 'warn' });

describe('isCallRoom', () => {
  it("knows the dispatch rule's rooms by their prefix and the underscore livekit-server adds", () => {
    expect(isCallRoom('call-_+15557654321_vNtAxWbqLCMB', 'call-')).toBe(true);
    expect(isCallRoom('call-room-1', 'call-')).toBe(false);
    expect(isCallRoom('support_+1555_x', 'call-')).toBe(false);
    expect(isCallRoom(undefined, 'call-')).toBe(false);
  });
});

describe('holdGreeting', () => {
  it('holds every frame of the greeting, in order, ready before anyone reads them', async () => {
    const engine = new ToneTTS();
    const held = holdGreeting(engine, 'Hello there.');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(held.firstFrameAt()).toBeDefined();
    const frames = [];
    for await (const frame of held.audio) frames.push(frame);
    const expected = toneFrames('Hello there.');
    const samples = (fs: { samplesPerChannel: number }[]) => fs.reduce((n, f) => n + f.samplesPerChannel, 0);
    expect(samples(frames)).toBe(samples(expected));
    expect(held.text).toBe('Hello there.');
  });

  it('a cancelled greeting ends its stream and leaves no error listener behind', async () => {
    const engine = new ToneTTS();
    const before = engine.listenerCount('error');
    const held = holdGreeting(engine, 'Hello there.');
    held.cancel();
    held.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(engine.listenerCount('error')).toBe(before);
  });
});

describe('CallStartup', () => {
  it('reports each step from the entry, and the room-to-entry time when the room says when it was made', () => {
    const startup = new CallStartup(BigInt(Date.now() - 1000));
    startup.mark('connected');
    const { startup: fields } = startup.fields(startup.entryAt + 300, startup.entryAt + 120, true);
    expect(fields.roomToEntryMs).toBeGreaterThanOrEqual(1000);
    expect(fields.connectedMs).toBeGreaterThanOrEqual(0);
    expect(fields.speakingMs).toBe(300);
    expect(fields.ttsFirstFrameMs).toBe(120);
    expect(fields.greeting).toBe('held');
    expect(new CallStartup(0n).fields(undefined, undefined, false).startup.roomToEntryMs).toBeUndefined();
  });
});
