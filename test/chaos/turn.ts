/**
 * One turn against a TTS: push the deltas, read the audio, optionally barge in after a number of
 * frames, and report what was played — every await bounded.
 */
import { type APIConnectOptions, tts } from '@livekit/agents';
import type { FirstwordTTS } from '@firstword/agents-plugin-tts';

export interface TurnInput {
  deltas: string[];
  /** Close the stream once this many frames were read (0: right after the text was pushed). */
  interruptAfterFrames?: number;
  /** The LLM pauses this long before delta `beforeDelta` (long enough for a Cartesia context to expire). */
  pause?: { beforeDelta: number; ms: number };
  connOptions: APIConnectOptions;
  /** The turn must end (audio, failure or interruption) within this long. */
  boundMs: number;
}

export interface TurnOutput {
  streamId: string;
  samples: Int16Array;
  frames: number;
  endOfStream: boolean;
  /** The stream was closed by the listener before it ended. */
  interrupted: boolean;
  /** Every frame's sample rate was the engine's. */
  sampleRateOk: boolean;
  /** The turn did not end within `boundMs`. */
  hung: boolean;
}

export function startTurn(engine: FirstwordTTS, input: TurnInput): { streamId: string; done: Promise<TurnOutput> } {
  const stream = engine.stream({ connOptions: input.connOptions });
  return { streamId: stream.id, done: runTurn(engine, stream, input) };
}

async function runTurn(engine: FirstwordTTS, stream: tts.SynthesizeStream & { id: string }, input: TurnInput): Promise<TurnOutput> {
  const chunks: Int16Array[] = [];
  let frames = 0;
  let endOfStream = false;
  let interrupted = false;
  let sampleRateOk = true;
  let closedByUs = false; // a barge-in or a hung turn: an LLM would stop there too
  const pushing = (async () => {
    for (const [i, d] of input.deltas.entries()) {
      if (input.pause && i === input.pause.beforeDelta) await new Promise((r) => setTimeout(r, input.pause!.ms));
      if (closedByUs) return;
      stream.pushText(d);
    }
    stream.endInput();
  })();
  if (!input.pause) await pushing;
  if (input.interruptAfterFrames === 0) {
    closedByUs = true;
    stream.close();
    interrupted = true;
  }
  const read = (async () => {
    if (interrupted) return;
    for await (const ev of stream) {
      if (ev === tts.SynthesizeStream.END_OF_STREAM) {
        endOfStream = true;
        break;
      }
      frames++;
      if (ev.frame.sampleRate !== engine.sampleRate) sampleRateOk = false;
      chunks.push(ev.frame.data.slice(0, ev.frame.samplesPerChannel));
      if (input.interruptAfterFrames !== undefined && frames >= input.interruptAfterFrames) {
        closedByUs = true;
        stream.close();
        interrupted = true;
        break;
      }
    }
  })();
  let timer: NodeJS.Timeout | undefined;
  const hung = await Promise.race([
    read.then(() => false),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), input.boundMs);
    }),
  ]);
  clearTimeout(timer);
  if (hung) {
    closedByUs = true;
    stream.close();
  }
  await pushing;
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const samples = new Int16Array(total);
  let o = 0;
  for (const c of chunks) {
    samples.set(c, o);
    o += c.length;
  }
  return { streamId: stream.id, samples, frames, endOfStream, interrupted, sampleRateOk, hung };
}
