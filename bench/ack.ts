/**
 * Cached acknowledgement benchmark (not a test): how soon after a user turn ends the ack's first
 * frame reaches the audio output, and how the reply follows it.
 *
 * A room-less AgentSession hears scripted user turns (STT turn detection), answers with FakeLLM
 * and our ResembleTTS on a real loopback WebSocket to the protocol server, and "plays" through
 * RecordingAudioOutput at real time. Every turn is measured by the turn budget, the very code the
 * worker logs with.
 *
 *   npm run bench:ack -- [--turns 30] [--mode always|slow|off] [--ttft 300] [--slow-ms 200]
 *                        [--first-byte 80] [--ms-per-char 60] [--json FILE]
 *
 * Figures (p50 / p90 / max over turns):
 * - ack first frame: the turn's decision (the agent's onUserTurnCompleted, where the ack is
 *   queued) → the ack's first frame captured by the output. Target ≤ 50 ms.
 * - gap ack→reply: silence between the end of the ack's playout and the reply's first frame;
 *   over all turns (a reply not ready when the ack ends shows its own lateness) and over the
 *   turns whose reply had its first TTS frame before the ack ended (the handover itself).
 * - reply first audio: turn decision → reply's first frame at the output.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { prepareAcknowledgements } from '../src/ack/index.js';
import { attachAcknowledgement } from '../src/ack/controller.js';
import { RecordingAudioOutput } from '../src/audio/recording-output.js';
import type { TurnReport } from '../src/latency/stamps.js';
import { attachTurnBudget } from '../src/latency/turn-budget.js';
import { createAssistant, createSession } from '../src/session.js';
import { ResembleTTS } from '@firstword/agents-plugin-tts';
import { languageOf } from '@firstword/agents-plugin-tts/chunking';
import { PushAudioInput } from '../test/helpers/audio-input.js';
import { ScriptedSTT } from '../test/helpers/scripted-stt.js';
import { startResembleServer } from '../test/servers/resemble-server.js';
import { percentile } from './playout.js';

const { values: args } = parseArgs({
  options: {
    turns: { type: 'string', default: '30' },
    mode: { type: 'string', default: 'always' },
    ttft: { type: 'string', default: '300' },
    'slow-ms': { type: 'string', default: '200' },
    'first-byte': { type: 'string', default: '80' },
    'ms-per-char': { type: 'string', default: '60' },
    json: { type: 'string' },
  },
});

const turns = Number(args.turns);
const mode = args.mode === 'slow' || args.mode === 'off' ? args.mode : 'always';
const ttftMs = Number(args.ttft);
const slowMs = Number(args['slow-ms']);

const QUESTIONS = [
  { transcript: '서울 날씨 어때요?', reply: '오늘 서울은 맑고 따뜻해요.' },
  { transcript: 'What time is it in Seoul?', reply: 'It is nine in the morning there.' },
];

interface TurnFigures {
  language: string;
  ackFirstFrameMs?: number;
  /** Queued (at once in `always`, at the deadline in `slow`) → first frame at the output. */
  ackFromQueuedMs?: number;
  ackPlaybackMs?: number;
  gapMs?: number;
  /** The gap, for turns whose reply had its first TTS frame before the ack finished playing. */
  readyGapMs?: number;
  replyFirstAudioMs?: number;
  ackPlayed: boolean;
}

function row(name: string, values: number[]): string {
  const f = (n: number) => (Number.isNaN(n) ? '–' : n.toFixed(1)).padStart(7);
  const max = values.length > 0 ? Math.max(...values) : Number.NaN;
  return `${name.padEnd(36)} ${f(percentile(values, 50))} ${f(percentile(values, 90))} ${f(max)}   n=${values.length}`;
}

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: 'error' });
  const server = await startResembleServer({
    firstByteDelayMs: Number(args['first-byte']),
    msPerChar: Number(args['ms-per-char']),
    realTimeFactor: 0.2,
  });
  const engine = new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: server.url, sampleRate: 22050 });
  await engine.prewarm();
  const library = await prepareAcknowledgements(engine);

  const utterances = Array.from({ length: turns }, (_, i) => ({ transcript: QUESTIONS[i % QUESTIONS.length]!.transcript }));
  const session = createSession(
    {
      stt: new ScriptedSTT(utterances),
      llm: new voice.testing.FakeLLM(QUESTIONS.map((q) => ({ input: q.transcript, content: q.reply, ttft: ttftMs }))),
      tts: engine,
    },
  );
  const output = new RecordingAudioOutput({ playout: 'realtime', now: () => performance.now() });
  const microphone = new PushAudioInput();
  session.output.audio = output;
  session.input.audio = microphone;
  const agent = createAssistant();
  if (mode !== 'off') attachAcknowledgement(session, { agent, library, mode, slowMs });
  const budget = attachTurnBudget(session, { agent, tts: engine, logger: false });
  await session.start({ agent });

  const figures: TurnFigures[] = [];
  for (let i = 0; i < turns; i++) {
    const segmentsBefore = output.segments.length;
    const reported = new Promise<TurnReport>((resolve) => budget.once('turn', resolve));
    microphone.pushSilence(20);
    const report = await reported;
    // The report comes when the reply has played out; a pause keeps turns apart.
    await new Promise((r) => setTimeout(r, 50));
    const decided = report.at;
    const segments = output.segments.slice(segmentsBefore);
    const ackPlayed = report.ack?.outcome === 'played';
    const ackSegment = ackPlayed ? segments[0] : undefined;
    const replySegment = ackPlayed ? segments[1] : segments[0];
    const ackFirst = ackSegment?.frames[0];
    const ackEnd = ackSegment?.frames.at(-1);
    const replyFirst = replySegment?.frames[0];
    const ackEndsAt = ackEnd ? ackEnd.playAt + ackEnd.durationMs : undefined;
    const gapMs = ackEndsAt !== undefined && replyFirst ? Math.max(0, replyFirst.playAt - ackEndsAt) : undefined;
    const replyFrameAt = report.stamps.ttsFirstFrame === undefined ? undefined : decided + report.stamps.ttsFirstFrame;
    const replyWasReady = ackEndsAt !== undefined && replyFrameAt !== undefined && replyFrameAt <= ackEndsAt;
    figures.push({
      language: languageOf(QUESTIONS[i % QUESTIONS.length]!.transcript),
      ackPlayed,
      ackFirstFrameMs: ackFirst ? ackFirst.capturedAt - decided : undefined,
      ackFromQueuedMs: ackFirst && report.stamps.ackQueued !== undefined ? ackFirst.capturedAt - (decided + report.stamps.ackQueued) : undefined,
      ackPlaybackMs: report.stages.ack_first_audio,
      gapMs,
      readyGapMs: replyWasReady ? gapMs : undefined,
      replyFirstAudioMs: replyFirst ? replyFirst.playAt - decided : undefined,
    });
  }

  const pick = (key: keyof TurnFigures) => figures.map((f) => f[key]).filter((v): v is number => typeof v === 'number');
  const played = figures.filter((f) => f.ackPlayed).length;
  console.log(
    `ack bench: ${turns} turns, mode ${mode}${mode === 'slow' ? ` (${slowMs} ms)` : ''}, LLM first token ${ttftMs} ms, ` +
      `provider first byte ${args['first-byte']} ms, ${library.size} cached phrases, acks played ${played}/${turns}`,
  );
  console.log(`${'ms after the turn decision'.padEnd(36)}     p50     p90     max`);
  console.log(row('ack first frame at the output', pick('ackFirstFrameMs')));
  console.log(row('ack playback started (budget)', pick('ackPlaybackMs')));
  console.log(row('ack first frame after it was queued', pick('ackFromQueuedMs')));
  console.log(row('gap ack end → reply (all)', pick('gapMs')));
  console.log(row('  … reply ready before the ack end', pick('readyGapMs')));
  console.log(row('reply first audio', pick('replyFirstAudioMs')));

  if (args.json) writeFileSync(args.json, `${JSON.stringify({ mode, ttftMs, slowMs, turns: figures }, null, 2)}\n`);
  await session.close();
  output.close();
  await engine.close();
  await server.close();
}

await main();
