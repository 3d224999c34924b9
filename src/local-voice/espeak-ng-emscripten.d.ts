// Types for the parts of @echogarden/espeak-ng-emscripten (GPL-3.0, optional dependency) that the
// local voice uses. The package ships no declarations; these were read off its espeak-ng.js
// (an Emscripten WebIDL binding around eSpeak-NG's C API).
declare module '@echogarden/espeak-ng-emscripten' {
  export interface EspeakEvent {
    type: string;
    text_position: number;
    word_length: number;
    audio_position: number;
    id: string | number | undefined;
  }

  export interface EspeakNGWorker {
    /** Output rate of the synthesizer in Hz (22050 for this build). */
    get_samplerate(): number;
    /** Selects a voice by name or language code (e.g. `ko`, `en-us`); returns 0 on success. */
    set_voice(name: string, lang?: string, gender?: number, age?: number, variant?: number): number;
    set_rate(wordsPerMinute: number): void;
    get_rate(): number;
    set_pitch(pitch: number): void;
    /**
     * Synthesizes synchronously, calling `onAudio` for each block of 16-bit mono samples as it is
     * produced. Returning a truthy value from the callback aborts synthesis.
     */
    synthesize(text: string, onAudio: (samples: Int16Array | null, events: EspeakEvent[]) => unknown): void;
  }

  export interface EspeakModule {
    eSpeakNGWorker: new () => EspeakNGWorker;
  }

  const createEspeakModule: (moduleArg?: Record<string, unknown>) => Promise<EspeakModule>;
  export default createEspeakModule;
}
