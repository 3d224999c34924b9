/**
 * Drives many seeded chaos turns against one long-lived TTS engine and one protocol server, and
 * checks every turn's invariants: chunks voiced once and in order, nothing foreign (stale) heard,
 * no hang, sockets bounded, failures surfaced as APIErrors with the right `retryable`.
 */
import { APIError, APIStatusError, type APIConnectOptions } from '@livekit/agents';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { CartesiaTTS, ResembleTTS } from '@firstword/agents-plugin-tts';
import { type Run, checkComplete, checkOwnOnly, checkPrefix, distinctInOrder, expectedRuns, heardRuns } from './checks.js';
import type { Rng } from './prng.js';
import { randomDeltas, randomReply } from './replies.js';
import { type Expectation, type FaultPlan, type Scenario, type ScenarioWeights, type TurnPlan, planTurn } from './scenarios.js';
import type { ChaosKnobs, ChaosServer, FaultHook } from './servers.js';
import { startTurn, type TurnOutput } from './turn.js';
import { everyStream } from '../../packages/agents-plugin-tts/test/driver/harness.js';

export interface ChaosEngineOptions {
  sampleRate: number;
  inactivityTimeoutMs: number;
  maxSockets: number;
  connOptions: APIConnectOptions;
  /** Resemble only: raw binary audio frames, attributed to the oldest request (one in flight). */
  binaryResponse?: boolean;
  /** Unset: the provider's default (Resemble holds its first 600 ms). */
  startBufferMs?: number;
}

export function chaosEngineOptions(provider: ChaosServer['provider']): ChaosEngineOptions {
  return {
    sampleRate: 16000,
    inactivityTimeoutMs: 250,
    maxSockets: provider === 'resemble' ? 2 : 1,
    connOptions: { maxRetry: 4, retryIntervalMs: 10, timeoutMs: 5000 },
  };
}

export function makeEngine(server: ChaosServer, o: ChaosEngineOptions): FirstwordTTS {
  const pool = { inactivityTimeoutMs: o.inactivityTimeoutMs, maxSockets: o.maxSockets, backoffBaseMs: 5, backoffMaxMs: 40 };
  return server.provider === 'resemble'
    ? new ResembleTTS({
        apiKey: 'test-key',
        voiceUuid: 'voice-1',
        baseURL: server.baseURL,
        sampleRate: o.sampleRate,
        binaryResponse: o.binaryResponse ?? false,
        startBufferMs: o.startBufferMs,
        pool,
      })
    : new CartesiaTTS({ apiKey: 'test-key', voice: 'voice-1', baseURL: server.baseURL, sampleRate: o.sampleRate, startBufferMs: o.startBufferMs, pool });
}

export interface TurnReport {
  index: number;
  scenario: Scenario;
  /** Invariant violations, each a sentence; empty when the turn behaved. */
  problems: string[];
  chunks: number;
  /** Chunks a completed turn failed to play whole, once, in order. */
  lostChunks: number;
  /** Samples heard that belonged to no text of this turn. */
  staleSamples: number;
  outcome: 'complete' | 'failed' | 'interrupted' | 'hung';
}

interface SurfacedError {
  error: unknown;
  recoverable: boolean;
}

/** Hooks of recent turns stay armed: a fault may strike a stale request while the next turn runs. */
const HOOK_MEMORY = 3;

export class ChaosRun {
  readonly server: ChaosServer;
  readonly engine: FirstwordTTS;
  readonly rng: Rng;
  readonly options: ChaosEngineOptions;
  readonly weights: ScenarioWeights;
  /** Applied over each turn's random knobs (e.g. the soak runs at full speed). */
  knobOverrides: Partial<ChaosKnobs> = {};
  #sent: Map<string, string[]>;
  #errors: SurfacedError[] = [];
  #hooks: FaultHook[] = [];

  constructor(server: ChaosServer, rng: Rng, weights: ScenarioWeights, options = chaosEngineOptions(server.provider)) {
    this.server = server;
    this.rng = rng;
    this.weights = weights;
    this.options = options;
    this.engine = makeEngine(server, options);
    this.#sent = new Map();
    everyStream(this.engine).on('sent', (e) => {
      const list = this.#sent.get(e.streamId);
      if (list) list.push(e.text);
      else this.#sent.set(e.streamId, [e.text]);
    });
    this.engine.on('error', (e) => this.#errors.push({ error: e.error, recoverable: e.recoverable }));
    server.fault = (text) => {
      for (const hook of this.#hooks) {
        const f = hook(text);
        if (f) return f;
      }
      return undefined;
    };
  }

  /** Longest a turn may take: every attempt stalled until the watchdog, plus retry waits and audio. */
  get boundMs(): number {
    const { maxRetry, retryIntervalMs } = this.options.connOptions;
    return (maxRetry + 1) * (this.options.inactivityTimeoutMs + 100) + maxRetry * retryIntervalMs + 3000;
  }

  async turn(index: number): Promise<TurnReport> {
    const scenario = this.rng.weighted(this.weights as Record<Scenario, number>);
    const plan = planTurn(this.rng, scenario, this.server.provider, {
      inactivityTimeoutMs: this.options.inactivityTimeoutMs,
      fifoOnly: this.options.binaryResponse === true,
    });
    this.server.setKnobs({ ...plan.knobs, ...this.knobOverrides });
    this.#errors.length = 0; // a turn judges only what surfaced while it ran; long runs stay flat
    const errorsBefore = 0;
    if (scenario === 'concurrent-pair') return this.#pairTurn(index, plan);

    const reply = randomReply(this.rng);
    const deltas = randomDeltas(this.rng, reply);
    const { streamId, done } = startTurn(this.engine, {
      deltas,
      interruptAfterFrames: plan.interruptAfterFrames,
      pause: plan.pause && { beforeDelta: Math.floor(plan.pause.at * deltas.length), ms: plan.pause.ms },
      connOptions: this.options.connOptions,
      boundMs: this.boundMs,
    });
    const fired = this.#arm(streamId, plan.fault);
    const action = this.#schedule(plan);
    const out = await done;
    await action;
    const expectation: Expectation = plan.interruptAfterFrames !== undefined ? { kind: 'interrupted' } : fired() ? plan.onFault : { kind: 'complete' };
    const report = this.#judge(index, scenario, out, expectation, this.#errors.slice(errorsBefore));
    this.#sent.delete(streamId);
    report.problems.push(...(await this.#checkSockets()));
    return report;
  }

  /** Two streams at once on one engine (Cartesia: interleaved contexts on one socket), one maybe interrupted. */
  async #pairTurn(index: number, plan: TurnPlan): Promise<TurnReport> {
    const interruptOne = this.rng.chance(0.4) ? this.rng.int(0, 1) : -1;
    const errorsBefore = this.#errors.length;
    const turns = [0, 1].map((k) =>
      startTurn(this.engine, {
        deltas: randomDeltas(this.rng, randomReply(this.rng)),
        interruptAfterFrames: k === interruptOne ? this.rng.int(0, 8) : undefined,
        connOptions: this.options.connOptions,
        boundMs: this.boundMs,
      }),
    );
    // A dropped socket mid-pair: both streams must recover on their own.
    const drop: FaultPlan = { fault: { kind: 'drop', afterBytes: this.rng.int(0, 2000) }, target: this.rng.int(0, 3), persistent: false };
    this.#arm(turns[0]!.streamId, this.rng.chance(0.5) ? drop : undefined, turns[1]!.streamId);
    const outs = await Promise.all(turns.map((t) => t.done));
    const errors = this.#errors.slice(errorsBefore);
    const reports = outs.map((out, k) =>
      this.#judge(index, plan.scenario, out, k === interruptOne ? { kind: 'interrupted' } : { kind: 'complete' }, k === 0 ? errors : []),
    );
    for (const t of turns) this.#sent.delete(t.streamId);
    const [a, b] = reports as [TurnReport, TurnReport];
    return {
      index,
      scenario: plan.scenario,
      problems: [...a.problems.map((p) => `stream A: ${p}`), ...b.problems.map((p) => `stream B: ${p}`), ...(await this.#checkSockets())],
      chunks: a.chunks + b.chunks,
      lostChunks: a.lostChunks + b.lostChunks,
      staleSamples: a.staleSamples + b.staleSamples,
      outcome: a.outcome === 'complete' && b.outcome === 'complete' ? 'complete' : a.outcome === 'complete' ? b.outcome : a.outcome,
    };
  }

  /** Arms this turn's fault; returns whether it struck one of the turn's own requests. */
  #arm(streamId: string, plan: FaultPlan | undefined, otherStreamId?: string): () => boolean {
    let struck = false;
    let seen = 0;
    const own = (text: string) =>
      (this.#sent.get(streamId) ?? []).includes(text) || (otherStreamId !== undefined && (this.#sent.get(otherStreamId) ?? []).includes(text));
    const hook: FaultHook = (text) => {
      if (!plan || !own(text)) return undefined;
      const n = seen++;
      if (n < plan.target || (struck && !plan.persistent)) return undefined;
      struck = true;
      return plan.fault;
    };
    this.#hooks.unshift(hook);
    this.#hooks.length = Math.min(this.#hooks.length, HOOK_MEMORY);
    return () => struck;
  }

  async #schedule(plan: TurnPlan): Promise<void> {
    const action = plan.action;
    if (!action) return;
    await new Promise((r) => setTimeout(r, action.atMs));
    if (action.kind === 'drop-all') this.server.dropAllConnections();
    else await this.server.restart(action.downMs);
  }

  #judge(index: number, scenario: Scenario, out: TurnOutput, expectation: Expectation, errors: SurfacedError[]): TurnReport {
    const problems: string[] = [];
    const sent = distinctInOrder(this.#sent.get(out.streamId) ?? []);
    const rate = this.options.sampleRate;
    const expected = expectedRuns(sent, (t) => this.server.tagOf(t), (t) => this.server.samplesOf(t, rate));
    const heard = heardRuns(out.samples);
    const ownTags = new Set(sent.map((t) => this.server.tagOf(t)));
    const foreign = checkOwnOnly(heard, ownTags);
    const staleSamples = heard.filter((r) => !ownTags.has(r.tag)).reduce((n, r) => n + r.samples, 0);
    if (foreign) problems.push(`stale or foreign audio: ${foreign}`);
    if (!out.sampleRateOk) problems.push('a frame had the wrong sample rate');
    let lostChunks = 0;
    let outcome: TurnReport['outcome'] = out.hung ? 'hung' : out.endOfStream ? 'complete' : out.interrupted ? 'interrupted' : 'failed';
    if (out.hung) problems.push(`turn did not end within ${this.boundMs} ms`);

    // A barge-in that came after the last frame is just a completed turn.
    const effective: Expectation = expectation.kind === 'interrupted' && out.endOfStream ? { kind: 'complete' } : expectation;
    switch (effective.kind) {
      case 'complete': {
        if (!out.endOfStream && !out.hung) problems.push(`turn ended without END_OF_STREAM (${describeErrors(errors)})`);
        const wrong = checkComplete(heard, expected);
        if (wrong) {
          problems.push(`not every chunk voiced exactly once in order: ${wrong}`);
          lostChunks = Math.max(1, expected.length - heard.length);
        }
        if (errors.length) problems.push(`unexpected error surfaced: ${describeErrors(errors)}`);
        break;
      }
      case 'interrupted': {
        const wrong = checkPrefix(heard, expected);
        if (wrong) problems.push(`interrupted turn: ${wrong}`);
        if (errors.length) problems.push(`an interruption surfaced an error: ${describeErrors(errors)}`);
        break;
      }
      case 'failed': {
        if (out.endOfStream) problems.push('expected the turn to fail, but it completed');
        outcome = 'failed';
        const wrong = checkPrefix(heard, expected);
        if (wrong) problems.push(`failed turn: ${wrong}`);
        problems.push(...checkSurfaced(errors, effective));
        break;
      }
    }
    return { index, scenario, problems, chunks: expected.length, lostChunks, staleSamples, outcome };
  }

  /** Sockets stay bounded: the pool never holds more than max+1, nor does the server see more. */
  async #checkSockets(): Promise<string[]> {
    const limit = this.options.maxSockets + 1;
    const problems: string[] = [];
    if (this.engine.poolStats.open > limit) problems.push(`pool holds ${this.engine.poolStats.open} sockets (limit ${limit})`);
    // Server-side close events trail the client's terminate by a tick or two.
    for (let i = 0; i < 50 && this.server.openConnections() > limit; i++) await new Promise((r) => setTimeout(r, 10));
    if (this.server.openConnections() > limit) problems.push(`server sees ${this.server.openConnections()} open sockets (limit ${limit})`);
    return problems;
  }

  /** Closes the engine and reports sockets the server still sees (a leak). */
  async close(): Promise<string[]> {
    await this.engine.close();
    for (let i = 0; i < 100 && this.server.openConnections() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    const problems: string[] = [];
    if (this.engine.poolStats.open !== 0) problems.push(`pool still holds ${this.engine.poolStats.open} sockets after close()`);
    if (this.server.openConnections() !== 0) problems.push(`server still sees ${this.server.openConnections()} sockets after close()`);
    return problems;
  }
}

function describeErrors(errors: SurfacedError[]): string {
  if (!errors.length) return 'no error surfaced';
  return errors.map((e) => (e.error instanceof Error ? `${e.error.constructor.name}: ${e.error.message}` : String(e.error))).join('; ');
}

function checkSurfaced(errors: SurfacedError[], expected: { retryable: boolean; status?: number }): string[] {
  if (errors.length !== 1) return [`expected exactly one surfaced error, got ${errors.length} (${describeErrors(errors)})`];
  const { error, recoverable } = errors[0]!;
  const problems: string[] = [];
  if (!(error instanceof APIError)) return [`surfaced error is not an APIError: ${describeErrors(errors)}`];
  if (error.retryable !== expected.retryable) problems.push(`surfaced error has retryable=${error.retryable}, expected ${expected.retryable}: ${error.message}`);
  if (expected.status !== undefined && !(error instanceof APIStatusError && error.statusCode === expected.status)) {
    problems.push(`surfaced error should carry status ${expected.status}: ${describeErrors(errors)}`);
  }
  if (recoverable) problems.push('a failed turn was reported as recoverable');
  return problems;
}

export type { Run };
