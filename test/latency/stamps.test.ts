import { describe, expect, it } from 'vitest';
import { STAMP_NAMES, type TurnReport, buildTurnReport } from '../../src/latency/stamps.js';
import { toEpoch } from '../../src/latency/clock.js';

/** The report's stamps in pipeline order (absent ones skipped). */
function orderedStamps(report: TurnReport): Array<{ name: string; ms: number }> {
  return STAMP_NAMES.filter((name) => report.stamps[name] !== undefined).map((name) => ({ name, ms: report.stamps[name]! }));
}

const FULL = {
  userStoppedSpeaking: 1000,
  vadEndOfSpeech: 1250,
  sttFinal: 1150,
  turnDecided: 1500,
  userTurnCompleted: 1502,
  llmRequest: 1300,
  llmFirstToken: 1620,
  ttsFirstChunk: 1700,
  ttsFirstSend: 1701,
  ttsFirstByte: 1790,
  ttsFirstFrame: 1791,
  playbackStarted: 1793,
  ackQueued: 1503,
  ackPlaybackStarted: 1510,
};

describe('buildTurnReport', () => {
  it('measures every stage between its two stamps, leads included', () => {
    const report = buildTurnReport({ turn: 3, speechId: 'speech_x', stamps: FULL });
    expect(report.stages).toEqual({
      transcription: 150,
      vad_silence: 250,
      end_of_turn: 500,
      turn_to_llm: -200,
      llm_first_token: 320,
      first_chunk: 80,
      tts_first_byte: 89,
      tts_first_frame: 1,
      playout: 2,
      ack_first_audio: 10,
    });
    expect(report.atEpochMs).toBeCloseTo(toEpoch(FULL.turnDecided!), 0);
    expect(report).toMatchObject({
      turn: 3,
      speechId: 'speech_x',
      firstContentMs: 793,
      firstContentAt: 'playback',
      ackFirstAudioMs: 510,
      firstSoundMs: 510,
      interrupted: false,
      livekit: {},
    });
  });

  it('rebases stamps on the turn decision and keeps the absolute zero', () => {
    const report = buildTurnReport({ turn: 1, stamps: FULL });
    expect(report.at).toBe(1500);
    expect(report.stamps.userStoppedSpeaking).toBe(-500);
    expect(report.stamps.playbackStarted).toBe(293);
    // Room-less: no caller's voice arrival (test/latency/caller-clock.test.ts has it).
    expect(orderedStamps(report).map((s) => s.name)).toEqual(STAMP_NAMES.filter((name) => name !== 'callerVoiceArrived'));
  });

  it('leaves out what was not observed, and falls back to the TTS frame for first audio', () => {
    const report = buildTurnReport({
      turn: 1,
      stamps: { userStoppedSpeaking: 10, userTurnCompleted: 520, llmRequest: 521, ttsFirstFrame: 900.04 },
    });
    expect(report.stages).toEqual({});
    expect(report.at).toBe(520);
    expect(report).toMatchObject({ firstContentMs: 890, firstContentAt: 'tts_frame', firstSoundMs: 890 });
    expect(report.ackFirstAudioMs).toBeUndefined();
    expect(orderedStamps(report).map((s) => s.name)).toEqual(['userStoppedSpeaking', 'userTurnCompleted', 'llmRequest', 'ttsFirstFrame']);
  });

  it('has no time to first audio without the end of user speech', () => {
    const report = buildTurnReport({ turn: 1, stamps: { turnDecided: 5, playbackStarted: 400 } });
    expect(report.firstContentMs).toBeUndefined();
    expect(report.firstSoundMs).toBeUndefined();
    expect(report.firstContentAt).toBe('playback');
  });

  it('counts the ack as what was heard first only when it came first', () => {
    const late = buildTurnReport({ turn: 1, stamps: { ...FULL, ackPlaybackStarted: 1900 } });
    expect(late.firstSoundMs).toBe(793);
    expect(late.ackFirstAudioMs).toBe(900);
  });
});
