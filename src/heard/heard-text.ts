/**
 * Keeps only what was heard of an interrupted reply in the chat history.
 *
 * How agents 1.9 decides the text of an interrupted reply (agent_activity.ts `forwardSegment`,
 * generation.ts `forwardedTextFor`): the `synchronizedTranscript` of the audio output's
 * playback-finished event when there is one, else everything the transcription node forwarded.
 * Only RoomIO's transcription synchronizer fills `synchronizedTranscript`, and it paces words by
 * wall clock at an assumed 3.83 syllables/s (or by timings where given), not by where playback
 * actually stopped. A room-less session has no synchronizer at all, so an interrupted reply is
 * committed whole (or, with aligned transcripts, as every timed word *received*, heard or not).
 *
 * The mechanism: our TTS node records each stream's reply, chunk ranges, track sample ranges and
 * word timings (a {@link ReplyTracker}); our transcription node marks which tracker is about to
 * play; and when the session's audio output reports an interrupted playback, the listener fills
 * `synchronizedTranscript` from the tracker and the position actually played — on the very event
 * object the framework reads next (`waitForPlayout()` returns it; the emit is synchronous and
 * runs before the awaiting reply task resumes). That is the one value the framework already
 * trusts for "what was heard"; no framework state is patched, no message is rewritten afterwards,
 * and no output is wrapped (wrapping the output chain means re-implementing its segment-count
 * contract, which the framework's own RecorderAudioOutput needs ~150 lines to get right).
 *
 * The same tracker respells the provider's timed words with the reply's own text (respell.ts), so
 * that a reply played to the end is not committed in the provider's spelling.
 *
 * Pairing a tracker with its playback: both nodes receive the same `modelSettings` object for one
 * reply, segments of a reply are synthesized and forwarded in the same order, and the
 * transcription node runs just before the segment's first frame is captured. So trackers queue
 * per `modelSettings`, the transcription node takes the head, and the segment's finish is the
 * next one the output owes after the segments already pending at that moment.
 */
import { log, voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { ReadableStream } from 'node:stream/web';
import { FirstwordTTS } from '@firstword/agents-plugin-tts';
import { respellTimedWords } from './respell.js';
import { ReplyTracker, type SpeechLanguage } from './tracker.js';
import { trackedTtsNode } from './tts-node.js';
import { untilInterrupted } from './until-interrupted.js';

type TextInput = ReadableStream<string> | AsyncIterable<string>;
type TranscriptInput = ReadableStream<string | voice.TimedString> | AsyncIterable<string | voice.TimedString>;

interface Playing {
  tracker: ReplyTracker | undefined;
  /** Finishes the output still owes to segments captured before this one. */
  skip: number;
  capturedBefore: number;
}

export class HeardText {
  #queued = new WeakMap<object, ReplyTracker[]>();
  #playing: Playing | undefined;
  #output: voice.AudioOutput | undefined;
  #rates = new Map<SpeechLanguage, number>();
  #logger = log();

  async ttsNode(agent: voice.Agent, text: TextInput, modelSettings: voice.ModelSettings): Promise<ReadableStream<AudioFrame> | null> {
    const engine = agent.getActivityOrThrow().tts;
    if (!(engine instanceof FirstwordTTS) || !(text instanceof ReadableStream)) {
      return voice.Agent.default.ttsNode(agent, text, modelSettings);
    }
    const tracker = new ReplyTracker(engine.sampleRate);
    const queue = this.#queued.get(modelSettings) ?? [];
    queue.push(tracker);
    this.#queued.set(modelSettings, queue);
    return trackedTtsNode(agent, engine, text, tracker);
  }

  async transcriptionNode(
    agent: voice.Agent,
    text: TranscriptInput,
    modelSettings: voice.ModelSettings,
  ): Promise<ReadableStream<string | voice.TimedString> | null> {
    const queue = this.#queued.get(modelSettings);
    const tracker = queue?.shift();
    this.#willPlay(agent.session.output.audio, tracker);
    const spelled = tracker && text instanceof ReadableStream ? text.pipeThrough(respellTimedWords(tracker)) : text;
    const forwarded = await voice.Agent.default.transcriptionNode(agent, spelled, modelSettings);
    const speech = agent.getActivityOrThrow().currentSpeech;
    if (!forwarded || !speech) return forwarded;
    return untilInterrupted(forwarded, speech, () => {
      // Stop synthesizing at once: the framework would only get round to it after unwinding.
      tracker?.stop();
      for (const queuedTracker of queue?.splice(0) ?? []) queuedTracker.stop();
    });
  }

  /** Stops listening to the session's audio output. */
  dispose(): void {
    this.#output?.off(voice.AudioOutput.EVENT_PLAYBACK_FINISHED, this.#onPlaybackFinished);
    this.#output = undefined;
    this.#playing = undefined;
  }

  #willPlay(output: voice.AudioOutput | null, tracker: ReplyTracker | undefined): void {
    if (output !== this.#output) {
      this.dispose();
      if (!output) return;
      output.on(voice.AudioOutput.EVENT_PLAYBACK_FINISHED, this.#onPlaybackFinished);
      this.#output = output;
    }
    if (!output) return;
    this.#playing = { tracker, skip: output.pendingPlayoutSegments, capturedBefore: output.capturedPlayoutSegments };
  }

  #onPlaybackFinished = (ev: voice.PlaybackFinishedEvent): void => {
    const playing = this.#playing;
    const output = this.#output;
    if (!playing || !output) return;
    if (playing.skip > 0) {
      playing.skip--;
      return;
    }
    this.#playing = undefined;
    const tracker = playing.tracker;
    // Only a segment that captured audio owes a finish; without one this event is someone else's.
    if (!tracker || output.capturedPlayoutSegments <= playing.capturedBefore) return;
    this.#learnRate(tracker);
    if (!ev.interrupted) return;
    const heard = tracker.heard(ev.playbackPosition, this.#rates.get(tracker.language));
    ev.synchronizedTranscript = heard.text;
    this.#logger.debug(
      { playbackPosition: ev.playbackPosition, source: heard.source, 'heard.pii.text': heard.text },
      'interrupted reply cut to what was heard',
    );
    tracker.reportHeard(heard, ev.playbackPosition);
  };

  /**
   * Keeps the voice's speaking rate per language. Only needed where a provider voices a whole
   * reply as one stretch of audio without timestamps (Cartesia without `wordTimestamps`): until
   * that audio is complete, a cut inside it can only be placed by rate.
   */
  #learnRate(tracker: ReplyTracker): void {
    const measured = tracker.measuredRate();
    if (!measured) return;
    const known = this.#rates.get(measured.language);
    this.#rates.set(measured.language, known === undefined ? measured.charsPerSecond : 0.7 * known + 0.3 * measured.charsPerSecond);
  }
}

/**
 * An agent whose interrupted replies keep only what was heard, and whose next reply is not held
 * up by the interrupted one. Use it like `voice.Agent`; an agent that must extend another class
 * can delegate its `ttsNode`/`transcriptionNode` to a {@link HeardText} the same way.
 */
export class HeardTextAgent extends voice.Agent {
  readonly heardText = new HeardText();

  override async ttsNode(text: TextInput, modelSettings: voice.ModelSettings): Promise<ReadableStream<AudioFrame> | null> {
    return this.heardText.ttsNode(this, text, modelSettings);
  }

  override async transcriptionNode(
    text: TranscriptInput,
    modelSettings: voice.ModelSettings,
  ): Promise<ReadableStream<string | voice.TimedString> | null> {
    return this.heardText.transcriptionNode(this, text, modelSettings);
  }

  override async onExit(): Promise<void> {
    this.heardText.dispose();
    await super.onExit();
  }
}
