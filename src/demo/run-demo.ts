/**
 * The offline demo's pipeline: the production session wiring (src/session.ts) and TTS factory
 * (src/tts/factory.ts) run as a real AgentSession with no room. User turns are injected as text,
 * the answer's audio is recorded by a real-time speaker stand-in, and every stage is stamped.
 */
import { stt, voice } from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type PlayoutMode, RecordingAudioOutput, segmentAudio } from '../audio/recording-output.js';
import type { AppConfig } from '../config/index.js';
import { encodeWav } from '../local-voice/wav.js';
import { createAssistant, createSession } from '../session.js';
import { FirstwordTTS } from '../tts/index.js';
import { createTTS } from '../tts/factory.js';
import { type RunInfo, formatReport, reportJson } from './report-format.js';
import { type ReplayEntry, ReplayLLM } from './replay-llm.js';
import { SAMPLE_REPLIES, type DemoTurn, replayFallback } from './samples.js';
import { TimedLLM } from './timed-llm.js';
import { TurnRecorder, type RawTurn } from './turn-recorder.js';
import { type TurnReport, buildTurnReport } from './turn-report.js';
import { renderPng, waterfallSvg } from './waterfall.js';

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
}

export interface DemoRunResult {
  info: RunInfo;
  turns: TurnReport[];
  table: string;
  files: { wavs: string[]; reportJson: string; waterfallSvg: string; waterfallPng: string };
}

export async function runDemo(opts: DemoRunOptions): Promise<DemoRunResult> {
  const log = opts.log ?? (() => {});
  const turnTimeoutMs = opts.turnTimeoutMs ?? 90_000;
  const replayed = opts.forceReplay === true || !opts.config.openai.apiKey;
  const model = new TimedLLM(
    replayed
      ? new ReplayLLM({ replies: opts.replayReplies ?? SAMPLE_REPLIES, fallback: replayFallback, ...opts.replay })
      : new openai.LLM({ apiKey: opts.config.openai.apiKey, model: opts.config.openai.llmModel }),
  );
  const startedAt = new Date().toISOString();
  const voiceOut = await createTTS(opts.config);
  const cleanups: Array<() => Promise<void> | void> = [() => voiceOut.close(), () => model.aclose()];
  try {
    await withTimeout(voiceOut.tts.prewarm(), 15_000, 'the TTS connection');
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

    // No microphone: turns arrive as text, so the STT is never fed. The framework's fake fills the slot.
    const session = createSession({ stt: new stt.testing.FakeSTT(), llm: model, tts: voiceOut.tts });
    const output = new RecordingAudioOutput({ playout: opts.playout ?? 'realtime', now: () => performance.now() });
    session.output.audio = output;
    session.on(voice.AgentSessionEventTypes.Error, (ev: voice.ErrorEvent) => {
      const error = (ev.error as { error?: unknown }).error;
      log(`  ${ev.error.type}${ev.error.recoverable ? ' (recovered)' : ''}: ${error instanceof Error ? error.message : String(error)}`);
    });
    cleanups.unshift(async () => {
      await session.close();
      output.close();
    });
    await withTimeout(session.start({ agent: createAssistant() }), 15_000, 'the session to start');

    const timeline = voiceOut.tts instanceof FirstwordTTS ? voiceOut.tts.timeline : undefined;
    const recorder = new TurnRecorder({ tts: timeline, llm: model.timeline });
    cleanups.unshift(() => recorder.dispose());
    const raw: RawTurn[] = [];
    for (const turn of opts.turns) {
      log(`\n[${turn.name}] user: ${turn.prompt}`);
      raw.push(await withTimeout(runTurn(session, output, recorder, turn), turnTimeoutMs, `turn "${turn.name}"`));
      const last = raw.at(-1)!;
      const firstAudio = last.segments[0]?.startedAt;
      log(firstAudio === undefined ? '  no audio was played' : `  first audio after ${Math.round(firstAudio - last.injectedAt)} ms`);
    }
    return await writeOutputs(raw, info, opts.outDir);
  } finally {
    for (const cleanup of cleanups) {
      await Promise.resolve(cleanup()).catch(() => {});
    }
  }
}

async function runTurn(
  session: voice.AgentSession,
  output: RecordingAudioOutput,
  recorder: TurnRecorder,
  turn: DemoTurn,
): Promise<RawTurn> {
  const before = output.segments.length;
  const started = turn.interruptAfterMs === undefined ? undefined : nextPlaybackStart(output);
  recorder.begin(turn.name, turn.prompt);
  const handle = session.generateReply({ userInput: turn.prompt });
  if (started) {
    await started;
    await sleep(turn.interruptAfterMs);
    if (!handle.done()) {
      recorder.markInterruptRequested();
      await session.interrupt().await;
    }
  }
  await handle.waitForPlayout();
  return recorder.finish(output.segments.slice(before));
}

function nextPlaybackStart(output: RecordingAudioOutput): Promise<void> {
  return new Promise<void>((resolve) => output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => resolve()));
}

async function writeOutputs(raw: RawTurn[], info: RunInfo, outDir: string): Promise<DemoRunResult> {
  await mkdir(outDir, { recursive: true });
  // Old turn files from a longer earlier run would read as part of this one.
  for (const file of await readdir(outDir)) {
    if (/^turn-\d+-.*\.wav$/.test(file)) await rm(path.join(outDir, file));
  }
  const turns = raw.map(buildTurnReport);
  const wavs: string[] = [];
  for (const [i, turn] of raw.entries()) {
    const heard = turn.segments.map((s) => segmentAudio(s)).filter((f) => f !== undefined);
    if (heard.length === 0) continue;
    const samples = new Int16Array(heard.reduce((n, f) => n + f.data.length, 0));
    let at = 0;
    for (const frame of heard) {
      samples.set(frame.data, at);
      at += frame.data.length;
    }
    const file = path.join(outDir, `turn-${i + 1}-${turn.name}.wav`);
    await writeFile(file, encodeWav(samples, heard[0]!.sampleRate));
    turns[i]!.wav = file;
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
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`Timed out after ${Math.round(ms / 1000)} s waiting for ${what}.`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

