/**
 * The caller's clock, side by side (a benchmark, not a test): how long a caller waits from their
 * last voiced sample to the agent's first sound and first content, and how often the agent speaks
 * while the caller only paused, under the framework's defaults, firstword's defaults and an
 * aggressive VAD-only setting.
 *
 *   npm run bench:turn -- [--quick] [--stt LIST] [--variant silence=300,min=400 ...] [--only NAME,...] [--json FILE]
 *   npm run bench:turn -- --human DIR[,DIR] --language en|ko[,...] [--limit N] [--json FILE]
 *
 * Every turn is spoken: the false-end corpus (bench/turn/corpus.ts) rendered by the local voice,
 * played at real time into a room-less session through the real Silero VAD and the production
 * session wiring (src/spoken). The caller is heard by the real `@livekit/agents-plugin-openai` STT
 * (src/stt, as the worker builds it) against the local OpenAI-protocol server, one STT profile per
 * run (bench/turn/stt-profiles.ts; `--stt`, default server-vad and five live ones): the plugin's
 * own commit path is what is measured. `framework-defaults` (the baseline) runs once, with
 * server-vad; every other setting runs with each profile. LLM first token 300 ms at 40 tokens/s,
 * TTS first byte 120 ms (the Resemble-protocol server on loopback, in this process, so CPU per
 * turn includes its work and the local OpenAI server's — the same for every setting).
 *
 * `--human`: recorded human turns instead of the eSpeak corpus (bench/turn/human-turns.ts reads
 * them; `--language` gives each directory's language, one for all or one per directory), the
 * turns with a pause of at least 250 ms, at most `--limit` (default 20) per directory, played
 * through the same session; the default STT profile is then live:300/150 alone, and the report
 * adds the per-language, per-pause-band table (bench/turn/pause-bands.ts).
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
import { languageOf } from '@firstword/agents-plugin-tts/chunking';
import { predictTurnComplete } from '../../src/turn/transcript-detector.js';
import { CONFIG_DEFAULTS } from '../../src/config/defaults.js';
import { EARLY_ACK_SILENCE_BOUND_MS, PreflightSTT, answerRevisions, createSpeechToText, earlyFinalTiming, shareVad, wordsDueAfterEndMs } from '../../src/stt/index.js';
import { startOpenAIServer } from '../../test/servers/openai-server.js';
import { DEFAULT_STT_PROFILES, type SttProfile, parseSttProfiles } from './stt-profiles.js';
import { createTurnDetection, earlyAckJudge } from '../../src/turn/detection.js';
import { startResembleServer } from '../../test/servers/resemble-server.js';
import { TURN_CORPUS } from './corpus.js';
import type { CorpusUtterance } from './corpus-types.js';
import { type SettingFigures, settingFigures } from './figures.js';
import { type BenchSetting, FIRSTWORD, FRAMEWORK_DEFAULTS, NAMED_SETTINGS, parseVariant } from './settings.js';
import { type HumanBandRun, type HumanRun, humanReport, loadHumanRun, pauseWords, printHumanReport } from './human-run.js';
import { type PauseWords, playedTurn } from './pause-bands.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    limit: { type: 'string' },
    variant: { type: 'string', multiple: true, default: [] },
    only: { type: 'string' },
    json: { type: 'string' },
    stt: { type: 'string' },
    human: { type: 'string' },
    language: { type: 'string' },
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
  // By default the baseline and the product; aggressive-vad and variants when asked for.
  if (!args.only) return [FRAMEWORK_DEFAULTS, FIRSTWORD, ...args.variant!.map(parseVariant)];
  const wanted = new Set(args.only.split(','));
  const chosen = all.filter((s) => wanted.has(s.name));
  if (chosen.length === 0) throw new Error(`--only matched no setting (have: ${all.map((s) => s.name).join(', ')})`);
  return chosen;
}

function selectCorpus(): CorpusUtterance[] {
  const limit = args.limit === undefined ? undefined : Number(args.limit);
  if (limit !== undefined) return TURN_CORPUS.slice(0, limit);
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

/** One utterance to play: its id for the log, and the pause after each piece but the last (ms). */
interface PlayItem {
  id: string;
  pauseMs: number[];
}

async function runSetting(
  setting: BenchSetting,
  profile: SttProfile,
  corpus: readonly PlayItem[],
  rendered: readonly RenderedUtterance[],
  serverUrl: string,
): Promise<{ figures: SettingFigures; turns: SpokenTurn[] }> {
  const openai = await startOpenAIServer(profile.server);
  const engine = new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: serverUrl, sampleRate: 22050 });
  await engine.prewarm();
  const library = setting.ack === 'off' ? undefined : await prepareAcknowledgements(engine, { phrases: EARLY_ACK_PHRASES });
  // One Silero inference per session, its boundaries shared with the STT and the detector, as in the worker.
  const vad = shareVad(await silero.VAD.load({ minSilenceDuration: setting.silenceMs }));
  const llm = new ReplayLLM({
    replies: [],
    fallback: (prompt) => REPLIES[languageOf(prompt)],
    firstTokenDelayMs: Number(args['first-token-ms']),
    tokensPerSecond: Number(args['tokens-per-second']),
  });
  const turn = setting.turn
    ? { ...setting.turn, detection: createTurnDetection(setting.turn.detector, { speech: vad.speech }, { ...setting.turn, wordLagMs: CONFIG_DEFAULTS.turn.wordLagMs }) }
    : undefined;
  const judge = turn ? earlyAckJudge(turn.detection) : { predict: predictTurnComplete, silenceMayDecide: true };
  const predict = setting.ack === 'early-vad' ? () => 1 : judge.predict;
  const recognizer = createSpeechToText({
    apiKey: 'test-key',
    baseURL: openai.url,
    model: profile.model,
    vad: vad.stt,
    ...(setting.turn?.earlyFinal ? { earlyFinal: earlyFinalTiming({ ...setting.turn, silenceMs: setting.silenceMs, wordLagMs: CONFIG_DEFAULTS.turn.wordLagMs }) } : {}),
  });
  const session = await SpokenSession.start({
    vad: vad.session,
    llm,
    tts: engine,
    turn,
    earlyAck: library
      ? {
          library,
          predict,
          ...(profile.model === 'gpt-realtime-whisper' && judge.silenceMayDecide ? { silenceBoundMs: EARLY_ACK_SILENCE_BOUND_MS } : {}),
          ...(profile.model === 'gpt-realtime-whisper' ? { wordsDueMs: wordsDueAfterEndMs({ silenceMs: setting.silenceMs, wordLagMs: CONFIG_DEFAULTS.turn.wordLagMs }) } : {}),
        }
      : undefined,
    // Each piece's words, with the length of its voice, before it is played: the server hears them with it.
    stt: { stt: recognizer, onPiece: (piece) => openai.queueTranscripts([{ text: piece.text, voicedMs: piece.lastVoicedAt - piece.firstVoicedAt }]) },
  });
  const revisions = recognizer instanceof PreflightSTT ? answerRevisions(session.session, recognizer) : undefined;
  const turns: SpokenTurn[] = [];
  try {
    for (const [i, utterance] of rendered.entries()) {
      const spoken = await session.say(utterance, { cutReplyAfterMs: 400 });
      turns.push(spoken);
      const f = (v?: number) => (v === undefined ? '   –' : `${Math.round(v)}`.padStart(4));
      process.stderr.write(
        `  ${setting.name} ${profile.name} ${corpus[i]!.id.padEnd(18)} sound ${f(spoken.firstSoundMs)} content ${f(spoken.firstContentMs)} ` +
          `ready ${f(spoken.replyReadyMs)} held ${f(spoken.contentHeldMs)} ms${spoken.draftKept ? ' draft kept' : ''}` +
          `${spoken.falseEnds > 0 ? `  FALSE END ×${spoken.falseEnds}` : ''}${spoken.interruptStuck ? '  INTERRUPT STUCK' : ''}\n`,
      );
      // The caller waits a moment before the next utterance, as after any answer.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    // Sockets first: the plugin (1.9) then detaches its VAD stream before its input ends, which
    // would otherwise throw ("WritableStream is locked", agents vad.ts endInput).
    revisions?.close();
    if (recognizer instanceof PreflightSTT) {
      const c = recognizer.counts;
      process.stderr.write(`  ${setting.name} ${profile.name}: early finals ${c.earlyFinals}, confirmed ${c.earlyConfirmed}, revised ${c.earlyRevised} (answered again ${revisions?.counts.reanswered ?? 0})\n`);
    }
    openai.dropAllConnections();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await session.close();
    await recognizer.close();
    await llm.aclose();
    await engine.close();
    await openai.close();
  }
  const withPauses = turns.map((t, i) => ({ turn: t, pauseMs: corpus[i]!.pauseMs }));
  return { figures: settingFigures(setting.name, profile.name, withPauses), turns };
}

function table(rows: SettingFigures[]): string {
  const f = (v: number | undefined) => (v === undefined ? '–' : `${Math.round(v)}`);
  const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
  const header = ['setting', 'STT', 'first sound p50/p90', 'first content p50/p90', 'reply ready p50', 'held by ack p50/p90', 'false ends ≤700 ms', 'false ends 1 s', 'drafts kept', 'drafts dropped/turn', 'CPU ms/turn', 'unanswered'];
  const lines = rows.map((r) => [
    r.name,
    r.stt,
    `${f(r.firstSoundP50Ms)} / ${f(r.firstSoundP90Ms)} ms`,
    `${f(r.firstContentP50Ms)} / ${f(r.firstContentP90Ms)} ms`,
    `${f(r.replyReadyP50Ms)} ms`,
    `${f(r.contentHeldP50Ms)} / ${f(r.contentHeldP90Ms)} ms`,
    `${pct(r.falseEndRate)} of ${r.pauses}`,
    `${pct(r.falseEndRateLongPauses)} of ${r.longPauses}`,
    pct(r.draftsKept),
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
  const human: HumanRun | undefined = args.human ? await loadHumanRun(args.human, args.language, args.limit) : undefined;
  const profiles = parseSttProfiles(args.stt ?? (human ? 'live:300/150' : DEFAULT_STT_PROFILES.join(',')));
  const serverVad = parseSttProfiles('server-vad')[0]!;
  const espeak = human ? [] : selectCorpus();
  const corpus: Array<PlayItem & { language: string; pauseWords?: PauseWords[] }> = human
    ? human.turns.map((t) => ({ id: t.id, language: t.language, pauseMs: t.pausesMs, pauseWords: pauseWords(t) }))
    : espeak.map((u) => ({ id: u.id, language: u.language, pauseMs: u.pieces.slice(0, -1).map((p) => p.pauseAfterMs ?? 0) }));
  if (!human) process.stderr.write(`rendering ${corpus.length} utterances with the local voice…\n`);
  const rendered = human ? human.utterances : await render(espeak);
  const server = await startResembleServer({ firstByteDelayMs: Number(args['first-byte-ms']), msPerChar: 60, realTimeFactor: 0.2 });
  const rows: SettingFigures[] = [];
  const bandRuns: HumanBandRun[] = [];
  try {
    for (const setting of settings) {
      // The baseline is today's worker: server-vad only, once.
      const runs = setting === FRAMEWORK_DEFAULTS ? [serverVad] : profiles;
      for (const profile of runs) {
        const { figures, turns } = await runSetting(setting, profile, corpus, rendered, server.url);
        rows.push(figures);
        bandRuns.push({ setting: setting.name, stt: profile.name, played: turns.map((t, i) => playedTurn(t, corpus[i]!.language, corpus[i]!.pauseMs, corpus[i]!.pauseWords)) });
      }
    }
  } finally {
    await server.close();
  }
  console.log(
    `bench:turn — ${corpus.length} spoken turns per run (${corpus.filter((u) => u.language === 'ko').length} Korean), the OpenAI plugin's STT against the ` +
      `local server (server-vad: gpt-4o-transcribe, final after the server's commit; live:LAG/FINAL: gpt-realtime-whisper, words LAG ms after their audio, ` +
      `final FINAL ms after the plugin's commit), LLM first token ${args['first-token-ms']} ms at ${args['tokens-per-second']} tokens/s, ` +
      `TTS first byte ${args['first-byte-ms']} ms. Times from the caller's last voiced sample.`,
  );
  console.log(table(rows));
  if (human) printHumanReport(humanReport(human, bandRuns));
  const base = rows.find((r) => r.name === 'framework-defaults');
  if (base) {
    for (const r of rows.filter((x) => x !== base)) {
      const ratio = (a?: number, b?: number) => (a === undefined || b === undefined || b === 0 ? '–' : `×${(a / b).toFixed(2)}`);
      console.log(`${r.name} (${r.stt}) vs framework-defaults: first sound p50 ${ratio(r.firstSoundP50Ms, base.firstSoundP50Ms)}, first content p50 ${ratio(r.firstContentP50Ms, base.firstContentP50Ms)}`);
    }
  }
  if (args.json) {
    mkdirSync(dirname(args.json), { recursive: true });
    const settingsJson = rows.map((r) => ({
      name: r.name,
      stt: r.stt,
      firstSoundP50Ms: r.firstSoundP50Ms,
      firstSoundP90Ms: r.firstSoundP90Ms,
      firstContentP50Ms: r.firstContentP50Ms,
      firstContentP90Ms: r.firstContentP90Ms,
      falseEndRate: r.falseEndRate,
      pauses: r.pauses,
      draftsKept: r.draftsKept,
      draftsDiscardedPerTurn: r.draftsDiscardedPerTurn,
      cpuMsPerTurn: r.cpuMsPerTurn,
    }));
    const humanJson = human ? humanReport(human, bandRuns) : undefined;
    writeFileSync(args.json, `${JSON.stringify({ settings: settingsJson, ...(humanJson ? { human: humanJson } : {}) }, null, 2)}\n`);
  }
  process.exit(0);
}

await main();
