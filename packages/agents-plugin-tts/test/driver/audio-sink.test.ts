import type { tts } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { AudioSink } from '../../src/driver/audio-sink.js';

function wavHeader(sampleRate: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(0xffffffff, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(0xffffffff, 40);
  return h;
}

const pcm = (n: number) => Buffer.from(Int16Array.from({ length: n }, (_, i) => Math.round(Math.sin(i / 4) * 8000)).buffer);

describe('AudioSink', () => {
  it('turns a source`s bytes — a RIFF header, odd cuts, another rate — into whole frames at its rate, nothing lost', () => {
    const sink = new AudioSink({ sampleRate: 16000, frameMs: 20, maxFrameMs: 20, startBufferMs: 0 }, () => {});
    const input = sink.input();
    const bytes = Buffer.concat([wavHeader(22050), pcm(22050)]); // one second at 22.05 kHz
    const frames = [];
    for (let at = 0; at < bytes.length; at += 333) frames.push(...sink.frames(input.push(bytes.subarray(at, at + 333), 22050)));
    frames.push(...sink.frames(input.end(22050)), ...sink.flushFrames());
    expect(frames.slice(0, -1).every((f) => f.samplesPerChannel === 320 && f.sampleRate === 16000)).toBe(true);
    const total = frames.reduce((n, f) => n + f.samplesPerChannel, 0);
    expect(Math.abs(total - 16000)).toBeLessThanOrEqual(1);
    expect(input.droppedBytes).toBe(0);
  });

  it('holds frames in its start buffer until enough audio is in hand, then lets them through', () => {
    const out: tts.SynthesizedAudio[] = [];
    const sink = new AudioSink({ sampleRate: 16000, frameMs: 20, maxFrameMs: 20, startBufferMs: 100 }, (a) => out.push(a));
    const frames = sink.frames(sink.input().push(pcm(16000 * 0.2)));
    frames.slice(0, 4).forEach((frame) => sink.put({ requestId: 'r', segmentId: 's', frame, final: false }));
    expect(out).toHaveLength(0);
    sink.put({ requestId: 'r', segmentId: 's', frame: frames[4]!, final: false });
    expect(out).toHaveLength(5);
    sink.put({ requestId: 'r', segmentId: 's', frame: frames[5]!, final: false });
    expect(out).toHaveLength(6);
    sink.drop();
  });
});
