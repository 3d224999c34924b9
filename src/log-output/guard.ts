/**
 * The one place the process's log output is rewritten: `stream.write` wrapped (once per stream)
 * so that each line has its phone numbers masked (src/sip/log-privacy.ts) and floods of one
 * message are cut to a line per window (repeat-limiter.ts). The framework's pino logger writes
 * one line per call, as a string.
 */
import { maskPhoneNumbersIn } from '../sip/log-privacy.js';
import { RepeatLimiter, type RepeatLimiterOptions } from './repeat-limiter.js';

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;

const guarded = new WeakSet<NodeJS.WritableStream>();

export function guardLogOutput(stream: NodeJS.WriteStream = process.stdout, limits: Omit<RepeatLimiterOptions, 'emit'> = {}): void {
  if (guarded.has(stream)) return;
  guarded.add(stream);
  const write = stream.write.bind(stream) as Write;
  const limiter = new RepeatLimiter({ ...limits, emit: (line) => write(maskPhoneNumbersIn(line)) });
  if (stream === process.stdout || stream === process.stderr) process.once('exit', () => limiter.flush());

  /** The lines of `text` that are written now, or the text itself when all of them are. */
  const admitted = (text: string): string => {
    const firstBreak = text.indexOf('\n');
    if (firstBreak === -1 || firstBreak === text.length - 1) return limiter.admit(text) ? text : '';
    const lines = text.split(/(?<=\n)/);
    const kept = lines.filter((line) => limiter.admit(line));
    return kept.length === lines.length ? text : kept.join('');
  };

  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    let text: string;
    if (typeof chunk === 'string') text = chunk;
    // pino hands strings; a Buffer (or typed array) is decoded as the UTF-8 it is.
    else if (chunk instanceof Uint8Array) {
      text = Buffer.from(chunk).toString('utf8');
      rest = rest.filter((r) => typeof r === 'function');
    } else return write(chunk, ...rest);
    const kept = admitted(text);
    if (kept === '' && text !== '') {
      // Held back: the caller's callback still runs, as after a write.
      const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      if (callback) process.nextTick(callback);
      return true;
    }
    return write(maskPhoneNumbersIn(kept), ...rest);
  }) as typeof stream.write;
}
