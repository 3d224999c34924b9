/**
 * The offline demo's pipeline: the production session wiring (src/session.ts), TTS factory
 * (src/tts/factory.ts) and turn budget (src/latency/worker.ts, as the worker attaches it) run as a
 * real AgentSession with no room. User turns are typed, the answer's audio is recorded by a
 * real-time speaker stand-in, and each turn's report is the worker's, extended with detail.
 */
import { stt, voice, waitUntilTimeout } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type PlayoutMode, type RecordedSegment, RecordingAudioOutput, segmentAudio } from '../audio/recording-output.js';
import type { AppConfig } from '../config/index.js';
import type { TurnReport } from '../latency/stamps.js';
import type { TurnBudget, TurnBudgetOptions } from '../latency/turn-budget.js';
import { attachJobTurnBudget } from '../latency/worker.js';
import { encodeWav } from '../local-voice/wav.js';
import { createAssistant, createSession } from '../session.js';
import { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { createTTS } from '../tts/factory.js';
import { type RunInfo, formatReport, reportJson } from './report-format.js';
import { type ReplayEntry, ReplayLLM } from './replay-llm.js';
import { SAMPLE_REPLIES, type DemoTurn, replayFallback } from './samples.js';
import { type DemoTurnReport, TurnDetails, demoTurnReport } from './turn-details.js';
import { renderPng, waterfallSvg } from './waterfall.js';
import { runSpokenTurns } from './spoken-turns.js';

export interface DemoRunOptions {
  config: AppConfig;
  turns: readonly DemoTurn[];
  outDir: string;
  replay: { firstTokenDelayMs: number; tokensPerSecond: number };
  /** What the replay model answers. @defaultValue the built-in samples' replies */
  replayReplies?: readonly ReplayEntry[];
  /** Use the replay model even when OPENAI_API_KEY is set. */
  forceReplay?: boolean;
  /** @defaultValue 'realtime' — the speaker plays at 1×, so a barge-in cuts real audio. */
  playout?: PlayoutMode;
  /** Progress lines as the run goes. */
  log?: (line: string) => void;
  /** Upper bound for one turn, from injection to the end of playback. @defaultValue 90000 */
  turnTimeoutMs?: number;
  /** Where the worker's per-turn `turn latency` line goes. @defaultValue not written */
  turnLog?: TurnBudgetOptions['logger'];
  /**
   * Spoken turns (the default of `npm run demo`): each prompt said by the local voice, heard
   * through the real VAD, with a scripted STT final this long after the last voiced sample.
   * Unset: typed turns.
   */
  spoken?: { sttFinalAfterMs: number };
}

export interface DemoRunResult {
  info: RunInfo;
  turns: DemoTurnReport[];
  table: string;
  files: { wavs: string[]; reportJson: string; waterfallSvg: string; waterfallPng: string };
}

export async function runDemo(opts: DemoRunOptions): Promise<DemoRunResult> {
  const log = opts.log ?? (() => {});
  const turnTimeoutMs = opts.turnTimeoutMs ?? 90_000;
  const replayed = opts.forceReplay === true || !opts.config.openai.apiKey;
  const model = replayed
    ? new ReplayLLM({ replies: opts.replayReplies ?? SAMPLE_REPLIES, fallback: replayFallback, ...opts.replay })
    : new openai.LLM({ apiKey: opts.config.openai.apiKey, baseURL: opts.config.openai.baseURL, model: opts.config.openai.llmModel });
  const startedAt = new Date().toISOString();
  const voiceOut = await createTTS(opts.config);
  const cleanups: Array<() => Promise<void> | void> = [() => voiceOut.close(), () => model.aclose()];
  try {
    await withTimeout(voiceOut.prewarm(), 15_000, 'the TTS connection');
    const info: RunInfo = {
      llm: replayed
        ? `replay model (first token ${opts.replay.firstTokenDelayMs} ms, ${opts.replay.tokensPerSecond} tokens/s)`
        : `OpenAI ${opts.config.openai.llmModel}`,
      llmReplayed: replayed,
      tts: describeTts(opts.config),
      sampleRate: voiceOut.tts.sampleRate,
      startedAt,
    };
    log(`LLM: ${info.llm}${replayed ? ' — the answers are REPLAYED from canned text (set OPENAI_API_KEY for a live model)' : ''}`);
    log(`TTS: ${info.tts}, ${info.sampleRate} Hz`);

    if (opts.spoken) {
      const { turns, heard } = await runSpokenTurns({
        config: opts.config,
        model,
        tts: voiceOut.tts,
        turns: opts.turns,
        sttFinalAfterMs: opts.spoken.sttFinalAfterMs,
        log,
        turnLog: opts.turnLog ?? false,
      });
      return await writeOutputs(turns, { ...info, stt: `scripted STT (final ${opts.spoken.sttFinalAfterMs} ms after the last voiced sample)` }, opts.outDir, heard);
    }
    // Typed turns: no microphone, so the STT is never fed. The framework's fake fills the slot.
    const session = createSession({ stt: new stt.testing.FakeSTT(), llm: model, tts: voiceOut.tts });
    const output = new RecordingAudioOutput({ playout: opts.playout ?? 'realtime' });
    session.output.audio = output;
    session.on(voice.AgentSessionEventTypes.Error, (ev: voice.ErrorEvent) => {
      const error = (ev.error as { error?: unknown }).error;
      log(`  ${ev.error.type}${ev.error.recoverable ? ' (recovered)' : ''}: ${error instanceof Error ? error.message : String(error)}`);
    });
    cleanups.unshift(async () => {
      await session.close();
      output.close();
    });
    const agent = createAssistant();
    // The worker's budget, as its job entry attaches it (no metrics endpoint here to push to).
    const config = { ...opts.config, metrics: { ...opts.config.metrics, port: undefined } };
    const job = attachJobTurnBudget(session, { agent, tts: voiceOut.tts, config, logger: opts.turnLog ?? false });
    const details = new TurnDetails(agent, voiceOut.tts instanceof FirstwordTTS ? voiceOut.tts : undefined);
    cleanups.unshift(() => details.dispose(), () => job.close());
    await withTimeout(session.start({ agent }), 15_000, 'the session to start');

    const turns: DemoTurnReport[] = [];
    const heard: RecordedSegment[][] = [];
    for (const turn of opts.turns) {
      log(`\n[${turn.name}] user: ${turn.prompt}`);
      const played = await withTimeout(runTurn(session, output, job.budget, turn), turnTimeoutMs, `turn "${turn.name}"`);
      const report = demoTurnReport(played.report, { ...turn, interruptRequestedAt: played.interruptRequestedAt }, details.eventsFor(played.report), played.segments);
      turns.push(report);
      heard.push(played.segments);
      log(report.firstAudio.contentMs === undefined ? '  no audio was played' : `  first audio after ${Math.round(report.firstAudio.contentMs)} ms`);
    }
    return await writeOutputs(turns, info, opts.outDir, heard);
  } finally {
    for (const cleanup of cleanups) {
      await Promise.resolve(cleanup()).catch(() => {});
    }
  }
}

interface PlayedTurn {
  report: TurnReport;
  segments: RecordedSegment[];
  interruptRequestedAt?: number;
}

/** Types the turn; the budget reports it as a typed turn once its reply is done. */
async function runTurn(session: voice.AgentSession, output: RecordingAudioOutput, budget: TurnBudget, turn: DemoTurn): Promise<PlayedTurn> {
  const before = output.segments.length;
  const started = turn.interruptAfterMs === undefined ? undefined : nextPlaybackStart(output);
  const handle = session.generateReply({ userInput: turn.prompt });
  const reported = nextReport(budget, handle.id);
  let interruptRequestedAt: number | undefined;
  if (started) {
    await started;
    await sleep(turn.interruptAfterMs);
    if (!handle.done()) {
      interruptRequestedAt = performance.now();
      await session.interrupt().await;
    }
  }
  await handle.waitForPlayout();
  return { report: await reported, segments: output.segments.slice(before), interruptRequestedAt };
}

function nextReport(budget: TurnBudget, speechId: string): Promise<TurnReport> {
  return new Promise((resolve) => {
    const onTurn = (report: TurnReport) => {
      if (report.speechId !== speechId) return;
      budget.off('turn', onTurn);
      resolve(report);
    };
    budget.on('turn', onTurn);
  });
}

function nextPlaybackStart(output: RecordingAudioOutput): Promise<void> {
  return new Promise<void>((resolve) => output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => resolve()));
}

async function writeOutputs(turns: DemoTurnReport[], info: RunInfo, outDir: string, segments: RecordedSegment[][]): Promise<DemoRunResult> {
  await mkdir(outDir, { recursive: true });
  // Old turn files from a longer earlier run would read as part of this one.
  for (const file of await readdir(outDir)) {
    if (/^turn-\d+-.*\.wav$/.test(file)) await rm(path.join(outDir, file));
  }
  const wavs: string[] = [];
  for (const [i, turn] of turns.entries()) {
    const heard = segments[i]!.map((s) => segmentAudio(s)).filter((f) => f !== undefined);
    if (heard.length === 0) continue;
    const samples = new Int16Array(heard.reduce((n, f) => n + f.data.length, 0));
    let at = 0;
    for (const frame of heard) {
      samples.set(frame.data, at);
      at += frame.data.length;
    }
    const file = path.join(outDir, `turn-${i + 1}-${turn.name}.wav`);
    await writeFile(file, encodeWav(samples, heard[0]!.sampleRate));
    turn.wav = file;
    wavs.push(file);
  }
  const files = {
    wavs,
    reportJson: path.join(outDir, 'report.json'),
    waterfallSvg: path.join(outDir, 'waterfall.svg'),
    waterfallPng: path.join(outDir, 'waterfall.png'),
  };
  const svg = waterfallSvg(turns, info);
  await writeFile(files.reportJson, reportJson(turns, info));
  await writeFile(files.waterfallSvg, svg);
  await writeFile(files.waterfallPng, renderPng(svg));
  return { info, turns, table: formatReport(turns, info), files };
}

function describeTts(config: AppConfig): string {
  switch (config.tts.provider) {
    case 'local':
      return 'local voice (eSpeak-NG behind a loopback Resemble-protocol server, driven by ResembleTTS)';
    case 'resemble':
      return 'Resemble (WebSocket)';
    case 'cartesia':
      return 'Cartesia (WebSocket)';
    case 'cartesia-livekit':
      return "Cartesia through LiveKit's own plugin";
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return waitUntilTimeout(promise, ms, () => new Error(`Timed out after ${Math.round(ms / 1000)} s waiting for ${what}.`));
}

