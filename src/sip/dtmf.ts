/**
 * Keys a phone caller presses (DTMF). livekit-sip turns each RFC 4733 event into a `SipDTMF` data
 * packet, which rtc-node raises as the room's `dtmfReceived` event (code, digit, participant).
 * Digits are collected into a sequence that ends on `#`, after a pause, or at a length cap, and
 * the sequence becomes one user turn the LLM reads ("The caller pressed 1 2 3 4 #").
 *
 * Digits are often PINs or account numbers: they go to the LLM (that is the point) and nowhere
 * else. Log lines carry how many keys were pressed, never which.
 */

/** The sixteen RFC 4733 events 0–15: digits, `*`, `#` and the rarely used A–D. */
const KEYS = '0123456789*#ABCD';

/** @defaultValue 3000: the usual inter-digit timeout of phone menus (3–5 s). */
export const DTMF_PAUSE_MS = 3000;
/** Longer runs are cut (a stuck key, or a caller typing a whole card number without `#`). */
export const DTMF_MAX_DIGITS = 32;

/**
 * The key a DTMF event stands for, or undefined for junk. The digit string wins when it is a
 * key; else the event code names it (livekit-sip sends both, other senders may send only one).
 */
export function dtmfKey(code: number | undefined, digit: string | undefined): string | undefined {
  const text = (digit ?? '').trim().toUpperCase();
  if (text.length === 1 && KEYS.includes(text)) return text;
  if (text.length === 0 && Number.isInteger(code) && code! >= 0 && code! < KEYS.length) return KEYS[code!];
  return undefined;
}

/** What the LLM reads for a sequence: keys spaced apart, so `1234` is not read as a number. */
export function dtmfTurnText(keys: string): string {
  return `The caller pressed ${[...keys].join(' ')}`;
}

export interface DtmfCollectorOptions {
  /** Silence after the last key that ends the sequence. @defaultValue {@link DTMF_PAUSE_MS} */
  pauseMs?: number;
  maxDigits?: number;
  /** Called once per finished sequence (never empty). */
  onSequence: (keys: string, reason: 'hash' | 'pause' | 'length') => void;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

/** Collects keys into sequences. One per caller; `close()` drops what is pending. */
export class DtmfCollector {
  #keys = '';
  #timer: unknown;
  #closed = false;
  readonly #pauseMs: number;
  readonly #maxDigits: number;
  readonly #options: DtmfCollectorOptions;
  readonly #setTimer: (fn: () => void, ms: number) => unknown;
  readonly #clearTimer: (handle: unknown) => void;

  constructor(options: DtmfCollectorOptions) {
    this.#options = options;
    this.#pauseMs = options.pauseMs ?? DTMF_PAUSE_MS;
    this.#maxDigits = options.maxDigits ?? DTMF_MAX_DIGITS;
    this.#setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.#clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
  }

  /** Keys pressed and not yet sent as a sequence. */
  get pending(): number {
    return this.#keys.length;
  }

  /** Adds one event; returns false for junk (ignored, the sequence goes on). */
  push(code: number | undefined, digit: string | undefined): boolean {
    if (this.#closed) return false;
    const key = dtmfKey(code, digit);
    if (key === undefined) return false;
    this.#keys += key;
    this.#cancelTimer();
    if (key === '#') this.#finish('hash');
    else if (this.#keys.length >= this.#maxDigits) this.#finish('length');
    else this.#timer = this.#setTimer(() => this.#finish('pause'), this.#pauseMs);
    return true;
  }

  close(): void {
    this.#closed = true;
    this.#cancelTimer();
    this.#keys = '';
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return;
    this.#clearTimer(this.#timer);
    this.#timer = undefined;
  }

  #finish(reason: 'hash' | 'pause' | 'length'): void {
    this.#cancelTimer();
    const keys = this.#keys;
    this.#keys = '';
    if (keys.length > 0) this.#options.onSequence(keys, reason);
  }
}
