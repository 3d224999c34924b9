/**
 * The words heard at the end of speech, handed to the framework as a preflight transcript, so the
 * preemptive draft starts from them; and, once they have settled, as the turn's final, so the
 * committed answer does not wait for the model's own final.
 *
 * A live transcription model (gpt-realtime-whisper) sends its words while the caller speaks; the
 * plugin reports them as interim transcripts and the final only after its commit at the VAD's end
 * of speech plus the model's final latency (no published figure; Pipecat measured a p99 of ~1.7 s).
 * agents 1.9 starts a preemptive generation on a PREFLIGHT_TRANSCRIPT (voice/audio_recognition.ts,
 * the PREFLIGHT_TRANSCRIPT case), does not start another when the final equals it
 * (`transcriptChanged` there), keeps the draft at the commit when the final is equivalent
 * (voice/agent_activity.ts `transcriptsEquivalent`), and judges the end of the turn only once a
 * final exists. So:
 * - after the end of speech every new word is passed on as a preflight;
 * - with `earlyFinal`, once no word has come for `quietMs` and `afterEndMs` have passed since the
 *   end of speech (the words trail their audio: by then they cover it), the words become the
 *   final, and the model's own final for that speech is held against them: the same words are
 *   dropped, other words are reported to `onRevision` listeners (src/stt/revision.ts re-answers).
 *   `afterEndMs` is a guess at the model's lag; the stream learns the real one: when words of the
 *   call's recent speech came later after its end, it waits that long (plus `quietMs`) instead;
 * - with `readsFinished`, settled words that do not read as a finished turn ("Can you tell me
 *   about the") are held for more, up to `unfinishedHoldMs` after the end of speech: the framework
 *   holds such a turn open that long anyway, so the hold costs no time, and words the model was
 *   only late with join the final instead of reaching it as a revision. Once a word has come after
 *   the wait ran out, the model is slower than its guess for this speech, and the words count as
 *   settled only after `lateQuietMs` without a new one;
 * - without it, a final that says the same as the last preflight but for case and punctuation is
 *   given the preflight's exact text, which keeps the draft rather than starting a second one.
 *
 * The plugin keeps one running transcript across its items until an item's final clears it, so a
 * caller who speaks again before the last final sees the new words appended to the old ones: each
 * item's own words are rebuilt from what each interim added. The framework itself is not patched.
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
  /** Settled words sent as the final, ahead of the model's. */
  earlyFinals: number;
  /** The model's final then said the same words. */
  earlyConfirmed: number;
  /** The model's final then said other words: reported to the revision listeners. */
  earlyRevised: number;
}

export interface EarlyFinalOptions {
  /** The words are not settled before this long after the VAD's end of speech, ms. */
  afterEndMs: number;
  /** Nor before this long without a new word, ms. */
  quietMs: number;
  /** Whether words read as a finished turn. Unset: settled words are sent whatever they say. */
  readsFinished?: (words: string) => boolean;
  /** How long after the end of speech words that do not read finished may wait for more, ms. */
  unfinishedHoldMs?: number;
  /** The quiet asked once a word has come after the wait ran out, ms. @defaultValue quietMs */
  lateQuietMs?: number;
}

/** The recent speech whose words' lateness the early final's wait is learned from. */
const LATENESS_WINDOW = 8;
/** Past this the model's own final is as near: the learned wait stops growing. */
const MAX_LEARNED_WAIT_MS = 2000;

/** The model's final disagreed with the settled words the turn was committed on. */
export interface TranscriptRevision {
  requestId: string;
  /** What the framework was given as the final. */
  early: string;
  /** What the model finally heard. */
  final: string;
}

export interface PreflightOptions {
  /** Send the settled words as the final; unset: wait for the model's. */
  earlyFinal?: EarlyFinalOptions;
}

export class PreflightSTT extends stt.STT {
  readonly label: string;
  readonly inner: stt.STT;
  readonly options: PreflightOptions;
  readonly counts: PreflightCounts = { preflights: 0, finalsMatched: 0, finalsDiffered: 0, earlyFinals: 0, earlyConfirmed: 0, earlyRevised: 0 };
  readonly #revisionListeners = new Set<(revision: TranscriptRevision) => void>();

  constructor(inner: stt.STT, options: PreflightOptions = {}) {
    super({ ...inner.capabilities, streaming: true, interimResults: true });
    this.inner = inner;
    this.options = options;
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

  /** Called for every model final that disagrees with the early final sent for its speech. */
  onRevision(listener: (revision: TranscriptRevision) => void): () => void {
    this.#revisionListeners.add(listener);
    return () => this.#revisionListeners.delete(listener);
  }

  /** @internal */
  revised(revision: TranscriptRevision): void {
    this.counts.earlyRevised++;
    for (const listener of this.#revisionListeners) listener(revision);
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

interface ItemWords {
  text: string;
  /** Date.now() of its latest word. */
  lastWordAt: number;
  /** Date.now() of the end of speech its early final was sent after. */
  endAt?: number;
  /** The caller spoke again after its early final. */
  resumed?: boolean;
  /** The item's latest event, the shape of the events made from it. */
  template: stt.SpeechEvent;
}

const MAX_OPEN_ITEMS = 8;

class PreflightStream extends stt.SpeechStream {
  readonly label = 'firstword.PreflightStream';
  readonly #owner: PreflightSTT;
  readonly #inner: stt.SpeechStream;
  /** Between the end of speech and the final: new words become preflights. */
  #afterEnd = false;
  /** The plugin's running transcript as last seen. */
  #running = '';
  /** Each item's own words, by request id. */
  readonly #items = new Map<string, ItemWords>();
  #preflight = '';
  /** Early finals sent, by request id, until the model's own final for the item. */
  readonly #early = new Map<string, string>();
  #endAt = 0;
  #lastWordAt = 0;
  #settle: NodeJS.Timeout | undefined;
  /** Since this end of speech, the wait ran out once before the words were sent (held, or a word came after it). */
  #late = false;
  /** How long after its end of speech each recent early-finalised speech's last word came, ms. */
  readonly #lateness: number[] = [];

  constructor(owner: PreflightSTT, inner: stt.SpeechStream, connOptions?: APIConnectOptions) {
    super(owner, undefined, connOptions);
    this.#owner = owner;
    this.#inner = inner;
  }

  /** The inner stream's own metrics are emitted by the inner STT (forwarded above). */
  protected override async monitorMetrics(): Promise<void> {}

  override close(): void {
    clearTimeout(this.#settle);
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
    clearTimeout(this.#settle);
  }

  #convert(event: stt.SpeechEvent): stt.SpeechEvent[] {
    const { START_OF_SPEECH, END_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT } = stt.SpeechEventType;
    switch (event.type) {
      case START_OF_SPEECH:
        this.#afterEnd = false;
        this.#late = false;
        clearTimeout(this.#settle);
        for (const requestId of this.#early.keys()) {
          const item = this.#items.get(requestId);
          if (item) item.resumed = true;
        }
        return [event];
      case END_OF_SPEECH: {
        this.#afterEnd = true;
        this.#late = false;
        this.#endAt = Date.now();
        this.#armSettle();
        const preflight = this.#preflightOf();
        return preflight ? [event, preflight] : [event];
      }
      case INTERIM_TRANSCRIPT: {
        const requestId = this.#heard(event);
        const early = this.#early.get(requestId);
        if (early !== undefined) return this.#afterEarly(requestId, early);
        if (!this.#afterEnd) return [this.#ownWords(event, requestId)];
        this.#lastWordAt = Date.now();
        this.#armSettle();
        return [this.#preflightOf() ?? this.#ownWords(event, requestId)];
      }
      case FINAL_TRANSCRIPT:
        return this.#final(event);
      default:
        return [event];
    }
  }

  /**
   * Words of an item after its early final. Once the caller has spoken again they are the start
   * of that speech, sent to the item before its commit went out: they go on at once, as a final of
   * their own, ahead of the new speech's words. Otherwise they are the model's lag past the wait,
   * and its final will say how they revise the turn.
   */
  #afterEarly(requestId: string, early: string): stt.SpeechEvent[] {
    const item = this.#items.get(requestId);
    if (!item?.resumed) return [];
    const text = item.text.trim();
    const added = text.slice(early.length).trim();
    if (!added) return [];
    this.#early.set(requestId, text);
    return [transcriptEvent(stt.SpeechEventType.FINAL_TRANSCRIPT, added, item.template)];
  }

  /** Adds what this interim added to its item's words; returns the item's request id. */
  #heard(event: stt.SpeechEvent): string {
    const text = event.alternatives?.[0]?.text ?? '';
    const added = text.startsWith(this.#running) ? text.slice(this.#running.length) : text;
    this.#running = text;
    const requestId = event.requestId ?? '';
    const item = this.#items.get(requestId);
    this.#items.set(requestId, { ...item, text: (item?.text ?? '') + added, template: event, lastWordAt: Date.now() });
    // An item whose final never came (a refused commit) is forgotten after a few others.
    if (this.#items.size > MAX_OPEN_ITEMS) this.#items.delete(this.#items.keys().next().value!);
    return requestId;
  }

  /** The interim with its own item's words only, not an earlier item's still in the plugin's running text. */
  #ownWords(event: stt.SpeechEvent, requestId: string): stt.SpeechEvent {
    const own = this.#items.get(requestId)?.text.trimStart() ?? '';
    const text = event.alternatives?.[0]?.text ?? '';
    return own === text ? event : transcriptEvent(event.type, own, event);
  }

  #final(event: stt.SpeechEvent): stt.SpeechEvent[] {
    const text = event.alternatives?.[0]?.text ?? '';
    const requestId = event.requestId ?? '';
    // The plugin clears its running transcript at every final.
    this.#running = '';
    const item = this.#items.get(requestId);
    this.#items.delete(requestId);
    const early = this.#early.get(requestId);
    if (early !== undefined) {
      // Words of the next speech (the caller went on) say nothing of the model's lag.
      if (item?.endAt !== undefined && !item.resumed) this.#learn(Math.max(0, item.lastWordAt - item.endAt));
      this.#early.delete(requestId);
      if (normalizedWords(early) === normalizedWords(text)) this.#owner.counts.earlyConfirmed++;
      else this.#owner.revised({ requestId, early, final: text });
      return [];
    }
    const preflight = this.#preflight;
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

  #armSettle(): void {
    const early = this.#owner.options.earlyFinal;
    if (!early) return;
    clearTimeout(this.#settle);
    const learned = Math.min(MAX_LEARNED_WAIT_MS, Math.max(0, ...this.#lateness) + early.quietMs);
    const quiet = this.#late ? (early.lateQuietMs ?? early.quietMs) : early.quietMs;
    const due = Math.max(this.#endAt + Math.max(early.afterEndMs, learned), this.#lastWordAt + quiet);
    this.#settle = setTimeout(() => this.#settled(), Math.max(0, due - Date.now()));
  }

  /** The wait ran out: the words go as the final, unless they read unfinished and may still wait for more. */
  #settled(): void {
    this.#late = true;
    const early = this.#owner.options.earlyFinal;
    const holdUntil = this.#endAt + (early?.unfinishedHoldMs ?? 0);
    const { text } = this.#pending();
    if (early?.readsFinished && text !== '' && !early.readsFinished(text) && Date.now() < holdUntil) {
      // A new word re-arms the wait; without one, the words go as they are at the bound.
      this.#settle = setTimeout(() => this.#sendEarlyFinal(), holdUntil - Date.now());
      return;
    }
    this.#sendEarlyFinal();
  }

  #learn(latenessMs: number): void {
    this.#lateness.push(latenessMs);
    if (this.#lateness.length > LATENESS_WINDOW) this.#lateness.shift();
  }

  /**
   * The words the framework has no final for yet, oldest item first: an earlier speech whose
   * model final is still on its way (the caller went on before its words settled) comes before
   * the current one, so a final never jumps ahead of words said before it.
   */
  #pending(): { items: [string, ItemWords][]; text: string } {
    const items = [...this.#items.entries()].filter(([id, item]) => !this.#early.has(id) && item.text.trim() !== '');
    return { items, text: items.map(([, item]) => item.text.trim()).join(' ') };
  }

  /** The words not yet final, settled, become the final (one per item, for the model's finals to be held against). */
  #sendEarlyFinal(): void {
    const { items, text } = this.#pending();
    const latest = items.at(-1)?.[1];
    if (!latest || !this.#afterEnd || this.output.closed) return;
    for (const [id, item] of items) {
      this.#early.set(id, item.text.trim());
      item.endAt = this.#endAt;
    }
    this.#preflight = '';
    this.#owner.counts.earlyFinals++;
    this.output.put(transcriptEvent(stt.SpeechEventType.FINAL_TRANSCRIPT, text, latest.template));
  }

  /** A preflight of the words not yet final when they are new; undefined when empty or unchanged. */
  #preflightOf(): stt.SpeechEvent | undefined {
    const { items, text } = this.#pending();
    const latest = items.at(-1)?.[1];
    if (!latest || text === this.#preflight) return undefined;
    this.#preflight = text;
    this.#owner.counts.preflights++;
    return transcriptEvent(stt.SpeechEventType.PREFLIGHT_TRANSCRIPT, text, latest.template);
  }
}

function transcriptEvent(type: stt.SpeechEventType, text: string, template: stt.SpeechEvent): stt.SpeechEvent {
  const alternative = template.alternatives?.[0] ?? { language: asLanguageCode(''), startTime: 0, endTime: 0, confidence: 1, text };
  return { type, requestId: template.requestId, alternatives: [{ ...alternative, text }] };
}
