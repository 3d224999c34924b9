import type { ProviderDescriptor } from '../descriptor.js';

/** Resemble AI's facts: the one declaration the plugin, the app and the fakes read. */
export const RESEMBLE = {
  id: 'resemble',
  name: 'Resemble',
  /** The rates Resemble documents for WebSocket streaming. */
  sampleRates: [8000, 16000, 22050, 32000, 44100, 48000],
  /** Resemble's own default is unconfirmed (docs/providers.md A.3), so a rate is always sent; 16000 suits telephony. */
  defaultSampleRate: 22050,
  wordTimestamps: false,
  /**
   * Resemble is reported to deliver in bursts with 300-450 ms gaps (docs/provider-fidelity.md).
   * 600 ms removes nearly all the silence such bursts leave inside a reply for about 200 ms more
   * first audio; a shorter buffer leaves holes, the next step that removes more costs several
   * times as much. `npm run bench:jitter` measures it; the figures are in docs/latency.md.
   */
  startBufferMs: 600,
  /** Resemble refuses a request whose `data` is longer, SSML tags not counted. */
  maxRequestChars: 3000,
  keyVariable: 'RESEMBLE_API_KEY',
  environment: {
    RESEMBLE_API_KEY: 'API key (the plugin falls back to it when none is passed)',
    RESEMBLE_VOICE_UUID: 'the voice to speak with; required, Resemble has no default voice',
    RESEMBLE_PROJECT_UUID: 'the project the voice belongs to, when the voice needs one',
    RESEMBLE_MODEL: "the model (e.g. chatterbox, chatterbox-turbo); unset lets the voice pick",
    RESEMBLE_BASE_URL: "the streaming endpoint, for a proxy or a local stand-in; unset is Resemble's own",
    RESEMBLE_SSML: 'on sends SSML (LLM markup is always escaped)',
  },
} as const satisfies ProviderDescriptor;

export type ResembleSampleRate = (typeof RESEMBLE.sampleRates)[number];
export type ResembleVariable = keyof typeof RESEMBLE.environment;
