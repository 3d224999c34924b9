/**
 * The turn-taking settings (src/config's `turn`) as the session's turn handling: the detector in
 * the framework's slot, the endpointing delays, preemptive generation.
 */
import { type VADEvent, VADEventType, inference, type ipc, log } from '@livekit/agents';
import type { TurnDetectorChoice, TurnSettings } from '../config/index.js';
import type { TurnDetection, TurnTaking } from '../session.js';
import { CombinedTurnDetector } from './combined-detector.js';
import { type AudioTurnModel, DEFAULT_SMART_TURN_MODEL, SmartTurnModel } from './smart-turn.js';
import { ExecutorTurnModel } from './smart-turn-executor.js';
import type { TurnCompletePredictor } from '../ack/early.js';
import { TranscriptTurnDetector, predictTurnComplete } from './transcript-detector.js';
import { DEFAULT_TURN_POLICY } from './turn-decision.js';

/** The session VAD's starts and ends of speech (src/stt/shared-vad.ts `SharedVad.speech`). */
export interface SpeechFeed {
  subscribe(listener: (event: VADEvent) => void): () => void;
}

export interface DetectionContext {
  /** The job's way to the worker's inference process (`ctx.inferenceExecutor`); none offline. */
  inferenceExecutor?: ipc.InferenceExecutor;
  /** Needed by `combined`, which hears the caller's voice through the VAD's segments. */
  speech?: SpeechFeed;
}

/**
 * `audio` is LiveKit's local audio model: it needs the worker's inference executor (a job has
 * one) and its native binding; where either is missing, the turn falls back to the VAD's silence
 * with a log line rather than silently assuming every turn is over. `combined` asks the worker's
 * Smart Turn through that executor (./smart-turn-executor.ts); without one (the offline demo, the
 * benches) it loads the model in this process.
 */
export function createTurnDetection(choice: TurnDetectorChoice, context: DetectionContext, settings?: Pick<TurnSettings, 'minDelayMs' | 'maxDelayMs' | 'audioModelPath'> & Partial<Pick<TurnSettings, 'wordLagMs'>>): TurnDetection {
  switch (choice) {
    case 'combined': {
      if (!context.speech) {
        log().warn('TURN_DETECTOR=combined needs the session VAD\'s speech boundaries, which this session has not: judging the words alone (transcript)');
        return new TranscriptTurnDetector();
      }
      const detector = new CombinedTurnDetector({
        model: context.inferenceExecutor ? Promise.resolve(new ExecutorTurnModel(context.inferenceExecutor)) : smartTurn(settings?.audioModelPath ?? DEFAULT_SMART_TURN_MODEL),
        ...(settings?.wordLagMs !== undefined ? { wordLagMs: settings.wordLagMs } : {}),
        // The endpointing delays are the decision's floor and bound: one setting for each.
        policy: { ...DEFAULT_TURN_POLICY, minSilenceMs: settings?.minDelayMs ?? DEFAULT_TURN_POLICY.minSilenceMs, maxSilenceMs: settings?.maxDelayMs ?? DEFAULT_TURN_POLICY.maxSilenceMs },
      });
      context.speech.subscribe((event) =>
        detector.onSpeechBoundary({ type: event.type === VADEventType.START_OF_SPEECH ? 'start' : 'end', silenceMs: event.silenceDuration, frames: event.frames }),
      );
      return detector;
    }
    case 'off':
      return 'vad';
    case 'transcript':
      return new TranscriptTurnDetector();
    case 'audio': {
      if (!context.inferenceExecutor) {
        log().warn('TURN_DETECTOR=audio needs the worker\'s inference executor, which this process has not: ending turns on silence alone (VAD)');
        return 'vad';
      }
      try {
        // Pinned: in dev mode the framework would pick the cloud model, which a self-hosted worker has not.
        return new inference.TurnDetector({ version: 'v1-mini' });
      } catch (error) {
        log().warn({ error: (error as Error).message }, 'the local audio turn detector cannot load: ending turns on silence alone (VAD)');
        return 'vad';
      }
    }
  }
}

/**
 * Without an inference executor: one Smart Turn session per process, loaded on first use; a
 * missing or broken model is logged once and the decision goes on without the voice.
 */
const smartTurns = new Map<string, Promise<AudioTurnModel | undefined>>();
function smartTurn(modelPath: string): Promise<AudioTurnModel | undefined> {
  let loading = smartTurns.get(modelPath);
  if (!loading) {
    loading = SmartTurnModel.load(modelPath).catch((error: Error) => {
      log().warn({ error: error.message }, 'TURN_DETECTOR=combined: the Smart Turn model cannot load; judging the words and the silence without the voice');
      return undefined;
    });
    smartTurns.set(modelPath, loading);
  }
  return loading;
}

/**
 * What the early acknowledgement asks (src/ack/early.ts): the transcript rules, or with
 * `combined` whether an ack fits the pause on the voice and the words — and then never the
 * silence alone, which says nothing about whether the caller is done.
 */
export function earlyAckJudge(detection: TurnDetection): { predict: TurnCompletePredictor; silenceMayDecide: boolean } {
  if (detection instanceof CombinedTurnDetector) return { predict: (text) => detection.backchannelFits(text), silenceMayDecide: false };
  return { predict: predictTurnComplete, silenceMayDecide: true };
}

export function turnTaking(settings: TurnSettings, context: DetectionContext): TurnTaking {
  return {
    minDelayMs: settings.minDelayMs,
    maxDelayMs: settings.maxDelayMs,
    preemptive: settings.preemptive,
    detection: createTurnDetection(settings.detector, context, settings),
  };
}
