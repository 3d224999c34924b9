/**
 * Some log lines come in floods: under CPU overload the Silero VAD warns on every inference window
 * it falls behind on ("VAD inference is slower than realtime"; one capacity run logged 33,301).
 * Each costs a write, and the flood buries every other line. For each such message the first line
 * passes; any more within the window are held back and counted, and when the window ends one
 * summary line says how many: at most one line per window per message, however long it lasts.
 */

/** Messages that repeat per audio window under load (@livekit/agents-plugin-silero, @livekit/agents' inference VAD). */
export const FLOODING_MESSAGES: readonly string[] = ['VAD inference is slower than realtime'];
export const REPEAT_WINDOW_MS = 10_000;

export interface RepeatLimiterOptions {
  /** Lines that contain one of these are limited, each message on its own. */
  messages?: readonly string[];
  windowMs?: number;
  /** Where summary lines go (the stream the lines were headed for). */
  emit: (line: string) => void;
}

interface Held {
  timer: NodeJS.Timeout;
  count: number;
  last?: string;
}

export class RepeatLimiter {
  readonly #messages: readonly string[];
  readonly #windowMs: number;
  readonly #emit: (line: string) => void;
  readonly #held = new Map<string, Held>();

  constructor(options: RepeatLimiterOptions) {
    this.#messages = options.messages ?? FLOODING_MESSAGES;
    this.#windowMs = options.windowMs ?? REPEAT_WINDOW_MS;
    this.#emit = options.emit;
  }

  /** Whether `line` (one log line) is written now; when not, it is counted into the next summary. */
  admit(line: string): boolean {
    const message = this.#messages.find((m) => line.includes(m));
    if (message === undefined) return true;
    const held = this.#held.get(message);
    if (held === undefined) {
      this.#held.set(message, { timer: this.#startWindow(message), count: 0 });
      return true;
    }
    held.count += 1;
    held.last = line;
    return false;
  }

  /** Writes the summary of whatever is held now (at exit: nothing counted is lost). */
  flush(): void {
    for (const [message, held] of this.#held) {
      clearTimeout(held.timer);
      this.#summarize(held);
      this.#held.delete(message);
    }
  }

  #startWindow(message: string): NodeJS.Timeout {
    const timer = setTimeout(() => this.#endWindow(message), this.#windowMs);
    // A quiet process must be free to exit with a window open.
    timer.unref();
    return timer;
  }

  #endWindow(message: string): void {
    const held = this.#held.get(message);
    if (held === undefined) return;
    if (held.count === 0) {
      this.#held.delete(message);
      return;
    }
    this.#summarize(held);
    // Still flooding: the summary opens the next window, so the next line is held too.
    this.#held.set(message, { timer: this.#startWindow(message), count: 0 });
  }

  #summarize(held: Held): void {
    if (held.count === 0 || held.last === undefined) return;
    this.#emit(summaryLine(held.last, held.count, this.#windowMs));
  }
}

/**
 * The last held line, with how many were held (itself included) in the window. A JSON line (pino)
 * stays JSON with two more fields, so log queries on its message still find it; any other line
 * (pino-pretty in development) gets the count appended.
 */
export function summaryLine(last: string, count: number, windowMs: number): string {
  const windowS = windowMs / 1000;
  const text = last.trimEnd();
  if (text.startsWith('{')) {
    try {
      const fields = JSON.parse(text) as Record<string, unknown>;
      return `${JSON.stringify({ ...fields, repeated: count, repeatedWithinS: windowS })}\n`;
    } catch {
      // not JSON after all: the plain form below
    }
  }
  return `${text} (repeated ${count} times within ${windowS} s)\n`;
}
