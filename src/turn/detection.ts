/**
 * The turn-taking settings (src/config's `turn`) as the session's turn handling: the detector in
 * the framework's slot, the endpointing delays, preemptive generation.
 */
import { inference, log } from '@livekit/agents';
import type { TurnDetectorChoice, TurnSettings } from '../config/index.js';
import type { TurnDetection, TurnTaking } from '../session.js';
import { TranscriptTurnDetector } from './transcript-detector.js';

/**
 * `audio` is LiveKit's local audio model: it needs the worker's inference executor (a job has
 * one) and its native binding; where either is missing, the turn falls back to the VAD's silence
 * with a log line rather than silently assuming every turn is over.
 */
export function createTurnDetection(choice: TurnDetectorChoice, context: { hasInferenceExecutor: boolean }): TurnDetection {
  switch (choice) {
    case 'off':
      return 'vad';
    case 'transcript':
      return new TranscriptTurnDetector();
    case 'audio': {
      if (!context.hasInferenceExecutor) {
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

export function turnTaking(settings: TurnSettings, context: { hasInferenceExecutor: boolean }): TurnTaking {
  return {
    minDelayMs: settings.minDelayMs,
    maxDelayMs: settings.maxDelayMs,
    preemptive: settings.preemptive,
    detection: createTurnDetection(settings.detector, context),
  };
}
