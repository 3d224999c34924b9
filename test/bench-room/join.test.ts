/**
 * bench:room's join of the caller's turns with the workers' `turn latency` lines, and its split
 * of the caller's wait into first sound and first content. Recorded-looking input: turns as the
 * driver reports them, lines shaped as src/latency/turn-budget.ts logs them.
 */
import { describe, expect, it } from 'vitest';
import { type JoinedTurn, joinProblems, joinTurns, workerSpeechEnd } from '../../bench/room/join.js';
import type { TurnSpec } from '../../bench/room/plan.js';
import { summarize } from '../../bench/room/summary.js';
import type { TurnResult } from '../../bench/room/turn.js';

const T0 = 1_780_000_000_000;

function spec(id: number, strategy: TurnSpec['strategy'], kind: TurnSpec['kind'] = 'turn'): TurnSpec {
  return { id, strategy, kind, scenario: 'en-short-first', language: 'en', clip: 'en-short-first', transcript: 'hello', msPerChar: 65, pauseBeforeMs: 500 };
}

/**
 * A turn heard by the caller: speech from `start` to `start + 2000`, the acknowledgement (tone
 * 300 Hz, 400 ms) `ackAfter` ms after the last voiced sample, the reply (tones 425 and 450 Hz)
 * `contentAfter` ms after it.
 */
function turn(id: number, strategy: TurnSpec['strategy'], start: number, ackAfter: number | undefined, contentAfter: number): TurnResult {
  const lastVoicedAt = start + 2000;
  const firstSound = ackAfter ?? contentAfter;
  const heard = [
    ...(ackAfter === undefined ? [] : [{ at: lastVoicedAt + ackAfter, ms: 400, hz: 300 }]),
    { at: lastVoicedAt + contentAfter, ms: 700, hz: 425 },
    { at: lastVoicedAt + contentAfter + 700, ms: 900, hz: 450 },
  ];
  return {
    id,
    strategy,
    kind: 'turn',
    scenario: 'en-short-first',
    language: 'en',
    ok: true,
    firstVoicedAt: start,
    lastVoicedAt,
    firstAudioAt: lastVoicedAt + firstSound,
    callerWaitMs: firstSound,
    heard,
    replyTones: [425, 450],
    micStalls: 0,
    maxReadGapMs: 12,
  };
}

/**
 * The worker's line for a turn: zero (`turnDecided`) `decidedAfter` ms after the caller's last
 * voiced sample, the voice reaching the agent 60 ms after it left the caller (input leg 60 ms).
 */
function line(lastVoicedAt: number, o: { decidedAfter: number; ackAfter?: number; contentAfter: number; turn?: number }): Record<string, unknown> {
  const zero = lastVoicedAt + o.decidedAfter;
  const rel = (after: number) => after - o.decidedAfter;
  return {
    level: 30,
    time: zero + 3000,
    msg: 'turn latency',
    turn: o.turn ?? 1,
    speechId: `SI_${o.turn ?? 1}`,
    atEpochMs: zero,
    firstContentMs: o.contentAfter - 40,
    firstContentAt: 'playback',
    firstSoundMs: (o.ackAfter ?? o.contentAfter) - 40,
    ackFirstAudioMs: o.ackAfter === undefined ? undefined : o.ackAfter - 40,
    path: { inputMs: 60, outputMs: 30 },
    stamps: {
      callerVoiceArrived: rel(60),
      userStoppedSpeaking: rel(250),
      vadEndOfSpeech: rel(250),
      sttFinal: rel(400),
      turnDecided: 0,
      llmRequest: rel(420),
      llmFirstToken: rel(720),
      ttsFirstChunk: rel(780),
      ttsFirstByte: rel(900),
      ttsFirstFrame: rel(905),
      playbackStarted: rel(o.contentAfter - 70),
      ...(o.ackAfter === undefined ? {} : { ackQueued: rel(o.ackAfter - 90), ackPlaybackStarted: rel(o.ackAfter - 70) }),
    },
    ack: o.ackAfter === undefined ? { outcome: 'skipped', reason: 'reply_ready' } : { outcome: 'played', phraseId: 'en-early-0', language: 'en', durationMs: 400 },
    livekit: { endOfUtteranceDelayMs: 700, transcriptionDelayMs: 400, llmTtftMs: 300, ttsTtfbMs: 120 },
    interrupted: false,
  };
}

describe('bench:room join', () => {
  it("joins a turn whose early acknowledgement reached the caller before the worker decided the turn (the line's zero is after the caller's first sound)", () => {
    const t = turn(1, 'firstword', T0, 320, 1100);
    // Decided 700 ms after the last voiced sample; the ack was heard at 320 ms.
    const l = line(t.lastVoicedAt!, { decidedAfter: 700, ackAfter: 320, contentAfter: 1100 });
    expect(l.atEpochMs as number).toBeGreaterThan(t.firstAudioAt!);
    const [joined] = joinTurns([spec(1, 'firstword')], [t], { firstword: [l] });
    expect(joined!.logMiss).toBeUndefined();
    expect(joined!.speechId).toBe('SI_1');
    expect(joined!.stages).toMatchObject({
      userStoppedSpeaking: 250,
      sttFinal: 400,
      turnDecided: 700,
      ackPlaybackStarted: 250,
      llmFirstToken: 720,
      ttsFirstByte: 900,
      playbackStarted: 1030,
      soundReceived: 320,
      received: 1100,
    });
    expect(joined!.firstSoundMs).toBe(320);
    expect(joined!.firstContentMs).toBe(1100);
    expect(joined!.worker).toEqual({ firstSoundMs: 280, firstContentMs: 1060, ack: 'played' });
  });

  it("keys on the worker's end of speech: its voice arrival less the input leg", () => {
    const l = line(T0, { decidedAfter: 700, contentAfter: 1000 });
    expect(workerSpeechEnd(l)).toBe(T0);
    expect(workerSpeechEnd({ atEpochMs: T0, stamps: { turnDecided: 0 } })).toBeUndefined();
  });

  it('takes the line whose end of speech is nearest the last voiced sample when a split utterance made two, and each line once', () => {
    const t = turn(1, 'firstword', T0, 300, 1000);
    const early = line(t.lastVoicedAt! - 1200, { decidedAfter: 700, contentAfter: 1000, turn: 1 });
    const right = line(t.lastVoicedAt!, { decidedAfter: 700, ackAfter: 300, contentAfter: 1000, turn: 2 });
    const [joined] = joinTurns([spec(1, 'firstword')], [t], { firstword: [early, right] });
    expect(joined!.speechId).toBe('SI_2');
    // The next turn cannot take a line already used.
    const next = turn(2, 'firstword', T0 + 1900, 300, 1000);
    const both = joinTurns([spec(1, 'firstword'), spec(2, 'firstword')], [t, next], { firstword: [right] });
    expect(both.map((j) => j.logMiss === undefined)).toEqual([true, false]);
  });

  it("does not take a barge-in's follow-up turn, whose speech ended after the first agent audio", () => {
    const t = turn(1, 'firstword', T0, 300, 1000);
    const followUp = line(t.firstAudioAt! + 2500, { decidedAfter: 700, contentAfter: 1000, turn: 2 });
    const [joined] = joinTurns([spec(1, 'firstword')], [t], { firstword: [followUp] });
    expect(joined!.logMiss).toMatch(/no turn latency line/);
    expect(joined!.stages).toEqual({});
  });

  it('tells first content apart when no acknowledgement played: the first run at a reply tone', () => {
    const t = turn(1, 'livekit-cartesia', T0, undefined, 1300);
    const l = line(t.lastVoicedAt!, { decidedAfter: 700, contentAfter: 1300 });
    const [joined] = joinTurns([spec(1, 'livekit-cartesia')], [t], { 'livekit-cartesia': [l] });
    expect(joined!.firstSoundMs).toBe(1300);
    expect(joined!.firstContentMs).toBe(1300);
    expect(joined!.worker?.ack).toBe('skipped');
  });
});

describe('bench:room fails loudly on an empty join', () => {
  const specs = [spec(0, 'firstword', 'warmup'), spec(1, 'firstword'), spec(2, 'livekit-cartesia'), spec(3, 'firstword'), spec(4, 'livekit-cartesia')];
  const results = [{ ...turn(0, 'firstword', T0, 300, 1000), kind: 'warmup' as const }, turn(1, 'firstword', T0 + 10_000, 300, 1000), turn(2, 'livekit-cartesia', T0 + 20_000, 300, 1400), turn(3, 'firstword', T0 + 30_000, 300, 1000), turn(4, 'livekit-cartesia', T0 + 40_000, 300, 1400)];
  const lineFor = (r: TurnResult, decidedAfter = 700) => line(r.lastVoicedAt!, { decidedAfter, ackAfter: 300, contentAfter: 1000, turn: r.id });

  it('finds nothing wrong when every turn joined', () => {
    const logs = { firstword: [0, 1, 3].map((i) => lineFor(results[i]!)), 'livekit-cartesia': [2, 4].map((i) => lineFor(results[i]!)) };
    expect(joinProblems(joinTurns(specs, results, logs), logs)).toEqual([]);
  });

  it('names a worker that logged no turn line at all', () => {
    const logs = { firstword: [0, 1, 3].map((i) => lineFor(results[i]!)), 'livekit-cartesia': [] };
    const problems = joinProblems(joinTurns(specs, results, logs), logs);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^livekit-cartesia: the worker logged no "turn latency" line/);
  });

  it('names a join that came back mostly empty, with the times on both sides', () => {
    // Lines an hour off: a clock or a key that no longer lines up.
    const logs = {
      firstword: [0, 1, 3].map((i) => lineFor(results[i]!)),
      'livekit-cartesia': [2, 4].map((i) => lineFor({ ...results[i]!, lastVoicedAt: results[i]!.lastVoicedAt! + 3_600_000 })),
    };
    const problems = joinProblems(joinTurns(specs, results, logs), logs);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^livekit-cartesia: 0 of 2 turns joined with a worker line; 2 lines read, 2 with an end of speech/);
  });

  it('does not count the warm-up or turns that produced no caller figure', () => {
    const failed: TurnResult = { ...results[3]!, ok: false, error: 'no agent audio', firstAudioAt: undefined, callerWaitMs: undefined };
    const logs = { firstword: [lineFor(results[1]!)], 'livekit-cartesia': [2, 4].map((i) => lineFor(results[i]!)) };
    const joined = joinTurns(specs, [results[0]!, results[1]!, results[2]!, failed, results[4]!], logs);
    expect(joinProblems(joined, logs)).toEqual([]);
  });
});

describe('bench:room summary of first sound and first content', () => {
  it('reports both figures apart, on the ear and as the worker logged them, with firstword / plugin ratios for each', () => {
    const specs: TurnSpec[] = [];
    const results: TurnResult[] = [];
    const logs: Record<string, Array<Record<string, unknown>>> = { firstword: [], 'livekit-cartesia': [] };
    for (let i = 0; i < 4; i++) {
      for (const [k, strategy, content] of [[0, 'firstword', 1000 + 10 * i], [1, 'livekit-cartesia', 1250 + 10 * i]] as const) {
        const id = 2 * i + k;
        const r = turn(id, strategy, T0 + id * 10_000, 300, content);
        specs.push(spec(id, strategy));
        results.push(r);
        logs[strategy]!.push(line(r.lastVoicedAt!, { decidedAfter: 700, ackAfter: 300, contentAfter: content, turn: id }));
      }
    }
    const joined: JoinedTurn[] = joinTurns(specs, results, logs);
    const s = summarize(joined);
    const all = (name: string) => s.groups.find((g) => g.name === name && g.language === 'all')!;
    expect(all('firstword').firstSound).toEqual({ n: 4, p50Ms: 300, p90Ms: 300 });
    expect(all('firstword').firstContent).toMatchObject({ n: 4, p50Ms: 1010, p90Ms: 1030 });
    expect(all('livekit-cartesia').firstContent).toMatchObject({ n: 4, p50Ms: 1260 });
    expect(all('firstword').workerFirstContent.p50Ms).toBe(970);
    expect(all('firstword').acks).toEqual({ played: 4 });
    // The ear heard each figure 40 ms after the worker put it.
    expect(all('firstword').soundOff).toEqual({ n: 4, p50Ms: 40, p90Ms: 40 });
    expect(all('livekit-cartesia').contentOff).toMatchObject({ n: 4, p50Ms: 40 });
    expect(all('firstword').stages.transport.p50Ms).toBe(70);
    const ratio = s.ratios.find((r) => r.language === 'all')!;
    expect(ratio.firstSound.p50).toBe(1);
    expect(ratio.firstContent.p50).toBeCloseTo(1010 / 1260, 3);
    expect(ratio.workerFirstContent.p50).toBeCloseTo(970 / 1220, 3);
  });
});
