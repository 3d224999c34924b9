/**
 * One Cartesia context driven through firstword's codec: the messages are the codec's (a field
 * changed where a probe needs it), and every frame of the context is decoded by the same codec in
 * wire order, so "firstword reads" is what the worker would do with that frame at that moment.
 */
import type { CartesiaCodec } from '@firstword/agents-plugin-tts/protocol';
import type { CheckScope, CheckSettings } from './check.js';
import { count, quote, reading } from './format.js';
import { type Frame, type ProbeSocket, describeClose, now, sleep } from './probe-socket.js';
import type { CartesiaTarget } from './targets.js';

export const typeOf = (f: Frame): unknown => f.json?.type;
const contextOf = (f: Frame): unknown => f.json?.context_id;
/** An error that names no context belongs to whoever is waiting (connection-level). */
const unattributedError = (f: Frame) => typeOf(f) === 'error' && (contextOf(f) === undefined || contextOf(f) === null);

export class ContextProbe {
  readonly track: string;
  readonly socket: ProbeSocket;
  readonly codec: CartesiaCodec;
  #readings = new Map<Frame, string>();
  #cursor = 0;

  constructor(socket: ProbeSocket, codec: CartesiaCodec) {
    this.socket = socket;
    this.codec = codec;
    this.track = codec.newTrack();
    this.#cursor = socket.frames.length;
  }

  /** Frames of this context (and unattributed errors) since it began. */
  frames(from = 0): Frame[] {
    return this.socket.frames.slice(Math.max(from, 0)).filter((f) => this.#mine(f));
  }

  /** firstword's text message for this context; `change` sets (or, with undefined, removes) fields. */
  send(text: string, opts: { opens: boolean; closes: boolean; change?: Record<string, unknown> }): number {
    this.#catchUp();
    const [message] = this.codec.encode({ track: this.track, text, opensTrack: opts.opens, closesTrack: opts.closes });
    return this.socket.send(withChanges(message!, opts.change));
  }

  /** The closing message firstword sends for a context whose text all went out open. */
  close(): number {
    this.#catchUp();
    return this.socket.send(this.codec.encodeClose(this.track)[0]!);
  }

  cancel(): number {
    this.#catchUp();
    return this.socket.send(this.codec.encodeCancel(this.track)[0]!);
  }

  /** The context's next `done` or error (from frame index `from`), within `ms`. */
  terminal(ms: number, from: number): Promise<Frame | undefined> {
    return this.socket.next((f) => this.#mine(f) && (typeOf(f) === 'done' || typeOf(f) === 'error'), ms, from);
  }

  /**
   * Waits until the audio sent so far is out: its `flush_done` (sent per input when the server does
   * not buffer), a `done`/error, or `quietMs` without a chunk after the first one.
   */
  async settle(settings: CheckSettings, from: number): Promise<{ lastAudioAt?: number; terminal?: Frame }> {
    const first = await this.socket.next((f) => this.#mine(f) && ['chunk', 'done', 'error'].includes(String(typeOf(f))), settings.answerMs, from);
    if (!first) throw new Error(`no audio within ${settings.answerMs} ms (${describeClose(this.socket.closed)})`);
    let cursor = this.socket.frames.indexOf(first);
    for (;;) {
      const frame = this.socket.frames[cursor]!;
      if (typeOf(frame) === 'done' || typeOf(frame) === 'error') return { lastAudioAt: this.#lastChunkAt(from), terminal: frame };
      if (typeOf(frame) === 'flush_done') return { lastAudioAt: this.#lastChunkAt(from) };
      const next = await this.socket.next((f) => this.#mine(f), settings.quietMs, cursor + 1);
      if (!next) return { lastAudioAt: this.#lastChunkAt(from) };
      cursor = this.socket.frames.indexOf(next);
    }
  }

  /** Listens until `quietMs` pass with nothing for this context (or `maxMs` in all); returns what came. */
  async listen(quietMs: number, maxMs: number, from: number): Promise<Frame[]> {
    const until = now() + maxMs;
    let cursor = from;
    for (;;) {
      const next = await this.socket.next((f) => this.#mine(f), Math.min(quietMs, until - now()), cursor);
      if (!next || now() >= until) return this.frames(from);
      cursor = this.socket.frames.indexOf(next) + 1;
    }
  }

  /** What firstword's codec made of `frame`, decoded in wire order with the messages sent. */
  readingOf(frame: Frame): string {
    this.#catchUp();
    return this.#readings.get(frame) ?? 'ignored (not for this context)';
  }

  #lastChunkAt(from: number): number | undefined {
    return this.frames(from).filter((f) => typeOf(f) === 'chunk').at(-1)?.at;
  }

  #mine(f: Frame): boolean {
    return contextOf(f) === this.track || unattributedError(f);
  }

  #catchUp(): void {
    for (; this.#cursor < this.socket.frames.length; this.#cursor++) {
      const frame = this.socket.frames[this.#cursor]!;
      if (this.#mine(frame)) this.#readings.set(frame, reading(this.codec.decode(frame.raw, frame.binary)));
    }
  }
}

function withChanges(message: string, change: Record<string, unknown> | undefined): string {
  if (!change) return message;
  const json = JSON.parse(message) as Record<string, unknown>;
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) delete json[key];
    else json[key] = value;
  }
  return JSON.stringify(json);
}

export interface Spoken {
  probe: ContextProbe;
  terminal?: Frame;
  chunks: number;
  /** Refused for the plan's concurrency first, then tried once more. */
  retried: boolean;
}

/**
 * One whole context (text sent closed) to its `done` or error. A 429 for the plan's concurrency
 * (finished contexts still count for about a second) is retried once after a pause.
 */
export async function speakWhole(
  socket: ProbeSocket,
  codec: CartesiaCodec,
  text: string,
  settings: CheckSettings,
  change?: Record<string, unknown>,
): Promise<Spoken> {
  let retried = false;
  for (;;) {
    const probe = new ContextProbe(socket, codec);
    const from = socket.frames.length;
    probe.send(text, { opens: true, closes: true, change });
    const terminal = await probe.terminal(settings.answerMs, from);
    if (!retried && terminal?.json?.status_code === 429) {
      retried = true;
      await sleep(settings.concurrencyRetryMs);
      continue;
    }
    return { probe, terminal, chunks: probe.frames(from).filter((f) => typeOf(f) === 'chunk').length, retried };
  }
}

export function describeSpoken(spoken: Spoken, settings: CheckSettings): string {
  const { terminal, chunks } = spoken;
  const again = spoken.retried ? ' (after one retry for the plan\'s concurrency)' : '';
  if (!terminal) return `${count(chunks, 'chunk')}, then nothing decisive within ${Math.round(settings.answerMs / 1000)} s (${describeClose(spoken.probe.socket.closed)})${again}`;
  if (typeOf(terminal) === 'error') return `error ${quote(terminal)}${again}`;
  return `accepted: ${count(chunks, 'chunk')}, then \`done\`${again}`;
}

export function openSocket(scope: CheckScope<CartesiaTarget>, codec: CartesiaCodec): Promise<ProbeSocket> {
  return scope.open(() => codec.connect());
}

/** Sleeps until `at` (ms on the run's clock). */
export function sleepUntil(at: number): Promise<void> {
  return sleep(at - now());
}

/** Short form of an error frame for tables: status, code and text. */
export function errorSummary(frame: Frame): string {
  const j = frame.json ?? {};
  const code = j.error_code ?? '—';
  const text = j.message ?? j.error ?? j.title ?? '';
  return `${String(j.status_code ?? 'no status')} ${String(code)}: ${String(text)}`;
}
