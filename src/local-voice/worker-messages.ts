// Messages between the main thread and the synthesis worker. Both sides are ours, so these are
// plain types rather than runtime-validated schemas.

export type VoiceLanguage = 'ko' | 'en-us';

export interface WorkerInput {
  /** Module specifier of the eSpeak-NG build (overridable so tests can simulate its absence). */
  espeakModule: string;
}

export interface SynthesizeJob {
  type: 'synthesize';
  jobId: number;
  text: string;
  language: VoiceLanguage;
}

export type WorkerReply =
  | { type: 'ready'; sampleRate: number }
  | { type: 'init-failed'; missing: boolean; message: string }
  | { type: 'audio'; jobId: number; samples: Int16Array }
  | { type: 'done'; jobId: number }
  | { type: 'failed'; jobId: number; message: string };
