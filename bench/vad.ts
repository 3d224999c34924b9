/**
 * VAD benchmark (not a test): what one Silero inference per call saves over two.
 *
 * With a live transcription model the OpenAI plugin commits at a VAD's end of speech and runs its
 * own stream on the VAD it is given; given the session's Silero that is a second model stream over
 * the same frames (`before`). `src/stt/shared-vad.ts` gives it the session stream's boundaries
 * instead (`after`). For each utterance — Korean and English, short and long, eSpeak speech, each
 * followed by 800 ms of silence, repeated to fill `--seconds` of audio — both arrangements hear the
 * same 20 ms frames as fast as they can take them, one after the other, `--reps` times; CPU is the
 * process's (onnxruntime's threads included) per second of audio, and the ends of speech each side
 * saw are counted (the two streams of `before` are compared with each other).
 *
 *   npm run bench:vad -- [--seconds 30] [--reps 3] [--json FILE]
 */
import { writeFileSync } from 'node:fs';
import { type VAD, type VADEvent, VADEventType, type VADStream, initializeLogger } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';
import type { AudioFrame } from '@livekit/rtc-node';
import { EspeakSynthesizer } from '../src/local-voice/synthesizer.js';
import type { VoiceLanguage } from '../src/local-voice/worker-messages.js';
import { shareVad } from '../src/stt/shared-vad.js';
import { framesOf, speak } from '../test/servers/openai/test-audio.js';
import { ArgsError, readFlags } from './flags.js';

const UTTERANCES: { name: string; language: VoiceLanguage; text: string }[] = [
  { name: 'en short', language: 'en-us', text: 'Yes, please.' },
  { name: 'en long', language: 'en-us', text: 'Could you book a table for four people at seven tonight, somewhere quiet near the station?' },
  { name: 'ko short', language: 'ko', text: '네, 좋아요.' },
  { name: 'ko long', language: 'ko', text: '오늘 저녁 일곱 시에 역 근처 조용한 식당에 네 명 자리를 예약해 주실 수 있을까요?' },
];
const SILENCE_AFTER_MS = 800;

interface Settings {
  seconds: number;
  reps: number;
  json: string | undefined;
}

interface Side {
  cpuMsPerAudioS: number;
  /** Ends of speech the session's stream saw, and the STT's. */
  sessionEnds: number;
  sttEnds: number;
}

function parse(argv: string[]): Settings | 'help' {
  const s: Settings = { seconds: 30, reps: 3, json: undefined };
  const help = readFlags(argv, (read) => {
    switch (read.flag) {
      case '--seconds': s.seconds = read.num(5, 600, true); break;
      case '--reps': s.reps = read.num(1, 20, true); break;
      case '--json': s.json = read.value(); break;
      case '--help': return 'help';
      default: throw new ArgsError(`unknown flag ${read.flag}`);
    }
  });
  return help ?? s;
}

/** Reads a stream's events until the model has judged `audioMs` of audio; counts its ends of speech. */
async function drain(stream: VADStream, audioMs: number, follows: boolean, ends: { count: number }): Promise<void> {
  for await (const event of stream as AsyncIterable<VADEvent>) {
    if (event.type === VADEventType.END_OF_SPEECH) ends.count++;
    // A following stream only sees boundaries; the session's stream says when all was judged.
    if (!follows && event.type === VADEventType.INFERENCE_DONE && event.timestamp >= audioMs - 64) return;
  }
}

async function run(frames: AudioFrame[], audioMs: number, arrangement: 'before' | 'after', vad: VAD): Promise<Side> {
  const shared = shareVad(vad);
  const sessionStream = arrangement === 'before' ? vad.stream() : shared.session.stream();
  const sttStream = arrangement === 'before' ? vad.stream() : shared.stt.stream();
  const sessionEnds = { count: 0 };
  const sttEnds = { count: 0 };
  const start = process.cpuUsage();
  const session = drain(sessionStream, audioMs, false, sessionEnds);
  const stt = drain(sttStream, audioMs, arrangement === 'after', sttEnds);
  for (const frame of frames) {
    sessionStream.pushFrame(frame);
    sttStream.pushFrame(frame);
  }
  await session;
  if (arrangement === 'before') await stt;
  const used = process.cpuUsage(start);
  sessionStream.close();
  sttStream.close();
  return { cpuMsPerAudioS: (used.user + used.system) / 1000 / (audioMs / 1000), sessionEnds: sessionEnds.count, sttEnds: sttEnds.count };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const settings = parse(process.argv.slice(2));
  if (settings === 'help') {
    console.info('npm run bench:vad -- [--seconds 30] [--reps 3] [--json FILE]');
    return;
  }
  initializeLogger({ pretty: false, level: 'error' });
  const synthesizer = await EspeakSynthesizer.start();
  const vad = await silero.VAD.load();
  const rows: Record<string, unknown>[] = [];
  console.info(`| utterance | CPU per audio s, before (2 streams) | after (shared) | after ÷ before | ends of speech: session / STT, before | after |`);
  console.info('|---|---|---|---|---|---|');
  for (const utterance of UTTERANCES) {
    const speech = await speak(synthesizer, utterance.text, utterance.language);
    const once = framesOf(speech, { silenceMs: SILENCE_AFTER_MS });
    const onceMs = (speech.samples.length / speech.sampleRate) * 1000 + SILENCE_AFTER_MS;
    const repeats = Math.max(1, Math.round((settings.seconds * 1000) / onceMs));
    const frames = Array.from({ length: repeats }, () => once).flat();
    const audioMs = repeats * onceMs;
    const sides: Record<'before' | 'after', Side[]> = { before: [], after: [] };
    for (let rep = 0; rep < settings.reps; rep++) {
      // Alternate which side goes first, so warm-up favours neither.
      const order = rep % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
      for (const side of order) sides[side].push(await run(frames, audioMs, side, vad));
    }
    const before = median(sides.before.map((s) => s.cpuMsPerAudioS));
    const after = median(sides.after.map((s) => s.cpuMsPerAudioS));
    const b = sides.before[0]!;
    const a = sides.after[0]!;
    console.info(`| ${utterance.name} (${repeats} × ${Math.round(onceMs)} ms) | ${before.toFixed(1)} ms | ${after.toFixed(1)} ms | ${(after / before).toFixed(2)} | ${b.sessionEnds} / ${b.sttEnds} | ${a.sessionEnds} / ${a.sttEnds} |`);
    rows.push({ utterance: utterance.name, language: utterance.language, repeats, audioMs: Math.round(audioMs), before: sides.before, after: sides.after, medianCpuMsPerAudioS: { before, after }, ratio: after / before });
  }
  await synthesizer.close();
  if (settings.json) writeFileSync(settings.json, `${JSON.stringify({ bench: 'vad', date: new Date().toISOString(), settings, rows }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error instanceof ArgsError ? `${error.message} (see --help)` : error);
  process.exitCode = 1;
});
