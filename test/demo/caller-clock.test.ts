/**
 * The demo's picture and text on a spoken turn: every time on the caller's clock (ms after their
 * last voiced sample), the acknowledgement drawn and kept out of the reply's playback, and one
 * figure of first audio in the waterfall's title, the table and the text.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedSegment } from '../../src/audio/recording-output.js';
import { type RunInfo, formatReport } from '../../src/demo/report-format.js';
import { type DemoTurnReport, type TurnEvents, demoTurnReport, fromEndOfSpeech } from '../../src/demo/turn-details.js';
import { CALLER_AXIS_LABEL, TYPED_AXIS_LABEL, waterfallModel } from '../../src/demo/waterfall-model.js';
import { waterfallSvg } from '../../src/demo/waterfall.js';
import { buildTurnReport } from '../../src/latency/stamps.js';

function segment(index: number, startAt: number, frameCount: number, frameMs = 100): RecordedSegment {
  const frames = Array.from({ length: frameCount }, (_, i) => ({
    playAt: startAt + i * frameMs,
    capturedAt: startAt + i * frameMs,
    offsetMs: i * frameMs,
    durationMs: frameMs,
    frame: undefined as never,
  }));
  const durationMs = frameCount * frameMs;
  return { index, frames, startedAt: startAt, durationMs, playedMs: durationMs, gaps: [], interrupted: false, finished: true };
}

const tts = (events: { sent: [string, number][]; firstBytes: [string, number][]; done: [string, number][] }): TurnEvents['tts'] => ({
  chunks: [{ streamId: 's', segmentId: 'g', index: 0, chunk: { text: 'Sure. Here it is.', start: 0, end: 17, reason: 'sentence' } as never, at: 10_560 }],
  sent: events.sent.map(([track, at]) => ({ streamId: 's', segmentId: 'g', track, text: track, at })),
  firstBytes: events.firstBytes.map(([track, at]) => ({ streamId: 's', segmentId: 'g', track, at })),
  tracksDone: events.done.map(([track, samples]) => ({ streamId: 's', segmentId: 'g', track, chunks: [], startSample: 0, endSample: samples, sampleRate: 1000, at: 0 })),
});

const SPOKEN_INFO: RunInfo = { llm: 'replay', llmReplayed: true, tts: 'local', sampleRate: 22050, startedAt: 'now', stt: 'scripted STT' };
const TYPED_INFO: RunInfo = { llm: 'replay', llmReplayed: true, tts: 'local', sampleRate: 22050, startedAt: 'now' };

/**
 * The caller's last voiced sample at 10 000 ms; Silero put the end of speech 80 ms later. The
 * early acknowledgement plays 330–730 ms after it, before the turn is decided (380 ms); the reply
 * from 1025 ms, two requests back to back.
 */
function spokenTurn(earlier: RecordedSegment[] = []): DemoTurnReport {
  const endOfSpeechAt = 10_000;
  const report = buildTurnReport({
    turn: 1,
    stamps: {
      userStoppedSpeaking: 10_080,
      vadEndOfSpeech: 10_080,
      sttFinal: 10_150,
      llmRequest: 10_160,
      ackPlaybackStarted: 10_330,
      turnDecided: 10_380,
      userTurnCompleted: 10_380,
      llmFirstToken: 10_500,
      ttsFirstChunk: 10_560,
      ttsFirstSend: 10_565,
      ttsFirstByte: 10_700,
      ttsFirstFrame: 10_710,
      playbackStarted: 11_025,
    },
  });
  const ack = segment(0, 10_330, 4);
  const reply = segment(1, 11_025, 10);
  const events: TurnEvents = {
    tokens: [
      { at: 10_500, text: 'Sure. ' },
      { at: 10_525, text: 'Here it is.' },
    ],
    llmDoneAt: 10_550,
    tts: tts({ sent: [['a', 10_565], ['b', 10_600]], firstBytes: [['a', 10_700], ['b', 10_900]], done: [['a', 400], ['b', 600]] }),
  };
  return demoTurnReport(report, { name: 'en', prompt: 'Hello?' }, events, [...earlier, ack, reply], {
    endOfSpeechAt,
    ackSegments: [ack],
    spoken: { sttFinalAfterMs: 150, firstSoundMs: 330, firstContentMs: 1025, falseEnds: 0, fromEndOfSpeech: fromEndOfSpeech(report, endOfSpeechAt) },
  });
}

/** The table's cells of `turn`'s row, by column title. */
function tableRow(table: string, turn: string): Record<string, string> {
  const lines = table.split('\n');
  const header = lines[1]!.trim().split(/\s{2,}/);
  const row = lines.find((l) => l.startsWith(`${turn} `))!.trim().split(/\s{2,}/);
  return Object.fromEntries(header.map((title, i) => [title, row[i]!]));
}

describe('a spoken turn on the caller’s clock', () => {
  it('lays the requests over the reply’s audio only: the acknowledgement before it is not their playback', () => {
    const turn = spokenTurn();
    expect(turn.requests.map((r) => [r.sentMs, r.firstByteMs, r.playStartMs, r.playEndMs])).toEqual([
      [565, 700, 1025, 1425],
      [600, 900, 1425, 2025],
    ]);
    expect(turn.acks).toEqual([{ startMs: 330, endMs: 730 }]);
    expect(turn.audio).toMatchObject({ startMs: 1025, endMs: 2025 });
    expect(turn.llm.tokenMs).toEqual([500, 525]);
  });

  it('has one first audio: the caller’s first sound and first content, not the budget’s figure from Silero’s end', () => {
    const turn = spokenTurn();
    expect(turn.firstContentMs).toBe(945);
    expect(turn.firstAudio).toEqual({ soundMs: 330, contentMs: 1025 });
  });

  it('draws no span before the axis or running backwards, with the acknowledgement and both figures marked', () => {
    const model = waterfallModel([spokenTurn()], SPOKEN_INFO);
    expect(model.axis.label).toBe(CALLER_AXIS_LABEL);
    const [panel] = model.panels;
    const spans = panel!.rows.flatMap((r) => r.spans);
    for (const span of spans) {
      expect(span.toMs).toBeGreaterThanOrEqual(span.fromMs);
      expect(span.fromMs).toBeGreaterThanOrEqual(0);
      expect(span.toMs).toBeLessThanOrEqual(model.axis.endMs);
    }
    expect(panel!.rows.find((r) => r.label === 'acknowledgement')?.spans).toEqual([{ kind: 'ack', fromMs: 330, toMs: 730 }]);
    expect(panel!.rows.find((r) => r.label.startsWith('#1'))?.spans.find((s) => s.kind === 'playing')).toEqual({ kind: 'playing', fromMs: 1025, toMs: 1425 });
    expect(panel!.markers.map((m) => [m.kind, m.atMs])).toEqual([
      ['firstSound', 330],
      ['firstContent', 1025],
    ]);
  });

  it('shows the table’s figures in the waterfall’s title, and the text on the same clock with no negative play time', () => {
    const turn = spokenTurn();
    const table = formatReport([turn], SPOKEN_INFO);
    const row = tableRow(table, 'en');
    expect(row['first sound']).toBe('330');
    expect(row['first content']).toBe('1025');
    const title = waterfallModel([turn], SPOKEN_INFO).panels[0]!.title;
    expect(title).toContain(`first sound ${row['first sound']} ms · first content ${row['first content']} ms`);
    expect(table).toContain('#1 sent 565, first byte 700, played 1025–1425');
    expect(table).toContain('acknowledgement played 330–730');
    expect(table).not.toMatch(/played -/);
    const svg = waterfallSvg([turn], SPOKEN_INFO);
    expect(svg).toContain(CALLER_AXIS_LABEL);
    expect(svg).toContain('acknowledgement');
    expect(svg).not.toContain(TYPED_AXIS_LABEL);
  });
});

describe('a spoken turn heard over an earlier reply', () => {
  it('keeps audio that began before this reply existed out of its requests, and shows it as other audio', () => {
    // The previous reply was still playing from 500 ms before the caller's end of speech.
    const turn = spokenTurn([segment(9, 9_500, 10)]);
    expect(turn.requests.map((r) => [r.playStartMs, r.playEndMs])).toEqual([
      [1025, 1425],
      [1425, 2025],
    ]);
    expect(turn.otherAudio).toEqual([{ startMs: -500, endMs: 500 }]);
    const table = formatReport([turn], SPOKEN_INFO);
    expect(table).toContain('other agent audio played -500–500 (not this reply)');
    expect(table).not.toMatch(/#\d+ .*played -/);
    const model = waterfallModel([turn], SPOKEN_INFO);
    expect(model.axis.startMs).toBeLessThanOrEqual(-500);
    const heard = model.panels[0]!.rows.find((r) => r.label.startsWith('heard'))!;
    expect(heard.spans.filter((s) => s.kind === 'other')).toEqual([{ kind: 'other', fromMs: -500, toMs: 500 }]);
  });
});

describe('a typed turn', () => {
  it('keeps the request’s clock, and its title’s first audio is the table’s', () => {
    const report = buildTurnReport({ turn: 1, stamps: { userStoppedSpeaking: 1000, turnDecided: 1000, llmFirstToken: 1300, playbackStarted: 1600 } });
    const turn = demoTurnReport(report, { name: 'hi', prompt: 'Hi.' }, { tokens: [{ at: 1300, text: 'Hi.' }] }, [segment(0, 1600, 3)]);
    expect(turn.firstAudio).toEqual({ soundMs: 600, contentMs: 600 });
    const model = waterfallModel([turn], TYPED_INFO);
    expect(model.axis.label).toBe(TYPED_AXIS_LABEL);
    expect(tableRow(formatReport([turn], TYPED_INFO), 'hi')['first audio']).toBe('600');
    expect(model.panels[0]!.title).toContain('first audio 600 ms');
  });
});
