/**
 * The ways to voice a streamed reply, each behind the same interface: given a trace, speak it and
 * report when every frame arrived. They talk to the local server of their lane's provider over
 * real WebSockets (the official plugin speaks Cartesia only).
 */
import { tts } from '@livekit/agents';
import { TTS as CartesiaPluginTTS } from '@livekit/agents-plugin-cartesia';
import type { PacingReport } from '../src/latency/pacer.js';
import type { FirstwordTTS } from '../src/tts/base.js';
import { CartesiaTTS, type CartesiaTTSOptions, ResembleTTS } from '../src/tts/index.js';
import { type Trace, replay } from './llm.js';
import type { ArrivedFrame } from './playout.js';
import type { Language, Provider } from './scenarios.js';

export const STRATEGY_NAMES = [
  'naive',
  'sentence',
  'livekit-cartesia',
  'firstword',
  'firstword-eager',
  'firstword-min3',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
const EXPERIMENTS: readonly StrategyName[] = ['firstword-min3'];
/** What `npm run bench` runs unless --strategies says otherwise (experiments only on request). */
export const DEFAULT_STRATEGIES: readonly StrategyName[] = STRATEGY_NAMES.filter((n) => !EXPERIMENTS.includes(n));

export const STRATEGY_NOTES: Record<StrategyName, string> = {
  naive: 'whole reply in one request after the LLM finishes (firstword driver, unit policy)',
  sentence: 'a request at every sentence end (firstword driver, sentence policy)',
  'livekit-cartesia': 'official @livekit/agents-plugin-cartesia 1.8.1 stream() (Cartesia only)',
  firstword: 'firstword, asymmetric chunking, paced (the default)',
  'firstword-eager': 'firstword without the pacer (chunking.pacing false): the first clause always alone, as before issue 18',
  'firstword-min3': 'experiment: firstword-eager with firstChunkMinWords 3 (the older default: "Sure," / "네." merge forward)',
};

/** Whether a strategy runs against a provider's server. */
export function speaks(name: StrategyName, provider: Provider): boolean {
  return name !== 'livekit-cartesia' || provider === 'cartesia';
}

export interface TurnOutcome {
  /** Frames with their arrival, ms after the LLM request. */
  frames: ArrivedFrame[];
  /** The request or context id each frame carried (same order as `frames`). */
  frameIds: string[];
  /** Provider context ids the audio came from (to count what was sent). */
  contextIds: string[];
  /** firstword driver: texts it sent to the provider (else counted by the Cartesia server). */
  sentPieces?: number;
  /** firstword driver: sockets its pool opened during the turn. */
  socketsOpened?: number;
  /** firstword: how the pacer sent this turn's first chunk. */
  pacing?: PacingReport;
}

export interface Strategy {
  readonly name: StrategyName;
  prewarm(): Promise<void>;
  speak(trace: Trace, t0: number): Promise<TurnOutcome>;
  close(): Promise<void>;
}

export interface LaneSetup {
  provider: Provider;
  language: Language;
  baseURL: string;
  sampleRate: number;
  turnTimeoutMs: number;
}

export function createStrategy(name: StrategyName, setup: LaneSetup): Strategy {
  if (!speaks(name, setup.provider)) throw new Error(`${name} does not speak ${setup.provider}`);
  if (name === 'livekit-cartesia') return new PluginStrategy(setup);
  const chunking: CartesiaTTSOptions['chunking'] =
    name === 'naive'
      ? { policy: 'unit' }
      : name === 'sentence'
        ? { policy: 'sentence' }
        : name === 'firstword-eager'
          ? { policy: 'asymmetric', pacing: false }
          : name === 'firstword-min3'
            ? { policy: 'asymmetric', firstChunkMinWords: 3, pacing: false }
            : { policy: 'asymmetric' };
  return new FirstwordStrategy(name, setup, chunking);
}

class FirstwordStrategy implements Strategy {
  readonly name: StrategyName;
  readonly #engine: FirstwordTTS;
  readonly #setup: LaneSetup;

  constructor(name: StrategyName, setup: LaneSetup, chunking: CartesiaTTSOptions['chunking']) {
    this.name = name;
    this.#setup = setup;
    const common = { apiKey: 'test-key', baseURL: setup.baseURL, sampleRate: setup.sampleRate, chunking };
    this.#engine =
      setup.provider === 'cartesia'
        ? new CartesiaTTS({ ...common, voice: 'bench-voice', language: setup.language })
        : new ResembleTTS({ ...common, voiceUuid: 'bench-voice' });
  }

  prewarm(): Promise<void> {
    return this.#engine.prewarm();
  }

  async speak(trace: Trace, t0: number): Promise<TurnOutcome> {
    const stream = this.#engine.stream();
    const timeline = this.#engine.timeline;
    let pacing: PacingReport | undefined;
    let sentPieces = 0;
    const onPacing = (e: { streamId: string; report: PacingReport }) => {
      if (e.streamId === stream.id) pacing = e.report;
    };
    const onSent = (e: { streamId: string }) => {
      if (e.streamId === stream.id) sentPieces++;
    };
    timeline.on('pacing', onPacing);
    timeline.on('sent', onSent);
    const opened = this.#engine.poolStats.opened;
    try {
      const outcome = await drive(stream, trace, t0, this.#setup.turnTimeoutMs);
      const socketsOpened = this.#engine.poolStats.opened - opened;
      return { ...outcome, sentPieces, socketsOpened, ...(pacing ? { pacing } : {}) };
    } finally {
      timeline.off('pacing', onPacing);
      timeline.off('sent', onSent);
    }
  }

  close(): Promise<void> {
    return this.#engine.close();
  }
}

class PluginStrategy implements Strategy {
  readonly name = 'livekit-cartesia' as const;
  readonly #engine: CartesiaPluginTTS;
  readonly #setup: LaneSetup;

  constructor(setup: LaneSetup) {
    this.#setup = setup;
    this.#engine = new CartesiaPluginTTS({
      apiKey: 'test-key',
      baseUrl: setup.baseURL,
      sampleRate: setup.sampleRate,
      language: setup.language,
    });
  }

  async prewarm(): Promise<void> {
    this.#engine.prewarm();
  }

  speak(trace: Trace, t0: number): Promise<TurnOutcome> {
    return drive(this.#engine.stream(), trace, t0, this.#setup.turnTimeoutMs);
  }

  close(): Promise<void> {
    return this.#engine.close();
  }
}

/** Feeds the trace in real time while reading frames until END_OF_STREAM; bounded by `timeoutMs`. */
async function drive(stream: tts.SynthesizeStream, trace: Trace, t0: number, timeoutMs: number): Promise<TurnOutcome> {
  const frames: ArrivedFrame[] = [];
  const frameIds: string[] = [];
  const contextIds = new Set<string>();
  const feeding = replay(trace, t0, { push: (token) => stream.pushText(token), end: () => stream.endInput() });
  const reading = (async () => {
    for await (const event of stream) {
      if (event === tts.SynthesizeStream.END_OF_STREAM) return;
      const at = performance.now() - t0;
      contextIds.add(event.requestId);
      frames.push({ at, ms: (event.frame.samplesPerChannel * 1000) / event.frame.sampleRate });
      frameIds.push(event.requestId);
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([feeding, reading]),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`turn did not finish within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    stream.close();
  }
  return { frames, frameIds, contextIds: [...contextIds] };
}
