/**
 * The caller's clock, side by side (a benchmark, not a test): how long a caller waits from their
 * last voiced sample to the agent's first sound and first content, and how often the agent speaks
 * while the caller only paused, under the framework's defaults, firstword's defaults and an
 * aggressive VAD-only setting.
 *
 *   npm run bench:turn -- [--quick] [--variant silence=300,min=400 ...] [--only NAME,...] [--json FILE]
 *
 * Every turn is spoken: the false-end corpus (bench/turn/corpus.ts) rendered by the local voice,
 * played at real time into a room-less session through the real Silero VAD and the production
 * session wiring (src/spoken). Conditions: scripted STT final 150 ms after the last voiced sample,
 * LLM first token 300 ms at 40 tokens/s, TTS first byte 120 ms (the Resemble-protocol server on
 * loopback, in this process, so CPU per turn includes its work — the same for every setting).
 */
import { initializeLogger } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareAcknowledgements } from '../../src/ack/index.js';
import { EARLY_ACK_PHRASES } from '../../src/ack/phrases.js';
import { ReplayLLM } from '../../src/demo/replay-llm.js';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import { SpokenSession, type SpokenTurn } from '../../src/spoken/spoken-session.js';
import { type RenderedUtterance, renderUtterance } from '../../src/spoken/utterance.js';
import { ResembleTTS } from '@firstword/agents-plugin-tts';
import { predictTurnComplete } from '../../src/turn/transcript-detector.js';
import { createTurnDetection } from '../../src/turn/detection.js';
import { startResembleServer } from '../../test/servers/resemble-server.js';
import { TURN_CORPUS } from './corpus.js';
import type { CorpusUtterance } from './corpus-types.js';
import { type SettingFigures, settingFigures } from './figures.js';
import { type BenchSetting, NAMED_SETTINGS, parseVariant } from './settings.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    variant: { type: 'string', multiple: true, default: [] },
    only: { type: 'string' },
    json: { type: 'string' },
    'stt-final-ms': { type: 'string', default: '150' },
    'first-token-ms': { type: 'string', default: '300' },
    'tokens-per-second': { type: 'string', default: '40' },
    'first-byte-ms': { type: 'string', default: '120' },
  },
});

const REPLIES = {
  ko: '네, 내일 서울은 맑고 따뜻할 거예요. 낮 기온은 이십 도 정도예요.',
  en: 'Sure, tomorrow in Seoul looks sunny and mild, about twenty degrees.',
};

function selectSettings(): BenchSetting[] {
  const all = [...NAMED_SETTINGS, ...args.variant!.map(parseVariant)];
  if (!args.only) return all;
  const wanted = new Set(args.only.split(','));
  const chosen = all.filter((s) => wanted.has(s.name));
  if (chosen.length === 0) throw new Error(`--only matched no setting (have: ${all.map((s) => s.name).join(', ')})`);
  return chosen;
}

function selectCorpus(): CorpusUtterance[] {
  if (!args.quick) return [...TURN_CORPUS];
  // Every kind in both languages, a few of each: about a third of the corpus.
  const seen = new Map<string, number>();
  return TURN_CORPUS.filter((u) => {
    const key = `${u.language}-${u.kind}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return n < 3;
  });
}

async function render(corpus: CorpusUtterance[]): Promise<RenderedUtterance[]> {
  const synth = await EspeakSynthesizer.start();
  try {
    const rendered: RenderedUtterance[] = [];
    for (const utterance of corpus) rendered.push(await renderUtterance(synth, utterance));
    return rendered;
  } finally {
    await synth.close();
  }
}

async function runSetting(
  setting: BenchSetting,
  corpus: CorpusUtterance[],
  rendered: RenderedUtterance[],
  serverUrl: string,
): Promise<{ figures: SettingFigures; turns: SpokenTurn[] }> {
  const engine = new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: serverUrl, sampleRate: 22050 });
  await engine.prewarm();
  const library = setting.ack === 'off' ? undefined : await prepareAcknowledgements(engine, { phrases: EARLY_ACK_PHRASES });
  const vad = await silero.VAD.load({ minSilenceDuration: setting.silenceMs });
  const llm = new ReplayLLM({
    replies: [],
    fallback: (prompt) => (/[가-힣]/.test(prompt) ? REPLIES.ko : REPLIES.en),
    firstTokenDelayMs: Number(args['first-token-ms']),
    tokensPerSecond: Number(args['tokens-per-second']),
  });
  const turn = setting.turn
    ? { ...setting.turn, detection: createTurnDetection(setting.turn.detector, { hasInferenceExecutor: false }) }
    : undefined;
  const predict = setting.ack === 'early-vad' ? () => 1 : predictTurnComplete;
  const session = await SpokenSession.start({
    vad,
    llm,
    tts: engine,
    turn,
    earlyAck: library ? { library, predict } : undefined,
    sttFinalAfterMs: Number(args['stt-final-ms']),
  });
  const turns: SpokenTurn[] = [];
  try {
    for (const [i, utterance] of rendered.entries()) {
      const spoken = await session.say(utterance, { cutReplyAfterMs: 400 });
      turns.push(spoken);
      const f = (v?: number) => (v === undefined ? '   –' : `${Math.round(v)}`.padStart(4));
      process.stderr.write(
        `  ${setting.name} ${corpus[i]!.id.padEnd(18)} sound ${f(spoken.firstSoundMs)} content ${f(spoken.firstContentMs)} ms` +
          `${spoken.falseEnds > 0 ? `  FALSE END ×${spoken.falseEnds}` : ''}\n`,
      );
      // The caller waits a moment before the next utterance, as after any answer.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    await session.close();
    await llm.aclose();
    await engine.close();
  }
  const withPauses = turns.map((t, i) => ({ turn: t, pauseMs: corpus[i]!.pieces.slice(0, -1).map((p) => p.pauseAfterMs ?? 0) }));
  return { figures: settingFigures(setting.name, withPauses), turns };
}

function table(rows: SettingFigures[]): string {
  const f = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)}`);
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  const header = ['setting', 'first sound p50/p90', 'first content p50/p90', 'false ends ≤700 ms', 'false ends 1 s', 'drafts dropped/turn', 'CPU ms/turn', 'unanswered'];
  const lines = rows.map((r) => [
    r.name,
    `${f(r.firstSoundP50Ms)} / ${f(r.firstSoundP90Ms)} ms`,
    `${f(r.firstContentP50Ms)} / ${f(r.firstContentP90Ms)} ms`,
    `${pct(r.falseEndRate)} of ${r.pauses}`,
    `${pct(r.falseEndRateLongPauses)} of ${r.longPauses}`,
    r.draftsDiscardedPerTurn.toFixed(2),
    r.cpuMsPerTurn.toFixed(0),
    `${r.unanswered} of ${r.turns}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [row(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(row)].join('\n');
}

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: 'error' });
  const settings = selectSettings();
  const corpus = selectCorpus();
  process.stderr.write(`rendering ${corpus.length} utterances with the local voice…\n`);
  const rendered = await render(corpus);
  const server = await startResembleServer({ firstByteDelayMs: Number(args['first-byte-ms']), msPerChar: 60, realTimeFactor: 0.2 });
  const rows: SettingFigures[] = [];
  try {
    for (const setting of settings) rows.push((await runSetting(setting, corpus, rendered, server.url)).figures);
  } finally {
    await server.close();
  }
  console.log(
    `bench:turn — ${corpus.length} spoken turns per setting (${corpus.filter((u) => u.language === 'ko').length} Korean), scripted STT final ` +
      `${args['stt-final-ms']} ms after the last voiced sample, LLM first token ${args['first-token-ms']} ms at ${args['tokens-per-second']} tokens/s, ` +
      `TTS first byte ${args['first-byte-ms']} ms. Times from the caller's last voiced sample.`,
  );
  console.log(table(rows));
  const base = rows.find((r) => r.name === 'framework-defaults');
  if (base) {
    for (const r of rows.filter((x) => x !== base)) {
      const ratio = (a?: number, b?: number) => (a === undefined || b === undefined || b === 0 ? '–' : `×${(a / b).toFixed(2)}`);
      console.log(`${r.name} vs framework-defaults: first sound p50 ${ratio(r.firstSoundP50Ms, base.firstSoundP50Ms)}, first content p50 ${ratio(r.firstContentP50Ms, base.firstContentP50Ms)}`);
    }
  }
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    writeFileSync(args.json, `${JSON.stringify({ settings: rows }, null, 2)}\n`);
  }
  process.exit(0);
}

await main();
