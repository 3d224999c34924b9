import { initializeLogger, llm } from '@livekit/agents';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DemoUsageError, parseDemoArgs } from '../../src/demo/args.js';
import { ReplayLLM, tokenize } from '../../src/demo/replay-llm.js';
import { SAMPLE_TURNS } from '../../src/demo/samples.js';
import { type TurnEvents, demoTurnReport } from '../../src/demo/turn-details.js';
import { waterfallSvg } from '../../src/demo/waterfall.js';
import { buildTurnReport } from '../../src/latency/stamps.js';
import type { RecordedSegment } from '../../src/audio/recording-output.js';
import { withTimeout } from '../local-voice/ws-client.js';

beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));

describe('parseDemoArgs', () => {
  it('runs the three samples without text, including one barge-in', () => {
    const args = parseDemoArgs([]);
    expect(args.samples).toBe(true);
    expect(args.turns.map((t) => t.name)).toEqual(SAMPLE_TURNS.map((t) => t.name));
    expect(args.turns.filter((t) => t.interruptAfterMs !== undefined)).toHaveLength(1);
  });

  it('turns each text argument into a user turn and reads the options', () => {
    const args = parseDemoArgs(['--first-token-ms', '120', ' 안녕하세요 ', '--tokens-per-second=25', 'Hi.', '--out', 'x']);
    expect(args.turns.map((t) => t.prompt)).toEqual(['안녕하세요', 'Hi.']);
    expect(args).toMatchObject({ samples: false, outDir: 'x', firstTokenDelayMs: 120, tokensPerSecond: 25 });
  });

  it('explains bad arguments instead of guessing', () => {
    for (const argv of [['--nope'], ['   '], ['--tokens-per-second', '0'], ['--first-token-ms', 'soon'], ['--out']]) {
      expect(() => parseDemoArgs(argv)).toThrow(DemoUsageError);
    }
  });
});

describe('ReplayLLM', () => {
  it('cuts replies into tokens that join back to the exact text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('가', '나', 'a', 'b', ' ', ',', '.', '1', '\n', '?', 'é') }), (text) => {
        expect(tokenize(text).join('')).toBe(text);
      }),
    );
    expect(tokenize('서울은 맑아요. It is 23 degrees.').length).toBeGreaterThan(8);
  });

  async function collect(model: llm.LLM, userText: string): Promise<string[]> {
    const chatCtx = new llm.ChatContext();
    chatCtx.addMessage({ role: 'user', content: userText });
    const stream = model.chat({ chatCtx });
    const tokens: string[] = [];
    await withTimeout(
      (async () => {
        for await (const chunk of stream) if (chunk.delta?.content) tokens.push(chunk.delta.content);
      })(),
      5000,
      'the replayed reply',
    );
    return tokens;
  }

  it('streams the reply for a known prompt, matched loosely, and the fallback otherwise', async () => {
    const model = new ReplayLLM({
      replies: [{ prompt: 'How are you?', reply: 'Fine, thanks. And you?' }],
      fallback: (prompt) => `No reply for ${prompt}.`,
      firstTokenDelayMs: 0,
      tokensPerSecond: 1000,
    });
    const known = await collect(model, '  how are   YOU ');
    expect(known.length).toBeGreaterThan(3);
    expect(known.join('')).toBe('Fine, thanks. And you?');
    expect((await collect(model, 'Why?')).join('')).toBe('No reply for Why?.');
  });
});

function segment(frames: { playAt: number; offsetMs: number; durationMs: number }[], extra: Partial<RecordedSegment> = {}): RecordedSegment {
  const durationMs = frames.reduce((a, f) => a + f.durationMs, 0);
  return {
    index: 0,
    frames: frames.map((f) => ({ ...f, capturedAt: f.playAt, frame: undefined as never })),
    startedAt: frames[0]?.playAt,
    durationMs,
    playedMs: durationMs,
    gaps: [],
    interrupted: false,
    finished: true,
    ...extra,
  };
}

/** A typed turn sent at 1000 ms: the budget's report, from its stamps. */
function budgetReport(stamps: Record<string, number>) {
  return buildTurnReport({ turn: 1, speechId: 'speech_1', stamps: { userStoppedSpeaking: 1000, turnDecided: 1000, userTurnCompleted: 1000, ...stamps } });
}

describe('demoTurnReport', () => {
  const chunk = (text: string) => ({ text, start: 0, end: text.length, reason: 'sentence' }) as never;
  const tokens: TurnEvents['tokens'] = [
    { at: 1300, text: 'Hi ' },
    { at: 1320, text: 'there.' },
  ];

  it('extends the budget report and lays requests back to back from their lengths, even when a start offset is misreported', () => {
    const frames = Array.from({ length: 10 }, (_, i) => ({ playAt: 1500 + i * 100, offsetMs: i * 100, durationMs: 100 }));
    const report = budgetReport({ llmFirstToken: 1300, ttsFirstChunk: 1340, ttsFirstSend: 1345, ttsFirstByte: 1400, ttsFirstFrame: 1410, playbackStarted: 1500 });
    const events: TurnEvents = {
      tokens,
      llmDoneAt: 1330,
      tts: {
        chunks: [{ streamId: 's', segmentId: 'g', index: 0, chunk: chunk('Hi there.'), at: 1340 }],
        sent: [
          { streamId: 's', segmentId: 'g', track: 'a', text: 'Hi', at: 1345 },
          { streamId: 's', segmentId: 'g', track: 'b', text: 'there.', at: 1350 },
        ],
        firstBytes: [
          { streamId: 's', segmentId: 'g', track: 'a', at: 1400 },
          { streamId: 's', segmentId: 'g', track: 'b', at: 1450 },
        ],
        // 'b' reports startSample 0 although it follows 'a' (400 ms at 1 kHz).
        tracksDone: [
          { streamId: 's', segmentId: 'g', track: 'a', chunks: [], startSample: 0, endSample: 400, sampleRate: 1000, at: 1900 },
          { streamId: 's', segmentId: 'g', track: 'b', chunks: [], startSample: 0, endSample: 600, sampleRate: 1000, at: 2500 },
        ],
      },
    };
    const demo = demoTurnReport(report, { name: 't', prompt: 'p' }, events, [segment(frames)]);
    expect(demo.stamps).toEqual(report.stamps);
    expect(demo.stamps).toMatchObject({ turnDecided: 0, llmFirstToken: 300, ttsFirstChunk: 340, ttsFirstSend: 345, ttsFirstByte: 400, ttsFirstFrame: 410, playbackStarted: 500 });
    expect(demo.firstContentMs).toBe(500);
    expect(demo.llm).toEqual({ tokenMs: [300, 320], doneMs: 330 });
    expect(demo.requests.map((r) => [r.audioOffsetMs, r.playStartMs, r.playEndMs])).toEqual([
      [[0, 400], 500, 900],
      [[400, 1000], 900, 1500],
    ]);
    expect(demo.reply).toBe('Hi there.');
  });

  it('reports the TTS stamps as unobservable when the TTS has no timeline', () => {
    const report = budgetReport({ llmFirstToken: 1300, playbackStarted: 1700 });
    const demo = demoTurnReport(report, { name: 't', prompt: 'p' }, { tokens }, [segment([{ playAt: 1700, offsetMs: 0, durationMs: 100 }])]);
    expect(demo.unobservable).toEqual(['ttsFirstChunk', 'ttsFirstSend', 'ttsFirstByte', 'ttsFirstFrame']);
    expect(demo.stamps).toEqual({ userStoppedSpeaking: 0, turnDecided: 0, userTurnCompleted: 0, llmFirstToken: 300, playbackStarted: 700 });
    expect(demo.requests).toEqual([]);
  });
});

describe('waterfallSvg', () => {
  it('draws one row per request and summarizes Korean text the chart font cannot show', () => {
    const report = demoTurnReport(
      buildTurnReport({ turn: 1, stamps: { userStoppedSpeaking: 0, turnDecided: 0, llmFirstToken: 300, playbackStarted: 600 } }),
      { name: 'ko', prompt: '안녕?' },
      {
        tokens: [{ at: 300, text: '안녕하세요.' }],
        llmDoneAt: 310,
        tts: {
          chunks: [],
          sent: [{ streamId: 's', segmentId: 'g', track: '1', text: '안녕하세요.', at: 320 }],
          firstBytes: [{ streamId: 's', segmentId: 'g', track: '1', at: 500 }],
          tracksDone: [{ streamId: 's', segmentId: 'g', track: '1', chunks: [], startSample: 0, endSample: 500, sampleRate: 1000, at: 1100 }],
        },
      },
      [segment([{ playAt: 600, offsetMs: 0, durationMs: 500 }])],
    );
    const svg = waterfallSvg([report], { llm: 'replay', llmReplayed: true, tts: 'local', sampleRate: 22050, startedAt: 'now' });
    expect(svg).toContain('#1 (Korean, 6 chars)');
    expect(svg).not.toMatch(/[\uac00-\ud7af]/u);
    expect(svg).toContain('first audio 600 ms');
  });
});
