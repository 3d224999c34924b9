/**
 * `npm run demo`'s default, spoken turns, end to end: the prompt said by the local voice and heard
 * through the real Silero VAD, the early acknowledgement, the reply. What the run writes must
 * agree with itself: the waterfall's title shows the table's first sound and first content, every
 * time is on the caller's clock, and no request plays before the caller stopped speaking.
 */
import { initializeLogger } from '@livekit/agents';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type DemoRunResult, runDemo } from '../../src/demo/run-demo.js';
import { CALLER_AXIS_LABEL, firstAudioHeadline, waterfallModel } from '../../src/demo/waterfall-model.js';

const TURN = { prompt: 'What time do you open tomorrow?', reply: 'We open at nine. See you then.' };

let outDir: string;
let result: DemoRunResult;

beforeAll(async () => {
  initializeLogger({ pretty: false, level: 'warn' });
  outDir = await mkdtemp(path.join(tmpdir(), 'firstword-spoken-demo-'));
  result = await runDemo({
    config: loadConfig({}, { mode: 'demo' }),
    turns: [{ name: 'open', prompt: TURN.prompt }],
    outDir,
    replay: { firstTokenDelayMs: 100, tokensPerSecond: 100 },
    replayReplies: [TURN],
    forceReplay: true,
    turnTimeoutMs: 120_000,
    spoken: { sttFinalAfterMs: 150 },
  });
  // Real-time speech, the VAD's model and the local voice: ~30 s on an idle machine, several
  // times that on a loaded 2-core one.
}, 300_000);

afterAll(async () => {
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

describe('the spoken demo, as written to disk', () => {
  it('answers the turn, with its first sound and first content on the caller’s clock', () => {
    const [turn] = result.turns;
    expect(turn?.reply).toBe(TURN.reply);
    expect(turn!.firstAudio.soundMs).toBeGreaterThan(0);
    expect(turn!.firstAudio.contentMs).toBeGreaterThanOrEqual(turn!.firstAudio.soundMs!);
    expect(turn!.firstAudio).toEqual({ soundMs: turn!.spoken!.firstSoundMs, contentMs: turn!.spoken!.firstContentMs });
  });

  it('plays every request after the caller stopped, from the reply’s first sound, never from the acknowledgement', () => {
    const [turn] = result.turns;
    // The reply as heard starts at first content, not at the acknowledgement before it.
    expect(turn!.audio.startMs).toBeCloseTo(turn!.firstAudio.contentMs!, -1);
    // Requests are known when the turn budget tied the reply to its TTS stream (on a starved
    // machine a preemptive reply can go unattributed, and the report then has no request rows).
    const played = turn!.requests.filter((r) => r.playStartMs !== undefined);
    if (played.length > 0) expect(played[0]!.playStartMs).toBeCloseTo(turn!.firstAudio.contentMs!, -1);
    for (const request of played) {
      expect(request.playStartMs!).toBeGreaterThanOrEqual(request.firstByteMs!);
      expect(request.playEndMs!).toBeGreaterThan(request.playStartMs!);
    }
    expect(result.table).not.toMatch(/played -/);
    if (turn!.ack?.outcome === 'played') {
      expect(turn!.acks).toHaveLength(1);
      expect(turn!.acks[0]!.startMs).toBeCloseTo(turn!.firstAudio.soundMs!, -1);
    }
  });

  it('writes a waterfall whose title carries the table’s figures, on the caller’s clock', async () => {
    const [turn] = result.turns;
    const model = waterfallModel(result.turns, result.info);
    expect(model.axis.clock).toBe('caller');
    for (const span of model.panels[0]!.rows.flatMap((r) => r.spans)) {
      expect(span.toMs).toBeGreaterThanOrEqual(span.fromMs);
      expect(span.fromMs).toBeGreaterThanOrEqual(model.axis.startMs);
    }
    const headline = firstAudioHeadline(turn!, true);
    expect(headline).toBe(`first sound ${Math.round(turn!.firstAudio.soundMs!)} ms · first content ${Math.round(turn!.firstAudio.contentMs!)} ms`);
    const row = result.table.split('\n').find((l) => l.startsWith('open '))!.trim().split(/\s{2,}/);
    expect(row.slice(1, 3)).toEqual([String(Math.round(turn!.firstAudio.soundMs!)), String(Math.round(turn!.firstAudio.contentMs!))]);
    const svg = await readFile(result.files.waterfallSvg, 'utf8');
    expect(svg).toContain(headline);
    expect(svg).toContain(CALLER_AXIS_LABEL);
  });
});
