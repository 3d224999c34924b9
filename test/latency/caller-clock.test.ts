import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaPathEstimator, OPUS_PACKET_MS } from '../../src/latency/media-path.js';
import { buildTurnReport } from '../../src/latency/stamps.js';
import { AudioFrame } from '@livekit/rtc-node';
import { now } from '../../src/latency/clock.js';
import { VoiceArrivals, followCallerVoice } from '../../src/latency/voice-arrival.js';

/** 20 ms at 16 kHz of a sine at `dbfs` (RMS). */
function frame(dbfs: number): Int16Array {
  const amplitude = 10 ** (dbfs / 20) * Math.SQRT2 * 32768;
  return Int16Array.from({ length: 320 }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * 200 * i) / 16000)));
}

/** One rtc-node stats snapshot, as `getRtcStats()` lists it (totals since the track began). */
function snapshot({ delayS, targetS, emitted, rttS }: { delayS: number; targetS: number; emitted: number; rttS?: number }) {
  return [
    { stats: { case: 'inboundRtp', value: { stream: { kind: 'audio' }, inbound: { jitterBufferDelay: delayS, jitterBufferTargetDelay: targetS, jitterBufferEmittedCount: BigInt(emitted) } } } },
    { stats: { case: 'inboundRtp', value: { stream: { kind: 'video' }, inbound: { jitterBufferDelay: 999, jitterBufferTargetDelay: 999, jitterBufferEmittedCount: 10n } } } },
    { stats: { case: 'candidatePair', value: { candidatePair: { nominated: false, currentRoundTripTime: 0.5 } } } },
    ...(rttS === undefined ? [] : [{ stats: { case: 'candidatePair', value: { candidatePair: { nominated: true, currentRoundTripTime: rttS } } } }]),
  ];
}

describe("the caller's voice reaching the agent", () => {
  it('gives the last voiced arrival before a moment, and none for a turn without voice since the last', () => {
    const arrivals = new VoiceArrivals();
    const feed = (at: number, db: number) => arrivals.frame(frame(db), at);
    feed(100, -20);
    feed(120, -20);
    feed(140, -50); // quiet: not the end of speech
    feed(160, -50);
    feed(500, -20); // after the VAD's decision below: speech again, not this turn's end
    expect(arrivals.lastVoiceEnd(0, 400)).toBe(120);
    expect(arrivals.lastVoiceEnd(0, 600)).toBe(500);
    // Nothing voiced since the previous turn (a typed one): no end of speech to time from.
    expect(arrivals.lastVoiceEnd(130, 400)).toBeUndefined();
  });

  it("settles frames read in one burst after a busy moment back to when they arrived", () => {
    const arrivals = new VoiceArrivals();
    // Voice arrives 20..200 ms (frames 0–9), silence after; the loop is blocked until 500 ms and
    // reads everything that came meanwhile at once, then reads on time.
    for (let i = 0; i < 25; i++) arrivals.frame(frame(i < 10 ? -20 : -60), 500);
    for (let i = 25; i < 40; i++) arrivals.frame(frame(-60), 500 + (i - 24) * 20);
    expect(arrivals.lastVoiceEnd(0, 900)).toBe(200);
    // Without the settling the end of speech would have been 500: after a VAD decision at 450.
    expect(arrivals.lastVoiceEnd(0, 450)).toBe(200);
  });

  it('follows the frames the session hears until closed, voiced or not by their level', () => {
    const listeners = new Set<(f: AudioFrame) => void>();
    const frames = { subscribe: (l: (f: AudioFrame) => void) => (listeners.add(l), () => listeners.delete(l)) };
    const hear = (dbfs: number) => {
      // The session's rate, not the test helper's: the level gate does not depend on it.
      const samples = Int16Array.from({ length: 480 }, (_, i) => Math.round(10 ** (dbfs / 20) * Math.SQRT2 * 32768 * Math.sin((2 * Math.PI * 200 * i) / 24000)));
      for (const l of listeners) l(new AudioFrame(samples, 24000, 1, 480));
    };
    const followed = followCallerVoice(frames);
    hear(-60);
    expect(followed.arrivals.lastVoiceEnd(-Infinity, now())).toBeUndefined();
    hear(-20);
    const quietFrom = now();
    hear(-60);
    const quietTo = now();
    // The quiet frame read right after bounds the voiced one's arrival: 20 ms (480 samples at 24 kHz) earlier.
    const voicedAt = followed.arrivals.lastVoiceEnd(-Infinity, now());
    expect(voicedAt).toBeGreaterThanOrEqual(quietFrom - 20);
    expect(voicedAt).toBeLessThanOrEqual(quietTo - 20);
    followed.close();
    expect(listeners.size).toBe(0);
    hear(-20);
    expect(followed.arrivals.lastVoiceEnd(-Infinity, now() + 1000)).toBe(voicedAt);
  });

  it('finds the same end as a scan of every frame, whatever the levels and the window', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 80 }), fc.nat(1700), fc.nat(1700), (voiced, a, b) => {
        const arrivals = new VoiceArrivals();
        voiced.forEach((v, i) => arrivals.frame(frame(v ? -20 : -60), i * 20));
        const [after, before] = a < b ? [a, b] : [b, a];
        const expected = voiced.map((v, i) => (v ? i * 20 : -1)).filter((t) => t >= 0 && t <= before).at(-1);
        expect(arrivals.lastVoiceEnd(after, before)).toBe(expected !== undefined && expected > after ? expected : undefined);
      }),
    );
  });
});

describe('the legs between caller and agent', () => {
  it('has no estimate before the agent received any audio', () => {
    const path = new MediaPathEstimator();
    expect(path.current()).toBeUndefined();
    path.update([{ stats: { case: 'candidatePair', value: { candidatePair: { nominated: true, currentRoundTripTime: 0.01 } } } }]);
    expect(path.current()).toBeUndefined();
  });

  it("takes the agent's buffer as it held audio since the previous poll into the agent, and its target out to the caller", () => {
    const path = new MediaPathEstimator();
    // 48,000 samples held 0.05 s each on average, aiming at 0.04 s; 10 ms round trip.
    path.update(snapshot({ delayS: 2400, targetS: 1920, emitted: 48_000, rttS: 0.01 }));
    expect(path.current()).toEqual({ inputMs: OPUS_PACKET_MS + 10 + 50, outputMs: OPUS_PACKET_MS + 10 + 40, jitterBufferMs: 50, jitterBufferTargetMs: 40, roundTripMs: 10 });
    // The next 48,000 samples waited 0.2 s each (a loaded machine): the input leg follows at once,
    // not diluted by the call's quiet start; the target did not move.
    path.update(snapshot({ delayS: 2400 + 9600, targetS: 1920 + 1920, emitted: 96_000, rttS: 0.01 }));
    expect(path.current()).toMatchObject({ inputMs: OPUS_PACKET_MS + 10 + 200, outputMs: OPUS_PACKET_MS + 10 + 40 });
    // Nothing emitted since: the last figures stand. A republished track restarts the totals.
    path.update(snapshot({ delayS: 12_000, targetS: 3840, emitted: 96_000 }));
    expect(path.current()).toMatchObject({ jitterBufferMs: 200, roundTripMs: 10 });
    path.update(snapshot({ delayS: 30, targetS: 30, emitted: 1000 }));
    expect(path.current()).toMatchObject({ jitterBufferMs: 30, jitterBufferTargetMs: 30 });
  });
});

describe("the turn report on the caller's clock", () => {
  const stamps = { callerVoiceArrived: 1000, userStoppedSpeaking: 1090, vadEndOfSpeech: 1340, turnDecided: 1500, ackPlaybackStarted: 1510, ttsFirstFrame: 1800, playbackStarted: 1802 };

  it("starts when the caller's voice left them and ends when the agent's reached them", () => {
    const path = { inputMs: 80, outputMs: 70, jitterBufferMs: 60, jitterBufferTargetMs: 50, roundTripMs: 0 };
    const report = buildTurnReport({ turn: 1, stamps, path });
    // Last voice left the caller at 1000 - 80 = 920; the ack reached them at 1510 + 70.
    expect(report.firstSoundMs).toBe(1510 + 70 - 920);
    expect(report.ackFirstAudioMs).toBe(1510 + 70 - 920);
    expect(report.firstContentMs).toBe(1802 + 70 - 920);
    expect(report.path).toEqual(path);
    expect(report.stages.vad_end).toBe(340);
  });

  it("starts at the VAD's end less the input leg when the voice was not seen arriving, and at the request for a typed turn", () => {
    const path = { inputMs: 80, outputMs: 70, jitterBufferMs: 60, jitterBufferTargetMs: 50, roundTripMs: 0 };
    const { callerVoiceArrived: _, ...vadOnly } = stamps;
    expect(buildTurnReport({ turn: 1, stamps: vadOnly, path }).firstSoundMs).toBe(1510 + 70 - (1090 - 80));
    const typed = { userStoppedSpeaking: 1000, turnDecided: 1000, userTurnCompleted: 1000, ttsFirstFrame: 1400, playbackStarted: 1401 };
    expect(buildTurnReport({ turn: 2, stamps: typed, path }).firstContentMs).toBe(1401 + 70 - 1000);
  });

  it("is the agent's own figure from the voice's arrival without a path, and from the VAD's end without either", () => {
    expect(buildTurnReport({ turn: 1, stamps }).firstSoundMs).toBe(510);
    const { callerVoiceArrived: _, ...vadOnly } = stamps;
    const report = buildTurnReport({ turn: 1, stamps: vadOnly });
    expect(report.firstSoundMs).toBe(1510 - 1090);
    expect(report.path).toBeUndefined();
  });
});
