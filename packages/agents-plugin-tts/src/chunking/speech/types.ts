import type { SpeechLanguage } from './language.js';

export interface SpeechOptions {
  /**
   * Read every number in this language. When omitted, each token is read in the language of the
   * letters around it (Hangul nearby → Korean).
   */
  language?: SpeechLanguage;
  /**
   * Extra spoken forms, matched case-sensitively on word boundaries (a Hangul particle counts as a
   * boundary: 'AI를'). They apply in any language and override the default Korean aliases, which
   * apply only in Korean context. Map a key to itself to switch a default off.
   */
  aliases?: Record<string, string>;
  /**
   * Spell words that mix letters and digits character by character (A1B2 → A 1 B 2). Off by
   * default: product names like GPT-4 or mp3 are better left to the voice.
   * @defaultValue false
   */
  spellCodes?: boolean;
}

export interface SsmlOptions extends SpeechOptions {
  /**
   * Let tags and entities in the input through to the provider. Off by default: every `<`, `>`
   * and `&` that came from the LLM is escaped, so model output can never inject markup.
   * @defaultValue false
   */
  allowMarkup?: boolean;
}

/** One spoken piece of a telephone number, kept apart so SSML can pause between groups. */
export interface SpokenPart {
  readonly original: string;
  readonly spoken: string;
}

/**
 * A decision about a stretch [start, end) of the input: what to say instead of it, and how.
 * Both the plain-text and the SSML output are rendered from the same spans.
 */
export type Span =
  | { readonly kind: 'reading'; readonly start: number; readonly end: number; readonly spoken: string }
  | { readonly kind: 'characters'; readonly start: number; readonly end: number; readonly spoken: string }
  | {
      readonly kind: 'telephone';
      readonly start: number;
      readonly end: number;
      readonly spoken: string;
      readonly parts: readonly SpokenPart[];
    };
