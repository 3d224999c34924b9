/**
 * The words heard at the end of speech, handed to the framework as a preflight transcript, so the
 * preemptive draft starts from them instead of waiting for the committed final.
 *
 * A live transcription model (gpt-realtime-whisper) sends its words while the caller speaks; the
 * plugin reports them as interim transcripts and the final only after its commit at the VAD's end
 * of speech plus the model's final latency. agents 1.9 starts a preemptive generation on a
 * PREFLIGHT_TRANSCRIPT (voice/audio_recognition.ts, the PREFLIGHT_TRANSCRIPT case) and does not
 * start another when the final equals it (`transcriptChanged` there), and keeps the draft at the
 * commit when the final is equivalent (voice/agent_activity.ts `transcriptsEquivalent`). So: after
 * the end of speech every new interim is passed on as a preflight, and a final that says the
 * same as the last preflight but for case and punctuation is given the preflight's exact text,
 * which keeps the draft rather than starting a second one. The framework itself is not patched.
 */
import { type APIConnectOptions, asLanguageCode, stt } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';

/** Lower case, no punctuation, single spaces: "I need a table." and "i need a table" are the same words. */
export function normalizedWords(text: string): string {
  return text.toLowerCase().replace(/[\p{P}\p{S}]/gu, ' ').replace(/\s+/g, ' ').trim();
}

export interface PreflightCounts {
  /** Preflights sent (each may start a draft). */
  preflights: number;
  /** Finals that said the same as the preflight before them: the draft could be kept. */
  finalsMatched: number;
  /** Finals after a preflight that said something else: the draft is dropped. */
  finalsDiffered: number;
}

export class PreflightSTT extends stt.STT {
  readonly label: string;
  readonly inner: stt.STT;
  readonly counts: PreflightCounts = { preflights: 0, finalsMatched: 0, finalsDiffered: 0 };

  constructor(inner: stt.STT) {
    super({ ...inner.capabilities, streaming: true, interimResults: true });
    this.inner = inner;
    this.label = `firstword.Preflight<${inner.label}>`;
    inner.on('metrics_collected', (metrics) => this.emit('metrics_collected', metrics));
    inner.on('error', (error) => this.emit('error', error));
  }

  override get model(): string {
    return this.inner.model;
  }

  override get provider(): string {
    return this.inner.provider;
  }

  protected _recognize(frame: AudioFrame | AudioFrame[], abortSignal?: AbortSignal): Promise<stt.SpeechEvent> {
    return this.inner.recognize(frame, abortSignal);
  }

  override stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    return new PreflightStream(this, this.inner.stream(options), options?.connOptions);
  }

  override async close(): Promise<void> {
    await this.inner.close();
  }
}

class PreflightStream extends stt.SpeechStream {
  readonly label = 'firstword.PreflightStream';
  readonly #owner: PreflightSTT;
  readonly #inner: stt.SpeechStream;
  /** Between the end of speech and the final: interims become preflights. */
  #afterEnd = false;
  #interim = '';
  #preflight = '';

  constructor(owner: PreflightSTT, inner: stt.SpeechStream, connOptions?: APIConnectOptions) {
    super(owner, undefined, connOptions);
    this.#owner = owner;
    this.#inner = inner;
  }

  /** The inner stream's own metrics are emitted by the inner STT (forwarded above). */
  protected override async monitorMetrics(): Promise<void> {}

  override close(): void {
    super.close();
    this.#inner.close();
  }

  protected async run(): Promise<void> {
    const forward = async () => {
      for await (const item of this.input) {
        if (item === PreflightStream.FLUSH_SENTINEL) this.#inner.flush();
        else this.#inner.pushFrame(item);
      }
      this.#inner.endInput();
    };
    const relay = async () => {
      for await (const event of this.#inner) {
        if (this.output.closed) return;
        for (const out of this.#convert(event)) this.output.put(out);
      }
    };
    await Promise.all([forward().catch(() => {}), relay()]);
  }

  #convert(event: stt.SpeechEvent): stt.SpeechEvent[] {
    const { START_OF_SPEECH, END_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, PREFLIGHT_TRANSCRIPT } = stt.SpeechEventType;
    const text = event.alternatives?.[0]?.text ?? '';
    switch (event.type) {
      case START_OF_SPEECH:
        this.#afterEnd = false;
        return [event];
      case END_OF_SPEECH: {
        this.#afterEnd = true;
        const preflight = this.#preflightOf(this.#interim, event);
        return preflight ? [event, preflight] : [event];
      }
      case INTERIM_TRANSCRIPT: {
        this.#interim = text;
        if (!this.#afterEnd) return [event];
        return [this.#preflightOf(text, event) ?? event];
      }
      case FINAL_TRANSCRIPT: {
        const preflight = this.#preflight;
        this.#interim = '';
        this.#preflight = '';
        if (!preflight) return [event];
        if (normalizedWords(preflight) !== normalizedWords(text)) {
          this.#owner.counts.finalsDiffered++;
          return [event];
        }
        this.#owner.counts.finalsMatched++;
        const [first, ...rest] = event.alternatives ?? [];
        return first ? [{ ...event, alternatives: [{ ...first, text: preflight }, ...rest] }] : [event];
      }
      default:
        return [event];
    }
  }

  /** A preflight of `text` when it is new; undefined when empty or unchanged. */
  #preflightOf(text: string, template: stt.SpeechEvent): stt.SpeechEvent | undefined {
    if (!text.trim() || text === this.#preflight) return undefined;
    this.#preflight = text;
    this.#owner.counts.preflights++;
    const alternative = template.alternatives?.[0] ?? { language: asLanguageCode(''), startTime: 0, endTime: 0, confidence: 1, text };
    return { type: stt.SpeechEventType.PREFLIGHT_TRANSCRIPT, requestId: template.requestId, alternatives: [{ ...alternative, text }] };
  }
}
