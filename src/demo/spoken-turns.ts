/**
 * The demo's spoken turns: each prompt is said by the local voice and heard by the session as a
 * caller's audio (src/spoken), through the real Silero VAD and the worker's turn taking, with a
 * scripted STT. Each turn is reported on the caller's clock, from the last voiced sample.
 */
import type { llm, tts } from '@livekit/agents';
import { attachAcknowledgement } from '../ack/controller.js';
import { attachEarlyAck } from '../ack/early.js';
import { prepareAcknowledgements } from '../ack/library.js';
import { EARLY_ACK_PHRASES, detectAckLanguage } from '../ack/phrases.js';
import type { RecordedSegment } from '../audio/recording-output.js';
import type { AppConfig } from '../config/index.js';
import type { TurnBudgetOptions } from '../latency/turn-budget.js';
import { attachJobTurnBudget } from '../latency/worker.js';
import { EspeakSynthesizer } from '../local-voice/synthesizer.js';
import { SpokenSession } from '../spoken/spoken-session.js';
import { type RenderedUtterance, renderUtterance } from '../spoken/utterance.js';
import { loadSileroVad } from '../stt/silero-vad.js';
import { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { turnTaking } from '../turn/detection.js';
import { predictTurnComplete } from '../turn/transcript-detector.js';
import type { DemoTurn } from './samples.js';
import { type DemoTurnReport, TurnDetails, demoTurnReport, fromEndOfSpeech } from './turn-details.js';

export interface SpokenDemoOptions {
  config: AppConfig;
  model: llm.LLM;
  tts: tts.TTS;
  turns: readonly DemoTurn[];
  sttFinalAfterMs: number;
  log: (line: string) => void;
  turnLog: TurnBudgetOptions['logger'];
}

export async function runSpokenTurns(opts: SpokenDemoOptions): Promise<{ turns: DemoTurnReport[]; heard: RecordedSegment[][] }> {
  const { config } = opts;
  const clips = await speakPrompts(opts.turns);
  const vad = await loadSileroVad({ minSilenceDuration: config.turn.silenceMs });
  const ackMode = config.ack.mode;
  const library = ackMode === 'off' ? undefined : await prepareAcknowledgements(opts.tts, { phrases: ackMode === 'early' ? EARLY_ACK_PHRASES : {} });
  const metricsOff = { ...config, metrics: { ...config.metrics, port: undefined } };
  const spoken = await SpokenSession.start({
    vad,
    llm: opts.model,
    tts: opts.tts,
    turn: turnTaking(config.turn, {}),
    earlyAck: library && ackMode === 'early' ? { library, predict: predictTurnComplete } : undefined,
    sttFinalAfterMs: opts.sttFinalAfterMs,
    attachBudget: (session, agent) => attachJobTurnBudget(session, { agent, tts: opts.tts, config: metricsOff, logger: opts.turnLog ?? false }).budget,
  });
  if (library && (ackMode === 'always' || ackMode === 'slow')) {
    attachAcknowledgement(spoken.session, { agent: spoken.agent, library, mode: ackMode, slowMs: config.ack.slowMs });
  }
  const details = new TurnDetails(spoken.agent, opts.tts instanceof FirstwordTTS ? opts.tts : undefined);
  const turns: DemoTurnReport[] = [];
  const heard: RecordedSegment[][] = [];
  try {
    for (const [i, turn] of opts.turns.entries()) {
      opts.log(`\n[${turn.name}] caller says: ${turn.prompt}`);
      const result = await spoken.say(clips[i]!, { cutReplyAfterMs: turn.interruptAfterMs });
      if (!result.report) {
        opts.log('  no reply was reported for this turn');
        continue;
      }
      const cut = { ...turn, interruptRequestedAt: result.interruptRequestedAt };
      const report = demoTurnReport(result.report, cut, details.eventsFor(result.report), result.segments, {
        endOfSpeechAt: result.endOfSpeechAt,
        ackSegments: result.ackSegments,
        spoken: {
          sttFinalAfterMs: opts.sttFinalAfterMs,
          firstSoundMs: round(result.firstSoundMs),
          firstContentMs: round(result.firstContentMs),
          falseEnds: result.falseEnds,
          fromEndOfSpeech: fromEndOfSpeech(result.report, result.endOfSpeechAt),
        },
      });
      turns.push(report);
      heard.push(result.segments);
      opts.log(
        `  caller's clock: first sound ${show(report.firstAudio.soundMs)}, first content ${show(report.firstAudio.contentMs)} after the last voiced sample` +
          (result.falseEnds > 0 ? ` — the agent spoke ${result.falseEnds}× while the caller only paused` : ''),
      );
    }
  } finally {
    details.dispose();
    await spoken.close();
  }
  return { turns, heard };
}

async function speakPrompts(turns: readonly DemoTurn[]): Promise<RenderedUtterance[]> {
  const synth = await EspeakSynthesizer.start();
  try {
    const clips: RenderedUtterance[] = [];
    for (const turn of turns) {
      clips.push(await renderUtterance(synth, { language: detectAckLanguage(turn.prompt), pieces: [{ text: turn.prompt }] }));
    }
    return clips;
  } finally {
    await synth.close();
  }
}

const round = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms * 10) / 10);
const show = (ms: number | undefined) => (ms === undefined ? 'none' : `${Math.round(ms)} ms`);

