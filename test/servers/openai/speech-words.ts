/**
 * Which words of the queued transcripts the caller has said so far, from the audio itself.
 *
 * A live transcription model (gpt-realtime-whisper, gpt-live-transcribe) sends each word while
 * the speech arrives, some time after the word's audio. To do that here, a queued transcript is
 * bound to the speech it stands for, not to a commit: the first loud 10 ms window after the
 * previous transcript was used up binds the next one (a "piece"), and word i of a piece of
 * `voicedMs` is heard once `voicedMs × (characters up to the end of word i) / (all characters)`
 * of audio has arrived since the piece's first loud window. A transcript queued as plain text
 * has no known length: its words are spread at `speechMsPerChar` (an estimate) but its last word
 * waits for the commit, so plain transcripts still go one per commit, as on the commit path. A
 * benchmark that knows its audio queues `{ text, voicedMs }`, and a commit that takes in several
 * such pieces (server_vad merging a short pause) carries them all. A commit ends the pieces in
 * progress: their words not yet heard count as heard with the piece's last loud window.
 */
export interface TimedTranscript {
  text: string;
  /** Length of the voiced audio this transcript stands for, first to last voiced sample. */
  voicedMs?: number;
  /**
   * What the item's `completed` says instead of its deltas joined: a final that revises the live
   * words (UNCONFIRMED whether a live model's final can differ from its deltas; none seen published).
   */
  final?: string;
}

export type QueuedTranscript = string | TimedTranscript;

export interface HeardWord {
  /** The word with its leading space (none on the item's first word), so deltas join to the transcript. */
  text: string;
  /** `Date.now()` when the audio that completed it arrived. */
  heardAt: number;
}

interface Piece {
  text: string;
  final?: string;
  words: { text: string; endShare: number }[];
  voicedMs: number;
  /** Plain text: its length is a guess, so it is used up only by the commit. */
  estimated: boolean;
  /** `Date.now()` of the arrival of its last loud window. */
  lastLoudAt?: number;
  /** Audio position (ms since the session's first sample) of the first loud window. */
  startMs: number;
  heard: number;
}

const WINDOW_MS = 10;
const SAMPLES_PER_WINDOW = 240; // 10 ms at 24 kHz

/** Words with their leading whitespace; they join back to `text` exactly. */
export function wordsOf(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

export class SpeechWords {
  readonly #next: () => TimedTranscript;
  readonly #threshold: () => number;
  readonly #msPerChar: () => number;
  #pieces: Piece[] = [];
  #positionMs = 0;
  #windowSum = 0;
  #windowFill = 0;

  /** `next` hands out the next queued transcript (or the default one) when speech binds it. */
  constructor(opts: { next: () => TimedTranscript; rmsThreshold: () => number; speechMsPerChar: () => number }) {
    this.#next = opts.next;
    this.#threshold = opts.rmsThreshold;
    this.#msPerChar = opts.speechMsPerChar;
  }

  /** A piece is bound and not all of it heard yet. */
  get inPiece(): boolean {
    const last = this.#pieces.at(-1);
    return last !== undefined && (last.estimated || last.heard < last.words.length);
  }

  /** Whether any transcript is bound to the audio since the last commit. */
  get bound(): boolean {
    return this.#pieces.length > 0;
  }

  /** Feeds appended audio; returns the words heard with it, in order. */
  append(samples: Int16Array, arrivedAt: number): HeardWord[] {
    const heard: HeardWord[] = [];
    const threshold = this.#threshold();
    for (let i = 0; i < samples.length; i++) {
      this.#windowSum += samples[i]! * samples[i]!;
      if (++this.#windowFill < SAMPLES_PER_WINDOW) continue;
      const loud = Math.sqrt(this.#windowSum / SAMPLES_PER_WINDOW) / 32768 >= threshold;
      this.#windowSum = 0;
      this.#windowFill = 0;
      this.#positionMs += WINDOW_MS;
      if (loud && !this.inPiece) this.#bind(this.#positionMs - WINDOW_MS);
      const piece = this.#pieces.at(-1);
      if (!piece) continue;
      if (loud) piece.lastLoudAt = arrivedAt;
      this.#hear(piece, this.#positionMs, arrivedAt, heard);
    }
    return heard;
  }

  /**
   * The item is committed: its transcript (every bound piece, whole) and the words not heard
   * before, heard now. With nothing bound no loud window came since the last commit: the item
   * is silence and its transcript empty, and the queue keeps its next transcript for speech.
   */
  commit(committedAt: number): { transcript: string; late: HeardWord[] } {
    const late: HeardWord[] = [];
    for (const piece of this.#pieces) this.#hear(piece, Number.POSITIVE_INFINITY, piece.lastLoudAt ?? committedAt, late);
    const transcript = this.#pieces.map((p) => p.final ?? p.text).join(' ');
    this.#pieces = [];
    return { transcript, late };
  }

  clear(): void {
    this.#pieces = [];
  }

  #bind(startMs: number): void {
    const { text, voicedMs, final } = this.#next();
    const words = wordsOf(text);
    const chars = text.length || 1;
    let end = 0;
    const first = this.#pieces.length === 0;
    this.#pieces.push({
      text,
      ...(final !== undefined ? { final } : {}),
      startMs,
      heard: 0,
      voicedMs: voicedMs ?? text.length * this.#msPerChar(),
      estimated: voicedMs === undefined,
      words: words.map((w, i) => {
        end += w.length;
        // The item's words join with single spaces; the first word of the item has none.
        const shown = i === 0 ? (first ? w.trimStart() : ` ${w.trimStart()}`) : w;
        return { text: shown, endShare: end / chars };
      }),
    });
  }

  #hear(piece: Piece, positionMs: number, at: number, out: HeardWord[]): void {
    const elapsed = positionMs - piece.startMs;
    // A guessed length never releases the last word: only the commit knows the speech is over.
    const hearable = piece.estimated && positionMs !== Number.POSITIVE_INFINITY ? piece.words.length - 1 : piece.words.length;
    while (piece.heard < hearable) {
      const word = piece.words[piece.heard]!;
      if (elapsed < word.endShare * piece.voicedMs) return;
      out.push({ text: word.text, heardAt: at });
      piece.heard++;
    }
  }
}
