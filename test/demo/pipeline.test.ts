/**
 * The demo's pipeline end to end on the embedded defaults: replay LLM, the local eSpeak voice
 * behind its Resemble-protocol server, ResembleTTS, the shared session wiring and a real-time
 * recording speaker. One plain turn, then one that is cut by a barge-in.
 */
import { initializeLogger } from '@livekit/agents';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type DemoRunResult, runDemo } from '../../src/demo/run-demo.js';
import { type DemoTurnReport as TurnReport, TYPED_TURN_STAMPS } from '../../src/demo/turn-details.js';
import { TURN_LOG_MESSAGE } from '../../src/latency/turn-budget.js';
import { decodeWav } from '../../src/local-voice/wav.js';
import { plausibleSeconds, rms, voicedShare } from '../local-voice/speech-checks.js';

const SHORT = { prompt: 'Say hello.', reply: 'Hello there, nice to meet you.' };
const LONG = {
  prompt: 'Tell me a story.',
  reply:
    'Once upon a time, a small robot lived in a quiet library. Every night it read one book aloud to the empty shelves. ' +
    'One evening, a little girl stayed late and listened to the whole story.',
};

let outDir: string;
let result: DemoRunResult;
/** The worker's per-turn log lines, as its turn budget wrote them during the demo. */
const turnLog: Array<{ fields: Record<string, unknown>; message: string }> = [];

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'warn' });
  outDir = await mkdtemp(path.join(tmpdir(), 'firstword-demo-'));
  result = await runDemo({
    config: loadConfig({}, { mode: 'demo' }),
    turns: [
      { name: 'short', prompt: SHORT.prompt },
      { name: 'cut', prompt: LONG.prompt, interruptAfterMs: 600 },
    ],
    outDir,
    replay: { firstTokenDelayMs: 50, tokensPerSecond: 200 },
    replayReplies: [SHORT, LONG],
    forceReplay: true,
    turnTimeoutMs: 30_000,
    turnLog: { info: (fields: Record<string, unknown>, message: string) => turnLog.push({ fields, message }) } as never,
  });
}, 60_000);

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

function turn(name: string): TurnReport {
  const found = result.turns.find((t) => t.name === name);
  if (!found) throw new Error(`no turn ${name}`);
  return found;
}

async function wavOf(report: TurnReport) {
  expect(report.wav).toBeDefined();
  return decodeWav(await readFile(report.wav!));
}

describe('demo pipeline, one short turn', () => {
  it('says plainly that the reply was replayed, and replays the canned text', () => {
    expect(result.info.llmReplayed).toBe(true);
    expect(result.table).toContain('REPLAYED');
    expect(turn('short').reply).toBe(SHORT.reply);
  });

  it('records speech in the WAV: not silence, and as long as the text needs', async () => {
    const report = turn('short');
    const wav = await wavOf(report);
    expect(wav.sampleRate).toBe(result.info.sampleRate);
    const seconds = wav.samples.length / wav.sampleRate;
    const bounds = plausibleSeconds(SHORT.reply);
    expect(seconds).toBeGreaterThan(bounds.min);
    expect(seconds).toBeLessThan(bounds.max);
    expect(rms(wav.samples)).toBeGreaterThan(500);
    expect(voicedShare(wav.samples, wav.sampleRate)).toBeGreaterThan(0.4);
    expect(seconds * 1000).toBeCloseTo(report.audio.playedMs, -1);
  });

  it('stamps every stage, in pipeline order', () => {
    const report = turn('short');
    expect(report.unobservable).toEqual([]);
    const values = TYPED_TURN_STAMPS.map((name) => report.stamps[name]);
    expect(values.every((v) => v !== undefined)).toBe(true);
    for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
    expect(report.firstContentMs).toBe(report.stamps.playbackStarted);
  });

  it('voices every request once, each sent before its first byte and played back to back', () => {
    const report = turn('short');
    expect(report.requests.map((r) => r.text).join(' ').replace(/\s+/g, ' ')).toBe(SHORT.reply);
    let previousEnd = report.stamps.playbackStarted!;
    for (const request of report.requests) {
      expect(request.firstByteMs!).toBeGreaterThanOrEqual(request.sentMs);
      expect(request.playStartMs!).toBeGreaterThanOrEqual(request.firstByteMs!);
      expect(request.playStartMs!).toBeCloseTo(previousEnd, 0);
      expect(request.playEndMs!).toBeGreaterThan(request.playStartMs!);
      previousEnd = request.playEndMs!;
    }
  });
});

describe('one turn timeline', () => {
  it("builds the demo's report from the worker's turn budget: the same stamps as its turn log line", () => {
    expect(turnLog.map((l) => l.message)).toEqual([TURN_LOG_MESSAGE, TURN_LOG_MESSAGE]);
    for (const [i, line] of turnLog.entries()) {
      const report = result.turns[i]!;
      expect(line.fields.speechId).toBe(report.speechId);
      expect(line.fields.stamps).toEqual(report.stamps);
      expect(line.fields.stages).toEqual(report.stages);
      expect(line.fields.firstContentMs).toBe(report.firstContentMs);
      expect(line.fields.interrupted).toBe(report.interrupted);
    }
    expect(result.turns.map((t) => t.interrupted)).toEqual([false, true]);
  });
});

describe('demo pipeline, barge-in', () => {
  it('stops the answer where the interruption landed and keeps only what was heard', async () => {
    const report = turn('cut');
    expect(report.interrupted).toBe(true);
    expect(report.interruptRequestedMs!).toBeGreaterThan(report.stamps.playbackStarted!);
    expect(report.audio.playedMs).toBeLessThan(report.audio.capturedMs);
    const wav = await wavOf(report);
    expect((wav.samples.length / wav.sampleRate) * 1000).toBeCloseTo(report.audio.playedMs, -1);
    expect(rms(wav.samples)).toBeGreaterThan(500);
    expect(report.requests.some((r) => r.playStartMs === undefined)).toBe(true);
  });

  it('writes the JSON report and a rendered waterfall', async () => {
    const json = JSON.parse(await readFile(result.files.reportJson, 'utf8')) as { turns: TurnReport[] };
    expect(json.turns.map((t) => t.name)).toEqual(['short', 'cut']);
    expect(json.turns[0]!.stamps).toEqual(turn('short').stamps);
    const png = await readFile(result.files.waterfallPng);
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    const svg = await readFile(result.files.waterfallSvg, 'utf8');
    expect(svg).toContain('barge-in');
  });
});
