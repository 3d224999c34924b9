/**
 * Acknowledgements synthesized once (at prewarm, with the session's own TTS and voice) and held
 * as frames, so that playing one costs no provider round trip.
 */
import { log, tts, waitUntilTimeout } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import type { AckAudioStore } from './audio-store.js';
import { ACK_LANGUAGES, type AckLanguage, DEFAULT_ACK_PHRASES } from './phrases.js';
import { FirstwordTTS } from '@firstword/agents-plugin-tts';

export interface CachedAck {
  /** `<language>:<index>`, stable across processes for the same phrase list. */
  readonly id: string;
  readonly language: AckLanguage;
  readonly text: string;
  readonly frames: readonly AudioFrame[];
  readonly durationMs: number;
}

export interface AckLibraryOptions {
  /** Phrases per language; a language left out keeps its defaults, an empty list disables it. */
  phrases: Partial<Record<AckLanguage, readonly string[]>>;
  /** Longest wait for one phrase's audio before it is left out. @defaultValue 10000 */
  timeoutMs: number;
  /** Source of randomness for {@link AckLibrary.pick}, in [0, 1). @defaultValue Math.random */
  random: () => number;
  /**
   * Audio other processes of this worker made with the same voice (`voice`: its provider's
   * configuration name): read instead of synthesized, and what is synthesized is stored there.
   */
  shared?: { store: AckAudioStore; voice: string };
}

const DEFAULT_ACK_LIBRARY_OPTIONS: AckLibraryOptions = {
  phrases: {},
  timeoutMs: 10_000,
  random: Math.random,
};

export class AckLibrary {
  readonly #byLanguage = new Map<AckLanguage, CachedAck[]>();
  readonly #random: () => number;
  /** How many of the phrases were read from the shared store rather than synthesized. */
  readonly fromStore: number;

  constructor(acks: readonly CachedAck[], random: () => number = Math.random, fromStore = 0) {
    this.fromStore = fromStore;
    for (const ack of acks) {
      const list = this.#byLanguage.get(ack.language) ?? [];
      list.push(ack);
      this.#byLanguage.set(ack.language, list);
    }
    this.#random = random;
  }

  get size(): number {
    let n = 0;
    for (const list of this.#byLanguage.values()) n += list.length;
    return n;
  }

  all(): CachedAck[] {
    return [...this.#byLanguage.values()].flat();
  }

  /**
   * A random phrase of `language`, never `previousId` unless it is the only one. Falls back to
   * the other language when `language` has none, so a turn is never left silent for want of a
   * phrase if any was synthesized.
   */
  pick(language: AckLanguage, previousId?: string): CachedAck | undefined {
    const own = this.#byLanguage.get(language) ?? [];
    const list = own.length > 0 ? own : this.all();
    if (list.length === 0) return undefined;
    const fresh = list.filter((ack) => ack.id !== previousId);
    const from = fresh.length > 0 ? fresh : list;
    const index = Math.min(from.length - 1, Math.floor(this.#random() * from.length));
    return from[index];
  }
}

/**
 * The clip for a wait of `waitMs`: the longest phrase of `language` that ends within it (not
 * `previousId` when another fits too), so the reply is not held behind it; undefined when none is
 * that short — the reply is close, and an acknowledgement would only delay it. Falls back to the
 * other language's phrases when `language` has none.
 */
export function pickWithin(library: AckLibrary, language: AckLanguage, waitMs: number, previousId?: string): CachedAck | undefined {
  const all = library.all();
  const own = all.filter((ack) => ack.language === language);
  const fitting = (own.length > 0 ? own : all).filter((ack) => ack.durationMs <= waitMs);
  const fresh = fitting.filter((ack) => ack.id !== previousId);
  const from = fresh.length > 0 ? fresh : fitting;
  return from.reduce<CachedAck | undefined>((best, ack) => (best && best.durationMs >= ack.durationMs ? best : ack), undefined);
}

/**
 * Fresh frame objects over the cached samples: outputs may keep the frames they were given, and
 * one cached phrase is played many times.
 */
export function ackFrames(ack: CachedAck): AudioFrame[] {
  return ack.frames.map((f) => new AudioFrame(f.data, f.sampleRate, f.channels, f.samplesPerChannel));
}

/**
 * The phrase through the TTS's streaming path. Not `synthesize()`: in agents 1.9 a failed
 * ChunkedStream leaves an unhandled rejection behind (its main task rethrows after reporting),
 * which would end a process that is only preparing a nicety; a SynthesizeStream reports and ends.
 * Our own TTS sends the phrase as one request ("Sure, one moment." would otherwise be cut at its
 * comma, and an ack is played as one piece of speech); any other TTS chunks it its own way.
 */
async function synthesizeFrames(engine: tts.TTS, text: string, timeoutMs: number): Promise<AudioFrame[]> {
  const stream = engine instanceof FirstwordTTS ? engine.unitStream() : engine.stream();
  const frames = async (): Promise<AudioFrame[]> => {
    const collected: AudioFrame[] = [];
    for await (const audio of stream) {
      if (audio === tts.SynthesizeStream.END_OF_STREAM) return collected;
      collected.push(audio.frame);
    }
    throw new Error('the stream ended without its end marker');
  };
  try {
    stream.pushText(text);
    stream.endInput();
    return await waitUntilTimeout(frames(), timeoutMs, () => new Error(`no audio within ${timeoutMs} ms`));
  } finally {
    stream.close();
  }
}

/**
 * Synthesizes every phrase with `engine`, one after another (at prewarm nothing waits on it, and a
 * provider's per-key connection limit is better spent on calls). A phrase that fails is left out
 * and logged; the library may end up empty, in which case no acknowledgement is ever played.
 */
export async function prepareAcknowledgements(
  engine: tts.TTS,
  options: Partial<AckLibraryOptions> = {},
): Promise<AckLibrary> {
  const opts = { ...DEFAULT_ACK_LIBRARY_OPTIONS, ...options };
  const acks: CachedAck[] = [];
  const origin = { fromStore: 0 };
  // A failed synthesis is also emitted as 'error' on the TTS; outside a session nothing listens,
  // and an unheard 'error' would take the whole prewarmed process down.
  const onError = () => {};
  engine.on('error', onError);
  try {
    for (const language of ACK_LANGUAGES) await prepareLanguage(engine, language, opts, acks, origin);
  } finally {
    engine.off('error', onError);
  }
  return new AckLibrary(acks, opts.random, origin.fromStore);
}

async function prepareLanguage(
  engine: tts.TTS,
  language: AckLanguage,
  opts: AckLibraryOptions,
  acks: CachedAck[],
  origin: { fromStore: number },
): Promise<void> {
  const phrases = opts.phrases[language] ?? DEFAULT_ACK_PHRASES[language];
  for (const [index, text] of phrases.entries()) {
    const id = `${language}:${index}`;
    const key = opts.shared && { voice: opts.shared.voice, sampleRate: engine.sampleRate, channels: engine.numChannels, text };
    try {
      const stored = key && (await opts.shared?.store.read(key));
      if (stored) origin.fromStore += 1;
      const frames = stored ?? (await synthesizeFrames(engine, text, opts.timeoutMs));
      const durationMs = frames.reduce((ms, f) => ms + (f.samplesPerChannel * 1000) / f.sampleRate, 0);
      if (durationMs <= 0) throw new Error('no audio');
      acks.push({ id, language, text, frames, durationMs });
      if (key && !stored) await opts.shared?.store.write(key, frames);
    } catch (error) {
      log().warn({ ackId: id, provider: engine.provider, error: (error as Error).message }, 'acknowledgement not synthesized');
    }
  }
}
