/**
 * No stale audio after a barge-in, also where the framework pauses instead of stopping.
 *
 * When the caller starts talking over the agent, agents 1.9 first pauses the room's audio output
 * (so a cough can resume the reply), and once the interruption is confirmed it interrupts the
 * reply — but it resumes the paused output before it clears it. The frame that waited at the
 * pause gate then plays: a syllable of the interrupted reply, a second or two after the agent
 * fell silent. Placed in front of the session's audio output, this output clears that speech's
 * audio before passing a resume on, so a confirmed interruption never sounds again.
 */
import { type voice, voice as voiceNs } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';

export class BargeInSafeOutput extends voiceNs.AudioOutput {
  readonly #next: voice.AudioOutput;
  readonly #currentSpeech: () => voice.SpeechHandle | undefined;
  /** The speech that was playing when the output was paused. */
  #paused: voice.SpeechHandle | undefined;

  constructor(next: voice.AudioOutput, currentSpeech: () => voice.SpeechHandle | undefined) {
    super(next.sampleRate, next, { pause: true });
    this.#next = next;
    this.#currentSpeech = currentSpeech;
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
    this.#paused = this.#currentSpeech();
    super.pause();
  }

  override resume(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    if (paused?.interrupted) this.#next.clearBuffer();
    super.resume();
  }
}

/** Puts a {@link BargeInSafeOutput} in front of the session's audio output (after `session.start()`). */
export function protectBargeIn(session: voice.AgentSession): void {
  const output = session.output.audio;
  if (!output || output instanceof BargeInSafeOutput) return;
  session.output.audio = new BargeInSafeOutput(output, () => {
    try {
      return session.currentAgent.getActivityOrThrow().currentSpeech;
    } catch {
      return undefined; // between agents (a handoff): nothing is playing
    }
  });
}
