/**
 * A streaming STT that "hears" a scripted utterance for each audio frame pushed to it, and reports
 * it the way a streaming provider does: start of speech, final transcript, end of speech. (The
 * framework's FakeSTT sends transcripts only, so in STT turn detection its turns never end.)
 */
import {
  type APIConnectOptions,
  DEFAULT_API_CONNECT_OPTIONS,
  asLanguageCode,
  stt,
} from '@livekit/agents';

export interface ScriptedUtterance {
  transcript: string;
  /** @defaultValue '' (unknown) */
  language?: string;
  /**
   * End of speech before the final transcript, as a commit-on-silence model reports (the end is
   * known first, the words follow): the turn waits out the endpointing delay from that end while
   * a preemptive draft runs on the transcript. @defaultValue false
   */
  endBeforeFinal?: boolean;
}

export class ScriptedSTT extends stt.STT {
  label = 'test.ScriptedSTT';
  readonly #pending: ScriptedUtterance[];

  constructor(utterances: ScriptedUtterance[]) {
    super({ streaming: true, interimResults: false });
    this.#pending = [...utterances];
  }

  /** The next utterance to be heard, removed from the script. */
  takeNext(): ScriptedUtterance | undefined {
    return this.#pending.shift();
  }

  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('ScriptedSTT only streams');
  }

  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    return new ScriptedSpeechStream(this, options?.connOptions ?? DEFAULT_API_CONNECT_OPTIONS);
  }
}

class ScriptedSpeechStream extends stt.SpeechStream {
  label = 'test.ScriptedSpeechStream';
  readonly #script: ScriptedSTT;

  constructor(script: ScriptedSTT, connOptions: APIConnectOptions) {
    super(script, undefined, connOptions);
    this.#script = script;
  }

  protected async run(): Promise<void> {
    for await (const item of this.input) {
      if (item === ScriptedSpeechStream.FLUSH_SENTINEL) continue;
      const utterance = this.#script.takeNext();
      if (!utterance) continue;
      const alternative = {
        text: utterance.transcript,
        language: asLanguageCode(utterance.language ?? ''),
        startTime: 0,
        endTime: 0,
        confidence: 1,
      };
      const end = { type: stt.SpeechEventType.END_OF_SPEECH, speechEndTime: Date.now() };
      this.queue.put({ type: stt.SpeechEventType.START_OF_SPEECH });
      if (utterance.endBeforeFinal) this.queue.put(end);
      this.queue.put({ type: stt.SpeechEventType.FINAL_TRANSCRIPT, alternatives: [alternative] });
      if (!utterance.endBeforeFinal) this.queue.put(end);
    }
  }
}
