/**
 * Start-buffer benchmark (not a test): what a jitter buffer before the first frame
 * (`startBufferMs`, packages/agents-plugin-tts/src/driver/start-buffer.ts) buys against bursty delivery, and what it costs in
 * first audio. Resemble is reported to deliver in bursts with 300-450 ms gaps (Pipecat keeps a
 * ~1 s buffer for it); Cartesia streams smoothly.
 *
 * Room-less. For each delivery pattern of the local Resemble server — smooth, and bursts of N ms
 * of audio then a gap (its `burst: { audioMs, gapMs }` knob) — one ResembleTTS per buffer size
 * speaks the same reply at the same time (each on its own socket), so every size meets the same
 * server and machine load as the no-buffer run it is compared with. Frames are timed as they
 * leave the stream; playback is simulated from those times (bench/playout.ts: it starts with the
 * first frame, each frame plays for its length, a late frame is a hole).
 *
 *   npm run bench:jitter -- [--reps 3] [--buffers 0,100,200,300,450,600,800,1000]
 */
import { initializeLogger, tts as ttsNs } from '@livekit/agents';
import { ResembleTTS } from '@firstword/agents-plugin-tts';
import { startResembleServer, type ResembleServerOptions } from '../test/servers/resemble-server.js';
import { ArgsError, readFlags } from './flags.js';
import { type ArrivedFrame, mean, simulatePlayout } from './playout.js';

const REPLY = 'Sure, I can check that for you. Your order left the warehouse this morning and arrives tomorrow.';
const SAMPLE_RATE = 16000;
/** A frame later than this (event-loop noise on a loaded machine) counts as a hole. */
const TOLERANCE_MS = 10;
/** Per pattern: the smallest buffer that cuts its silence by this much. */
const PATTERN_CUT = 0.9;
/**
 * Overall: the smallest buffer that cuts the bursty patterns' silence, summed, by this much. A
 * buffer moves silence from inside the reply to before it (it cannot make audio come sooner), so
 * the pick is where most holes are gone before the first-audio cost keeps growing.
 */
const OVERALL_CUT = 0.75;

interface Pattern {
  name: string;
  server: Partial<ResembleServerOptions>;
}

// Bursts that carry about as much audio as the gap after them: the provider keeps up with real
// time on average (rtf 0.1 within a burst), yet each gap opens a hole unless audio was banked.
const PATTERNS: Pattern[] = [
  { name: 'smooth (rtf 0.4)', server: { firstByteDelayMs: 150, realTimeFactor: 0.4 } },
  { name: 'bursts 300 ms / 300 ms gap', server: { firstByteDelayMs: 150, realTimeFactor: 0.1, burst: { audioMs: 300, gapMs: 300 } } },
  { name: 'bursts 450 ms / 450 ms gap', server: { firstByteDelayMs: 150, realTimeFactor: 0.1, burst: { audioMs: 450, gapMs: 450 } } },
];

interface Settings {
  reps: number;
  buffers: number[];
}

interface Sample {
  firstAudioMs: number;
  underruns: number;
  silentMs: number;
}

function parse(argv: string[]): Settings | 'help' {
  const s: Settings = { reps: 3, buffers: [0, 100, 200, 300, 450, 600, 800, 1000] };
  const help = readFlags(argv, (read) => {
    switch (read.flag) {
      case '--reps': s.reps = read.num(1, 50, true); break;
      case '--buffers': {
        const values = read.value().split(',').map((v) => Number(v.trim()));
        if (values.some((v) => !Number.isInteger(v) || v < 0 || v > 2000)) throw new ArgsError('--buffers takes integers in [0, 2000], comma-separated');
        s.buffers = [...new Set([0, ...values])].sort((a, b) => a - b);
        break;
      }
      case '--help': return 'help';
      default: throw new ArgsError(`unknown flag ${read.flag} (see --help)`);
    }
  });
  return help ?? s;
}

/** One reply through one TTS: when each frame left the stream, relative to the reply's start. */
async function speakTimed(engine: ResembleTTS): Promise<Sample> {
  const stream = engine.stream();
  const start = performance.now();
  for (let i = 0; i < REPLY.length; i += 4) stream.pushText(REPLY.slice(i, i + 4));
  stream.endInput();
  const frames: ArrivedFrame[] = [];
  for await (const ev of stream) {
    if (ev === ttsNs.SynthesizeStream.END_OF_STREAM) break;
    const { frame } = ev as ttsNs.SynthesizedAudio;
    frames.push({ at: performance.now() - start, ms: (frame.samplesPerChannel / frame.sampleRate) * 1000 });
  }
  if (frames.length === 0) throw new Error('a reply produced no audio');
  const playout = simulatePlayout(frames, TOLERANCE_MS);
  return { firstAudioMs: frames[0]!.at, underruns: playout.underruns, silentMs: playout.underrunMs };
}

/** Every buffer size speaks the reply at once, against one server with this pattern. */
async function runPattern(pattern: Pattern, s: Settings): Promise<Map<number, Sample[]>> {
  const server = await startResembleServer({ msPerChar: 60, ...pattern.server });
  const engines = new Map(
    s.buffers.map((ms) => [ms, new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: server.url, sampleRate: SAMPLE_RATE, startBufferMs: ms })]),
  );
  const samples = new Map(s.buffers.map((ms) => [ms, [] as Sample[]]));
  try {
    await Promise.all([...engines.values()].map((e) => e.prewarm()));
    for (let rep = 0; rep < s.reps; rep++) {
      const results = await Promise.all([...engines].map(async ([ms, e]) => [ms, await speakTimed(e)] as const));
      for (const [ms, sample] of results) samples.get(ms)!.push(sample);
    }
    return samples;
  } finally {
    await Promise.all([...engines.values()].map((e) => e.close()));
    await server.close();
  }
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
const ratio = (value: number, none: number) => (none > 0 ? `${fmt(value / none, 2)}x` : value > 0 ? 'worse' : '-');

async function main(): Promise<void> {
  const settings = parse(process.argv.slice(2));
  if (settings === 'help') {
    process.stdout.write('npm run bench:jitter -- [--reps 3] [--buffers 0,100,200,300,450,600,800,1000]\n');
    return;
  }
  initializeLogger({ pretty: false, level: 'fatal' });
  const audioS = (([...REPLY].length * 60) / 1000).toFixed(1);
  process.stdout.write(
    `start buffer vs delivery pattern: ${audioS} s reply at ${SAMPLE_RATE / 1000} kHz, ${settings.reps} rep(s) each, ` +
      `first byte 150 ms per request; ratios against no buffer in the same run\n\n`,
  );
  process.stdout.write(
    `${'pattern'.padEnd(28)} ${'buffer'.padStart(6)} ${'first audio'.padStart(11)} ${'added'.padStart(6)} ` +
      `${'underruns'.padStart(9)} ${'silent ms'.padStart(9)} ${'underruns vs none'.padStart(17)} ${'silent vs none'.padStart(14)}\n`,
  );
  const burstySilent = new Map(settings.buffers.map((ms) => [ms, 0]));
  const burstyAdded = new Map(settings.buffers.map((ms) => [ms, [] as number[]]));
  for (const pattern of PATTERNS) {
    const samples = await runPattern(pattern, settings);
    const stat = (ms: number) => {
      const list = samples.get(ms)!;
      return {
        first: mean(list.map((x) => x.firstAudioMs)),
        underruns: mean(list.map((x) => x.underruns)),
        silent: mean(list.map((x) => x.silentMs)),
      };
    };
    const none = stat(0);
    let pick: number | undefined;
    for (const ms of settings.buffers) {
      const st = stat(ms);
      if (pick === undefined && st.silent <= none.silent * (1 - PATTERN_CUT)) pick = ms;
      if (pattern.server.burst) {
        burstySilent.set(ms, burstySilent.get(ms)! + st.silent);
        burstyAdded.get(ms)!.push(st.first - none.first);
      }
      process.stdout.write(
        `${pattern.name.padEnd(28)} ${`${ms}`.padStart(6)} ${`${fmt(st.first)} ms`.padStart(11)} ${`+${fmt(st.first - none.first)}`.padStart(6)} ` +
          `${fmt(st.underruns, 1).padStart(9)} ${fmt(st.silent).padStart(9)} ${ratio(st.underruns, none.underruns).padStart(17)} ${ratio(st.silent, none.silent).padStart(14)}\n`,
      );
    }
    const picked = pick === undefined ? 'none of these' : `${pick} ms (+${fmt(stat(pick).first - none.first)} ms first audio)`;
    process.stdout.write(`${''.padEnd(28)} smallest buffer cutting silent ms by >= ${PATTERN_CUT * 100}%: ${none.silent === 0 ? '0 ms (no silence to cut)' : picked}\n\n`);
  }
  const noneSilent = burstySilent.get(0)!;
  const overall = settings.buffers.find((ms) => burstySilent.get(ms)! <= noneSilent * (1 - OVERALL_CUT));
  process.stdout.write(
    overall === undefined
      ? `no buffer cuts the bursty patterns' silent ms by >= ${OVERALL_CUT * 100}%\n`
      : `pick: ${overall} ms, the smallest buffer cutting the bursty patterns' silent ms by >= ${OVERALL_CUT * 100}% ` +
          `(${fmt(noneSilent)} -> ${fmt(burstySilent.get(overall)!)} ms summed, ${fmt(mean(burstyAdded.get(overall)!))} ms more first audio on average)\n`,
  );
}

main().then(
  () => process.exit(0), // rtc-node's native handles would keep the process alive
  (error: unknown) => {
    process.stderr.write(`${error instanceof ArgsError ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
