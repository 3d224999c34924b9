/**
 * Plays an acknowledgement ahead of the session's own audio, outside its speech queue.
 *
 * An early acknowledgement plays before the caller's turn is committed. As a speech handle it
 * would be interrupted by the commit itself (agents 1.9 interrupts the active speech when a user
 * turn ends) and would block the preemptive draft (no preemptive generation while speech is
 * active). So it is written straight to the output below, and the session's audio that arrives
 * meanwhile waits until the acknowledgement has finished: the output below only ever plays one
 * of the two, and the session never sees the acknowledgement's playback events.
 */
import { type voice, voice as voiceNs } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { resampleClip } from '@firstword/agents-plugin-tts/pcm';
import { EventEmitter } from 'node:events';
import { fromEpoch, now } from '../latency/clock.js';

export interface AckPlayback {
  /** When the acknowledgement's first frame played (timeline clock); unset if it never did. */
  startedAt?: number;
  finishedAt?: number;
  /** Stopped before its end (the caller went on). */
  stopped: boolean;
}

export interface AckOutputEvents {
  ack_started: [number];
  ack_finished: [AckPlayback];
  /** The first frame of a session segment (the reply's audio is ready), timeline clock, played or held. */
  session_audio: [number];
}

type Held = { kind: 'frame'; frame: AudioFrame } | { kind: 'flush' };

interface AckInNext {
  playback: AckPlayback;
  stop: boolean;
  /** Frames are still being handed down: a stop is carried out by the writer when it ends. */
  writing: boolean;
}

export class AckOutput extends voiceNs.AudioOutput {
  readonly ackEvents = new EventEmitter<AckOutputEvents>();
  readonly #next: voice.AudioOutput;
  /** The acknowledgement owns the output below from `play()` until its playback finished. */
  #ack: AckInNext | undefined;
  /** Session audio that came while the acknowledgement played, in order. */
  #held: Held[] = [];
  /** A session segment was handed to the output below and has not finished there. */
  #sessionInNext = 0;
  #sessionOpen = false;
  /** A frame of the current session segment came (reset at its flush). */
  #segmentSeen = false;
  /** Acknowledgements as the output below takes them (its rate), converted once per clip. */
  readonly #atOutputRate = new WeakMap<readonly AudioFrame[], AudioFrame[]>();

  constructor(next: voice.AudioOutput) {
    // No `nextInChain`: the events of the output below are forwarded here, minus the ack's.
    super(next.sampleRate, undefined, { pause: true });
    this.#next = next;
    next.on(voiceNs.AudioOutput.EVENT_PLAYBACK_STARTED, (ev: voice.PlaybackStartedEvent) => this.#onNextStarted(ev));
    next.on(voiceNs.AudioOutput.EVENT_PLAYBACK_FINISHED, (ev: voice.PlaybackFinishedEvent) => this.#onNextFinished(ev));
    next.on(voiceNs.AudioOutput.EVENT_PLAYBACK_PROGRESSED, (ev: voice.PlaybackProgressedEvent) => {
      if (!this.#ack) this.onPlaybackProgressed(ev);
    });
  }

  override get canPause(): boolean {
    return this.#next.canPause;
  }

  /** The session has audio playing or waiting: an acknowledgement now would only delay it. */
  get sessionAudioPending(): boolean {
    return this.#sessionOpen || this.#sessionInNext > 0 || this.#held.length > 0 || this.pendingPlayoutSegments > 0;
  }

  /**
   * Plays `frames` now, unless the session's audio or another acknowledgement is in the way
   * (then returns undefined and plays nothing).
   */
  play(frames: readonly AudioFrame[]): AckPlayback | undefined {
    if (this.#ack || this.sessionAudioPending || frames.length === 0) return undefined;
    const ack: AckInNext = { playback: { stopped: false }, stop: false, writing: true };
    this.#ack = ack;
    void this.#write(ack, this.#playable(frames));
    return ack.playback;
  }

  /** Converts clips to the output's rate ahead of time (playing one converts it anyway). */
  prepare(clips: ReadonlyArray<readonly AudioFrame[]>): void {
    for (const clip of clips) this.#playable(clip);
  }

  #playable(frames: readonly AudioFrame[]): readonly AudioFrame[] {
    const rate = this.#next.sampleRate;
    if (rate === undefined) return frames;
    let converted = this.#atOutputRate.get(frames);
    if (!converted) this.#atOutputRate.set(frames, (converted = resampleClip(frames, rate)));
    return converted;
  }

  /** Stops the playing acknowledgement at once; the session's held audio follows. */
  stopAck(): void {
    const ack = this.#ack;
    if (!ack || ack.stop) return;
    ack.stop = true;
    ack.playback.stopped = true;
    // While frames are still going down, the writer clears once it has stopped; clearing now
    // would let its next frame start a segment of its own.
    if (!ack.writing) this.#next.clearBuffer();
  }

  async #write(ack: AckInNext, frames: readonly AudioFrame[]): Promise<void> {
    try {
      for (const frame of frames) {
        if (ack.stop) break;
        await this.#next.captureFrame(frame);
      }
    } finally {
      ack.writing = false;
      this.#next.flush();
      if (ack.stop) this.#next.clearBuffer();
    }
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);
    if (!this.#segmentSeen) {
      this.#segmentSeen = true;
      this.ackEvents.emit('session_audio', now());
    }
    if (this.#ack || this.#held.length > 0) {
      this.#held.push({ kind: 'frame', frame });
      return;
    }
    await this.#forward(frame);
  }

  override flush(): void {
    super.flush();
    this.#segmentSeen = false;
    if (this.#ack || this.#held.length > 0) {
      this.#held.push({ kind: 'flush' });
      return;
    }
    this.#forwardFlush();
  }

  override clearBuffer(): void {
    this.#segmentSeen = false;
    // Held session audio never reached the output below: it is finished here, unplayed.
    const heldSegments = this.#held.filter((h, i) => h.kind === 'frame' && (i === 0 || this.#held[i - 1]!.kind === 'flush')).length;
    this.#held = [];
    for (let i = 0; i < heldSegments; i++) this.onPlaybackFinished({ playbackPosition: 0, interrupted: true });
    if (this.#sessionInNext > 0 || this.#sessionOpen) {
      this.#sessionOpen = false;
      this.#next.clearBuffer();
    }
  }

  override pause(): void {
    this.#next.pause();
  }

  override resume(): void {
    this.#next.resume();
  }

  override onAttached(): void {
    this.#next.onAttached();
  }

  override onDetached(): void {
    this.#next.onDetached();
  }

  async #forward(frame: AudioFrame): Promise<void> {
    if (!this.#sessionOpen) {
      this.#sessionOpen = true;
      this.#sessionInNext++;
    }
    await this.#next.captureFrame(frame);
  }

  #forwardFlush(): void {
    this.#sessionOpen = false;
    this.#next.flush();
  }

  #onNextStarted(ev: voice.PlaybackStartedEvent): void {
    const ack = this.#ack;
    if (!ack) return this.onPlaybackStarted(ev.createdAt);
    if (ack.playback.startedAt === undefined) {
      ack.playback.startedAt = Math.min(now(), fromEpoch(ev.createdAt));
      this.ackEvents.emit('ack_started', ack.playback.startedAt);
    }
  }

  #onNextFinished(ev: voice.PlaybackFinishedEvent): void {
    const ack = this.#ack;
    if (!ack) {
      if (this.#sessionInNext > 0) this.#sessionInNext--;
      return this.onPlaybackFinished(ev);
    }
    this.#ack = undefined;
    ack.playback.finishedAt = now();
    if (ev.interrupted) ack.playback.stopped = true;
    this.ackEvents.emit('ack_finished', ack.playback);
    void this.#release();
  }

  /** Hands the held session audio on, in order, until it is all out or another ack begins. */
  async #release(): Promise<void> {
    while (this.#held.length > 0 && !this.#ack) {
      const next = this.#held.shift()!;
      if (next.kind === 'flush') this.#forwardFlush();
      else await this.#forward(next.frame);
    }
  }
}
