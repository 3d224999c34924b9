/**
 * A room-less session that hears scripted user turns and answers through our ResembleTTS against
 * the protocol server, with the acknowledgement and the turn budget attached the way the worker
 * attaches them.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { type RecordedSegment, RecordingAudioOutput, segmentAudio } from '../../src/audio/recording-output.js';
import { type AckLibrary, attachAcknowledgement, prepareAcknowledgements } from '../../src/ack/index.js';
import type { AckController } from '../../src/ack/controller.js';
import type { AckMode } from '../../src/config/index.js';
import { type TurnBudget, attachTurnBudget } from '../../src/latency/turn-budget.js';
import { type TurnTaking, createAssistant, createSession } from '../../src/session.js';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { PushAudioInput } from '../helpers/audio-input.js';
import { withTimeout } from '../helpers/async.js';
import { ScriptedSTT, type ScriptedUtterance } from '../helpers/scripted-stt.js';
import { type ProviderFixture, heardTags, resembleFixture } from '../../packages/agents-plugin-tts/test/driver/harness.js';

export const ACK_PHRASES = {
  ko: ['네, 확인해 볼게요.', '잠시만요.'],
  en: ['Sure, one moment.', 'Okay, let me check.'],
};

export interface AckSession {
  fx: ProviderFixture;
  engine: FirstwordTTS;
  library: AckLibrary;
  session: voice.AgentSession;
  agent: voice.Agent;
  output: RecordingAudioOutput;
  microphone: PushAudioInput;
  ack: AckController;
  budget: TurnBudget;
  /** Magnitudes of the cached acks' audio, by phrase id. */
  ackTags: Map<number, string>;
  close(): Promise<void>;
}

export interface AckSessionOptions {
  responses: voice.testing.FakeLLMResponse[];
  utterances: ScriptedUtterance[];
  mode: AckMode;
  slowMs?: number;
  playout?: 'realtime' | 'instant';
  /** Audio per character from the server; the acks' length follows it. @defaultValue 20 */
  msPerChar?: number;
  random?: () => number;
  /** Turn taking as the worker configures it; unset, the framework's defaults. */
  turn?: TurnTaking;
}

export async function startAckSession(opts: AckSessionOptions): Promise<AckSession> {
  initializeLogger({ pretty: false, level: 'warn' });
  const fx = await resembleFixture({ msPerChar: opts.msPerChar ?? 20, firstByteDelayMs: 5 });
  const engine = fx.make();
  await withTimeout(engine.prewarm(), 5_000, 'prewarm');
  const library = await withTimeout(
    prepareAcknowledgements(engine, { phrases: ACK_PHRASES, random: opts.random }),
    10_000,
    'acks synthesized',
  );
  const ackTags = new Map<number, string>();
  for (const ack of library.all()) ackTags.set(Math.abs(ack.frames[0]!.data[0]!), ack.id);

  const microphone = new PushAudioInput();
  const session = createSession({ stt: new ScriptedSTT(opts.utterances), llm: new voice.testing.FakeLLM(opts.responses), tts: engine }, { turn: opts.turn });
  const output = new RecordingAudioOutput({ playout: opts.playout ?? 'realtime' });
  session.output.audio = output;
  session.input.audio = microphone;
  const agent = createAssistant();
  const ack = attachAcknowledgement(session, { agent, library, mode: opts.mode, slowMs: opts.slowMs ?? 600 });
  const budget = attachTurnBudget(session, { agent, tts: engine, logger: false });
  await withTimeout(session.start({ agent }), 5_000, 'session start');

  return {
    fx,
    engine,
    library,
    session,
    agent,
    output,
    microphone,
    ack,
    budget,
    ackTags,
    close: async () => {
      await withTimeout(session.close(), 5_000, 'session close');
      output.close();
      await engine.close();
      await fx.close();
    },
  };
}

/** Phrase ids (for ack audio) or 'reply' for every run of tagged audio the segment played. */
export function heardParts(s: AckSession, segment: RecordedSegment): string[] {
  const audio = segmentAudio(segment);
  if (!audio) return [];
  const parts: string[] = [];
  for (const run of heardTags(audio.data)) {
    const part = s.ackTags.get(run.tag) ?? 'reply';
    if (parts.at(-1) !== part) parts.push(part);
  }
  return parts;
}

/** Resolves once `count` segments have finished playing. */
export function segmentsFinished(output: RecordingAudioOutput, count: number): Promise<readonly RecordedSegment[]> {
  return new Promise((resolve) => {
    const check = () => {
      if (output.segments.filter((s) => s.finished).length < count) return;
      output.off(RecordingAudioOutput.EVENT_SEGMENT_FINISHED, check);
      resolve(output.segments);
    };
    output.on(RecordingAudioOutput.EVENT_SEGMENT_FINISHED, check);
    check();
  });
}

export function assistantMessages(session: voice.AgentSession): string[] {
  return session.history.items
    .filter((i) => i.type === 'message' && i.role === 'assistant')
    .map((i) => (i.type === 'message' ? (i.textContent ?? '') : ''));
}

/** Resolves once the budget has reported `count` turns (a turn is reported when its reply is done). */
export function turnsReported(budget: TurnBudget, count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (budget.reports.length < count) return;
      budget.off('turn', check);
      resolve();
    };
    budget.on('turn', check);
    check();
  });
}
