/**
 * The shape of a provider's descriptor: the facts about a provider that the plugin, the app's
 * configuration, the embedded voice and the protocol fakes all need, declared once per provider
 * (`<provider>/descriptor.ts`) and read everywhere else.
 */
export interface ProviderDescriptor {
  /** The provider's name in configuration (`TTS_PROVIDER`) and connection budgets. */
  readonly id: string;
  /** Shown in errors: `Resemble`, `Cartesia`. */
  readonly name: string;
  /** Output sample rates the provider serves over its streaming API, in Hz. */
  readonly sampleRates: readonly number[];
  /** The rate asked for when the caller names none. */
  readonly defaultSampleRate: number;
  /** The model asked for when the caller names none; absent when the voice picks its own. */
  readonly defaultModel?: string;
  /** Whether audio carries word timestamps (aligned transcripts) unless the caller says otherwise. */
  readonly wordTimestamps: boolean;
  /** Audio (ms) gathered before a stream's first frame unless the caller says otherwise; absent means none. */
  readonly startBufferMs?: number;
  /** The longest text one request may carry (markup not counted); absent when the provider states none. */
  readonly maxRequestChars?: number;
  /** The variable the API key falls back to when none is passed. */
  readonly keyVariable: string;
  /** Every environment variable the app reads for this provider, with what it means. */
  readonly environment: Readonly<Record<string, string>>;
}
