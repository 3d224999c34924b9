import { initializeLogger, llm } from '@livekit/agents';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { DemoUsageError, parseDemoArgs } from '../../src/demo/args.js';
import { ReplayLLM, tokenize } from '../../src/demo/replay-llm.js';
import { SAMPLE_TURNS } from '../../src/demo/samples.js';
import { TimedLLM } from '../../src/demo/timed-llm.js';
import type { RawTurn } from '../../src/demo/turn-recorder.js';
import { buildTurnReport } from '../../src/demo/turn-report.js';
import { waterfallSvg } from '../../src/demo/waterfall.js';
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

  it('is observed token by token through TimedLLM without changing the stream', async () => {
    const timed = new TimedLLM(new ReplayLLM({ replies: [{ prompt: 'hi', reply: 'Hello to you.' }], firstTokenDelayMs: 0, tokensPerSecond: 1000 }));
    const seen: string[] = [];
    timed.timeline.on('token', ({ text }) => seen.push(text));
    const tokens = await collect(timed, 'hi');
    expect(tokens.join('')).toBe('Hello to you.');
    expect(seen).toEqual(tokens);
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

describe('buildTurnReport', () => {
  const base = (overrides: Partial<RawTurn>): RawTurn => ({
    name: 't',
    prompt: 'p',
    injectedAt: 1000,
    endedAt: 5000,
    llm: { tokens: [{ at: 1300, text: 'Hi ' }, { at: 1320, text: 'there.' }], doneAt: 1330, cancelled: false },
    segments: [],
    ...overrides,
  });
  const chunk = (text: string) => ({ text, start: 0, end: text.length, reason: 'sentence' }) as never;

  it('lays requests back to back from their lengths, even when a start offset is misreported', () => {
    const frames = Array.from({ length: 10 }, (_, i) => ({ playAt: 1500 + i * 100, offsetMs: i * 100, durationMs: 100 }));
    const turn = base({
      segments: [segment(frames)],
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
        firstFrames: [{ streamId: 's', segmentId: 'g', at: 1410 }],
        // 'b' reports startSample 0 although it follows 'a' (400 ms at 1 kHz).
        tracksDone: [
          { streamId: 's', segmentId: 'g', track: 'a', chunks: [], startSample: 0, endSample: 400, sampleRate: 1000, at: 1900 },
          { streamId: 's', segmentId: 'g', track: 'b', chunks: [], startSample: 0, endSample: 600, sampleRate: 1000, at: 2500 },
        ],
        interruptions: [],
      },
    });
    const report = buildTurnReport(turn);
    expect(report.stamps).toEqual({
      userTurn: 0,
      llmFirstToken: 300,
      firstChunk: 340,
      firstSend: 345,
      ttsFirstByte: 400,
      ttsFirstFrame: 410,
      firstAudioPlayed: 500,
    });
    expect(report.requests.map((r) => [r.audioOffsetMs, r.playStartMs, r.playEndMs])).toEqual([
      [[0, 400], 500, 900],
      [[400, 1000], 900, 1500],
    ]);
    expect(report.reply).toBe('Hi there.');
  });

  it('reports the TTS stamps as unobservable when the TTS has no timeline', () => {
    const report = buildTurnReport(base({ segments: [segment([{ playAt: 1700, offsetMs: 0, durationMs: 100 }])] }));
    expect(report.unobservable).toEqual(['firstChunk', 'firstSend', 'ttsFirstByte', 'ttsFirstFrame']);
    expect(report.stamps).toEqual({ userTurn: 0, llmFirstToken: 300, firstAudioPlayed: 700 });
    expect(report.requests).toEqual([]);
  });
});

describe('waterfallSvg', () => {
  it('draws one row per request and summarizes Korean text the chart font cannot show', () => {
    const report = buildTurnReport({
      name: 'ko',
      prompt: '안녕?',
      injectedAt: 0,
      endedAt: 3000,
      llm: { tokens: [{ at: 300, text: '안녕하세요.' }], doneAt: 310, cancelled: false },
      segments: [segment([{ playAt: 600, offsetMs: 0, durationMs: 500 }])],
      tts: {
        chunks: [],
        sent: [{ streamId: 's', segmentId: 'g', track: '1', text: '안녕하세요.', at: 320 }],
        firstBytes: [{ streamId: 's', segmentId: 'g', track: '1', at: 500 }],
        firstFrames: [],
        tracksDone: [{ streamId: 's', segmentId: 'g', track: '1', chunks: [], startSample: 0, endSample: 500, sampleRate: 1000, at: 1100 }],
        interruptions: [],
      },
    });
    const svg = waterfallSvg([report], { llm: 'replay', llmReplayed: true, tts: 'local', sampleRate: 22050, startedAt: 'now' });
    expect(svg).toContain('#1 (Korean, 6 chars)');
    expect(svg).not.toMatch(/[\uac00-\ud7af]/u);
    expect(svg).toContain('first audio 600 ms');
  });
});
