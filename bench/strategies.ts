/**
 * The ways to voice a streamed reply, each behind the same interface: given a trace, speak it and
 * report when every frame arrived. firstword's strategies speak either provider; each peer speaks
 * its own (bench/peers: the Python ones; the official JS plugin speaks Cartesia only). All talk to
 * the local server of their lane's provider over real WebSockets.
 */
import { tts } from '@livekit/agents';
import { TTS as CartesiaPluginTTS } from '@livekit/agents-plugin-cartesia';
import type { PacingReport } from '@firstword/agents-plugin-tts';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { CartesiaTTS, type CartesiaTTSOptions, ResembleTTS } from '@firstword/agents-plugin-tts';
import { type Trace, replay } from './llm.js';
import { PYTHON_PEERS, type Provider, type PythonPeerName, isPythonPeer } from './peers/catalog.js';
import { PythonPeerStrategy } from './peers/python-strategy.js';
import { type TaggedFrame, frameTags } from './peers/tags.js';
import type { Language } from './scenarios.js';

export const STRATEGY_NAMES = [
  'naive',
  'sentence',
  'livekit-cartesia',
  'firstword',
  'firstword-eager',
  'firstword-min3',
  'livekit-python-cartesia',
  'livekit-python-resemble',
  'pipecat-cartesia',
  'pipecat-resemble',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
const EXPERIMENTS: readonly StrategyName[] = ['firstword-min3'];
/** What `npm run bench` runs unless --strategies says otherwise (experiments only on request). */
export const DEFAULT_STRATEGIES: readonly StrategyName[] = STRATEGY_NAMES.filter((n) => !EXPERIMENTS.includes(n));

export const STRATEGY_NOTES: Record<StrategyName, string> = {
  naive: 'whole reply in one request after the LLM finishes (firstword driver, unit policy)',
  sentence: 'a request at every sentence end (firstword driver, sentence policy)',
  'livekit-cartesia': 'official @livekit/agents-plugin-cartesia 1.8.1 stream() (Cartesia only)',
  firstword: 'firstword CartesiaTTS / ResembleTTS, asymmetric chunking, paced (the default)',
  'firstword-eager': 'firstword without the pacer (chunking.pacing false): the first clause always alone, the default before the pacer',
  'firstword-min3': 'experiment: firstword-eager with firstChunkMinWords 3 (the older default: "Sure," / "네." merge forward)',
  ...(Object.fromEntries(Object.entries(PYTHON_PEERS).map(([name, peer]) => [name, peer.note])) as Record<PythonPeerName, string>),
};

/** Which providers a strategy speaks: firstword's speak both, each peer its own. */
export function providersOf(name: StrategyName): readonly Provider[] {
  if (isPythonPeer(name)) return [PYTHON_PEERS[name].provider];
  return name === 'livekit-cartesia' ? ['cartesia'] : ['cartesia', 'resemble'];
}

export interface TurnOutcome {
  /** Frames with their arrival, ms after the LLM request (tags: empty unless asked for). */
  frames: TaggedFrame[];
  /** firstword: how the pacer sent this turn's first chunk. */
  pacing?: PacingReport;
}

export interface SpeakOptions {
  /** The caller barges in once this many audible frames arrived: the turn ends there. */
  bargeInAfterFrames?: number;
  /** Report each frame's audio tags (bench/peers/tags.ts). */
  tags?: boolean;
}

export interface Strategy {
  readonly name: StrategyName;
  prewarm(): Promise<void>;
  speak(trace: Trace, t0: number, options?: SpeakOptions): Promise<TurnOutcome>;
  close(): Promise<void>;
}

export interface LaneSetup {
  provider: Provider;
  language: Language;
  baseURL: string;
  /** This client's own key: the server counts its sockets and requests by it. */
  apiKey: string;
  sampleRate: number;
  turnTimeoutMs: number;
}

export function createStrategy(name: StrategyName, setup: LaneSetup): Strategy {
  if (!providersOf(name).includes(setup.provider)) throw new Error(`${name} does not speak ${setup.provider}`);
  if (isPythonPeer(name)) return new PythonPeerStrategy(name, setup);
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
    const common = { apiKey: setup.apiKey, baseURL: setup.baseURL, sampleRate: setup.sampleRate, chunking };
    this.#engine =
      setup.provider === 'resemble'
        ? new ResembleTTS({ ...common, voiceUuid: 'bench-voice' })
        : new CartesiaTTS({ ...common, voice: 'bench-voice', language: setup.language });
  }

  prewarm(): Promise<void> {
    return this.#engine.prewarm();
  }

  async speak(trace: Trace, t0: number, options: SpeakOptions = {}): Promise<TurnOutcome> {
    const stream = this.#engine.stream();
    let pacing: PacingReport | undefined;
    stream.timeline.on('pacing', (e) => (pacing = e.report));
    const outcome = await drive(stream, trace, t0, this.#setup.turnTimeoutMs, options);
    return pacing ? { ...outcome, pacing } : outcome;
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
      apiKey: setup.apiKey,
      baseUrl: setup.baseURL,
      sampleRate: setup.sampleRate,
      language: setup.language,
    });
  }

  async prewarm(): Promise<void> {
    this.#engine.prewarm();
  }

  speak(trace: Trace, t0: number, options: SpeakOptions = {}): Promise<TurnOutcome> {
    return drive(this.#engine.stream(), trace, t0, this.#setup.turnTimeoutMs, options);
  }

  close(): Promise<void> {
    return this.#engine.close();
  }
}

/**
 * Feeds the trace in real time while reading frames until END_OF_STREAM, or until the caller
 * barges in (then the stream is closed, as LiveKit's AgentSession does); bounded by `timeoutMs`.
 */
async function drive(
  stream: tts.SynthesizeStream,
  trace: Trace,
  t0: number,
  timeoutMs: number,
  options: SpeakOptions,
): Promise<TurnOutcome> {
  const frames: TaggedFrame[] = [];
  let audible = 0;
  let bargedIn = false;
  const feeding = replay(trace, t0, {
    push: (token) => bargedIn || stream.pushText(token),
    end: () => bargedIn || stream.endInput(),
  });
  const reading = (async () => {
    for await (const event of stream) {
      if (event === tts.SynthesizeStream.END_OF_STREAM) return;
      const at = performance.now() - t0;
      const { frame } = event;
      const ms = (frame.samplesPerChannel * 1000) / frame.sampleRate;
      frames.push({ at, ms, tags: options.tags ? frameTags(frame.data) : [] });
      if (options.bargeInAfterFrames && ms > 0.1 && ++audible >= options.bargeInAfterFrames) {
        bargedIn = true;
        return;
      }
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      (async () => {
        await reading;
        // After a barge-in the rest of the trace is never pushed; nothing waits for it.
        if (bargedIn) feeding.catch(() => {});
        else await feeding;
      })(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`turn did not finish within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    stream.close();
  }
  return { frames };
}
