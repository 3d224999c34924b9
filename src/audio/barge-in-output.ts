/**
 * No stale audio after a barge-in, also where the framework pauses instead of stopping.
 *
 * When the caller starts talking over the agent, agents 1.9 first pauses the room's audio output
 * (so a cough can resume the reply), and once the interruption is confirmed it interrupts the
 * reply — but it resumes the paused output before it clears it. The frame that waited at the
 * pause gate then plays: a syllable of the interrupted reply, a second or two after the agent
 * fell silent. Placed in front of the session's audio output, this output clears that speech's
 * audio before passing a resume on, so a confirmed interruption never sounds again.
 *
 * The framework also resumes a paused reply when no final transcript came within its
 * false-interruption timeout: right for a cough, wrong when the caller said words and only the
 * speech-to-text is late (a loaded host). A reply the caller has said words over since it paused
 * is therefore interrupted here instead of resumed, as the final would have done in time.
 */
import { type voice, voice as voiceNs } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';

/** What became of a paused reply, for the log. */
export type BargeInChange =
  | { kind: 'paused'; speechId: string }
  | { kind: 'resumed'; speechId: string }
  | { kind: 'dropped'; speechId: string; reason: 'interrupted' | 'caller_said_words' };

export interface BargeInWatch {
  /** The speech playing now, if any. */
  currentSpeech(): voice.SpeechHandle | undefined;
  /** The caller's words (an interim or final transcript) arrived at or after `since` (epoch ms). */
  callerSpokeSince(since: number): boolean;
  onChange?(change: BargeInChange): void;
}

export class BargeInSafeOutput extends voiceNs.AudioOutput {
  readonly #next: voice.AudioOutput;
  readonly #watch: BargeInWatch;
  /** The speech that was playing when the output was paused, and when. */
  #paused: { speech: voice.SpeechHandle; at: number } | undefined;

  constructor(next: voice.AudioOutput, watch: BargeInWatch) {
    super(next.sampleRate, next, { pause: true });
    this.#next = next;
    this.#watch = watch;
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);
    await this.#next.captureFrame(frame);
  }

  override flush(): void {
    super.flush();
    this.#next.flush();
  }

  override clearBuffer(): void {
    this.#next.clearBuffer();
  }

  override pause(): void {
    const speech = this.#watch.currentSpeech();
    if (speech && this.#paused?.speech !== speech) {
      this.#paused = { speech, at: Date.now() };
      this.#watch.onChange?.({ kind: 'paused', speechId: speech.id });
    }
    super.pause();
  }

  override resume(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    if (paused) this.#settle(paused);
    super.resume();
  }

  #settle({ speech, at }: { speech: voice.SpeechHandle; at: number }): void {
    const report = (change: BargeInChange) => this.#watch.onChange?.(change);
    if (speech.interrupted) {
      this.#next.clearBuffer();
      report({ kind: 'dropped', speechId: speech.id, reason: 'interrupted' });
    } else if (speech.done()) {
      return; // over before the resume: nothing of it is left to play
    } else if (speech.allowInterruptions && this.#watch.callerSpokeSince(at)) {
      speech.interrupt();
      this.#next.clearBuffer();
      report({ kind: 'dropped', speechId: speech.id, reason: 'caller_said_words' });
    } else {
      report({ kind: 'resumed', speechId: speech.id });
    }
  }
}

export interface BargeInLogger {
  info(fields: Record<string, unknown>, msg: string): void;
}

/** The log line of each change (tests and operators read them). */
export const BARGE_IN_MESSAGES: Record<BargeInChange['kind'], string> = {
  paused: 'reply paused: the caller talks over it',
  resumed: 'paused reply resumed: no words came (a false interruption)',
  dropped: 'paused reply dropped: the caller barged in',
};

/** Puts a {@link BargeInSafeOutput} in front of the session's audio output (after `session.start()`). */
export function protectBargeIn(session: voice.AgentSession, logger?: BargeInLogger): void {
  const output = session.output.audio;
  if (!output || output instanceof BargeInSafeOutput) return;
  let lastWordsAt = -Infinity;
  session.on(voiceNs.AgentSessionEventTypes.UserInputTranscribed, (ev: voice.UserInputTranscribedEvent) => {
    if (ev.transcript.trim() !== '') lastWordsAt = Date.now();
  });
  session.output.audio = new BargeInSafeOutput(output, {
    currentSpeech: () => {
      try {
        return session.currentAgent.getActivityOrThrow().currentSpeech;
      } catch {
        return undefined; // between agents (a handoff): nothing is playing
      }
    },
    callerSpokeSince: (since) => lastWordsAt >= since,
    onChange: (change) => {
      const { kind, ...fields } = change;
      logger?.info({ ...fields, atEpochMs: Date.now() }, BARGE_IN_MESSAGES[kind]);
    },
  });
}
