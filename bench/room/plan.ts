/**
 * What the room benchmark will do, decided before anything starts: the LLM's token traces (one
 * per reply, generated once from the seed with bench/llm.ts and served verbatim by the OpenAI
 * fake to both strategies), and the order of turns. Strategies alternate turn by turn, each
 * scenario slot spoken by both back to back in alternating order, so drift in the machine's load
 * falls on both alike.
 */
import { makeTrace, seededRandom } from '../llm.js';
import { type Language, SCENARIOS, type Scenario } from '../scenarios.js';
import type { RoomArgs } from './args.js';
import { BARGE_IN, USER_LINES } from './utterances.js';

export interface Strategy {
  name: 'firstword' | 'livekit-cartesia';
  /** TTS_PROVIDER of its worker. */
  ttsProvider: 'cartesia' | 'cartesia-livekit';
  agentName: string;
  /** Process (and log file) name in the stack. */
  worker: string;
  httpPort: number;
  room: string;
}

export const STRATEGIES: readonly Strategy[] = [
  { name: 'firstword', ttsProvider: 'cartesia', agentName: 'bench-firstword', worker: 'worker-firstword', httpPort: 18082, room: 'bench-room-firstword' },
  {
    name: 'livekit-cartesia',
    ttsProvider: 'cartesia-livekit',
    agentName: 'bench-livekit-cartesia',
    worker: 'worker-livekit-cartesia',
    httpPort: 18083,
    room: 'bench-room-livekit-cartesia',
  },
];

export type TurnKind = 'warmup' | 'turn' | 'barge';

export interface TurnSpec {
  /** Position in the run, 0-based. */
  id: number;
  strategy: Strategy['name'];
  kind: TurnKind;
  scenario: string;
  language: Language;
  /** Clip key (a scenario name, or `barge-<lang>`) and the transcript the fake gives it. */
  clip: string;
  transcript: string;
  /** The Cartesia fake's speech length per character for this reply's language. */
  msPerChar: number;
  /** Quiet time before the caller speaks. */
  pauseBeforeMs: number;
  /** barge: agent audio played before the caller cuts in. */
  bargeAfterMs?: number;
  bargeClip?: string;
  bargeTranscript?: string;
}

export type ScriptEntry = { match: string; reply: { tokens: Array<{ text: string; atMs: number }> } };

/** The scenarios whose reply runs long enough to be interrupted 2 s in (and then some). */
function bargeable(s: Scenario, args: RoomArgs): boolean {
  const audioMs = s.reply.length * (s.language === 'ko' ? args.msPerCharKo : args.msPerCharEn);
  return audioMs >= 7000;
}

function traceFor(text: string, language: Language, args: RoomArgs): ScriptEntry['reply'] {
  const trace = makeTrace(text, language, { firstTokenMs: args.firstTokenMs, tokensPerSecond: args.tokensPerSecond, jitter: 0, seed: args.seed });
  return { tokens: trace.tokens.map((text, i) => ({ text, atMs: Math.round(trace.at[i]! * 10) / 10 })) };
}

export function selectedScenarios(args: RoomArgs): Scenario[] {
  return SCENARIOS.filter((s) => args.scenarios.includes(s.name));
}

/** The OpenAI fake's script: each caller line answered by its scenario's exact token trace. */
export function openaiScript(args: RoomArgs): ScriptEntry[] {
  const entries: ScriptEntry[] = selectedScenarios(args).map((s) => ({ match: USER_LINES[s.name]!, reply: traceFor(s.reply, s.language, args) }));
  for (const language of ['en', 'ko'] as const) {
    entries.push({ match: BARGE_IN[language].line, reply: traceFor(BARGE_IN[language].reply, language, args) });
  }
  return entries;
}

/** Evenly spread `count` picks over `items`, in an order shuffled by `random`. */
function spread<T>(items: readonly T[], count: number, random: () => number): T[] {
  const out: T[] = [];
  while (out.length < count) {
    const round = [...items];
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [round[i], round[j]] = [round[j]!, round[i]!];
    }
    out.push(...round.slice(0, count - out.length));
  }
  return out;
}

export function schedule(args: RoomArgs): TurnSpec[] {
  const random = seededRandom(args.seed ^ 0x5bd1e995);
  const scenarios = selectedScenarios(args);
  const longOnes = scenarios.filter((s) => bargeable(s, args));
  if (args.bargeIns > 0 && longOnes.length === 0) throw new Error('no selected scenario has a reply long enough to interrupt (>= 7 s of speech)');
  type Slot = { scenario: Scenario; kind: TurnKind };
  const turns: Slot[] = spread(scenarios, args.turns, random).map((scenario) => ({ scenario, kind: 'turn' }));
  const barges: Slot[] = spread(longOnes, args.bargeIns, random).map((scenario) => ({ scenario, kind: 'barge' }));
  // Barge-ins spread evenly through the run rather than bunched at its end.
  const slots: Slot[] = [];
  let b = 0;
  turns.forEach((slot, i) => {
    slots.push(slot);
    while (b < barges.length && (b + 1) * turns.length <= (i + 1) * barges.length) slots.push(barges[b++]!);
  });
  while (b < barges.length) slots.push(barges[b++]!);

  const specs: TurnSpec[] = [];
  const msPerChar = (language: Language) => (language === 'ko' ? args.msPerCharKo : args.msPerCharEn);
  const add = (strategy: Strategy, slot: Slot) => {
    const { scenario, kind } = slot;
    const spec: TurnSpec = {
      id: specs.length,
      strategy: strategy.name,
      kind,
      scenario: scenario.name,
      language: scenario.language,
      clip: scenario.name,
      transcript: USER_LINES[scenario.name]!,
      msPerChar: msPerChar(scenario.language),
      pauseBeforeMs: Math.round(400 + 500 * random()),
    };
    if (kind === 'barge') {
      spec.bargeAfterMs = Math.round(1200 + 800 * random());
      spec.bargeClip = `barge-${scenario.language}`;
      spec.bargeTranscript = BARGE_IN[scenario.language].line;
    }
    specs.push(spec);
  };
  // One unmeasured warm-up per strategy: the first turn of a call pays for things later ones do not.
  for (const strategy of STRATEGIES) add(strategy, { scenario: scenarios[0]!, kind: 'warmup' });
  slots.forEach((slot, i) => {
    const order = i % 2 === 0 ? STRATEGIES : [...STRATEGIES].reverse();
    for (const strategy of order) add(strategy, slot);
  });
  return specs;
}

/** Every clip the schedule speaks: one per scenario line, one barge-in line per language. */
export function clipLines(args: RoomArgs): Array<{ key: string; text: string; language: Language }> {
  const lines = selectedScenarios(args).map((s) => ({ key: s.name, text: USER_LINES[s.name]!, language: s.language }));
  for (const language of ['en', 'ko'] as const) lines.push({ key: `barge-${language}`, text: BARGE_IN[language].line, language });
  return lines;
}
