/**
 * A room-less AgentSession speaking through our real TTS clients against the protocol servers,
 * played out in real time by RecordingAudioOutput, plus the ground truth of what was heard: the
 * servers' tagged audio says, sample by sample, which sent text produced it.
 */
import { type llm, stt, voice } from '@livekit/agents';
import { type RecordedSegment, RecordingAudioOutput, segmentAudio } from '../../src/audio/recording-output.js';
import { HeardTextAgent } from '../../src/heard/index.js';
import { createAssistant, createSession } from '../../src/session.js';
import { FirstwordTTS } from '@firstword/agents-plugin-tts';
import type { TimelineEvents } from '@firstword/agents-plugin-tts';
import type { EventEmitter } from 'node:events';
import { samplesForText } from '../servers/audio-tag.js';
import { nextEvent, withTimeout } from '../helpers/async.js';
import { type ProviderFixture, everyStream, fixtures, heardTags } from '../../packages/agents-plugin-tts/test/driver/harness.js';

export const SAMPLE_RATE = 16_000;

export interface HeardSessionOptions {
  provider: 'resemble' | 'cartesia';
  timestamps: boolean;
  msPerChar: number;
  /** Server pacing: 0 sends all audio at once, 0.5 streams at twice real time. */
  realTimeFactor: number;
  responses: voice.testing.FakeLLMResponse[];
  /** The agent the session runs. @defaultValue createAssistant (the production wiring) */
  agent?: () => voice.Agent;
}

export interface HeardSession {
  session: voice.AgentSession;
  output: RecordingAudioOutput;
  engine: FirstwordTTS;
  fx: ProviderFixture;
  /** Texts the driver sent, per stream, in order. */
  sent: Map<string, string[]>;
  close(): Promise<void>;
}

/** Every stream's events of each session's TTS, seen from the session's start. */
const eventsOf = new WeakMap<FirstwordTTS, EventEmitter<TimelineEvents>>();

export async function startHeardSession(opts: HeardSessionOptions): Promise<HeardSession> {
  const fx = await fixtures[opts.provider]({
    msPerChar: opts.msPerChar,
    realTimeFactor: opts.realTimeFactor,
    ...(opts.provider === 'resemble' ? { timestamps: opts.timestamps } : {}),
  });
  const engine = fx.make({ wordTimestamps: opts.timestamps, sampleRate: SAMPLE_RATE });
  const sent = new Map<string, string[]>();
  const events = everyStream(engine);
  eventsOf.set(engine, events);
  events.on('sent', (e) => sent.set(e.streamId, [...(sent.get(e.streamId) ?? []), e.text]));
  const session = createSession(
    { stt: new stt.testing.FakeSTT(), llm: new voice.testing.FakeLLM(opts.responses), tts: engine },
  );
  const output = new RecordingAudioOutput({ playout: 'realtime' });
  session.output.audio = output;
  await withTimeout(session.start({ agent: (opts.agent ?? (() => createAssistant()))() }), 5_000, 'session start');
  return {
    session,
    output,
    engine,
    fx,
    sent,
    async close() {
      await withTimeout(session.close(), 5_000, 'session close');
      output.close();
      await engine.close();
      await fx.close();
    },
  };
}

/** The next assistant message added to the history. */
export function nextAssistantMessage(session: voice.AgentSession): Promise<llm.ChatMessage> {
  return nextEvent<voice.ConversationItemAddedEvent>(
    session,
    voice.AgentSessionEventTypes.ConversationItemAdded,
    (ev) => ev.item.type === 'message' && ev.item.role === 'assistant',
  ).then((ev) => ev.item as llm.ChatMessage);
}

export interface HeardDecision {
  heard: Pick<TimelineEvents['heard'][0], 'text' | 'end' | 'source'>;
  playbackPosition: number;
}

/** The next heard-text decision of the session's agent, as its TTS timeline reports it. */
export function nextHeardDecision(session: voice.AgentSession): Promise<HeardDecision> {
  if (!(session.currentAgent instanceof HeardTextAgent)) throw new Error('the session does not run a HeardTextAgent');
  const engine = session.tts;
  if (!(engine instanceof FirstwordTTS)) throw new Error('the session does not speak with a FirstwordTTS');
  const events = eventsOf.get(engine);
  if (!events) throw new Error('the session was not started by startHeardSession');
  return nextEvent<TimelineEvents['heard'][0]>(events, 'heard').then(({ text, end, source, playbackPosition }) => ({
    heard: { text, end, source },
    playbackPosition,
  }));
}

/** Interrupts the session once `ms` of the next segment has played (at 1×, from its first frame). */
export function interruptAfterPlayed(h: HeardSession, ms: number): Promise<number> {
  return new Promise((resolve) => {
    h.output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => {
      setTimeout(() => {
        h.session.interrupt();
        resolve(Date.now());
      }, ms);
    });
  });
}

export interface GroundTruth {
  /** Every word whose audio played to its end, as the reply spells it. */
  heard: string;
  /** Characters of the partly heard chunk (as sent) whose audio played completely. */
  charsIntoChunk: number;
  /** Distance, in characters, from where playback stopped to the nearest word end. */
  charsFromWordEnd: number;
}

/**
 * What the listener heard, from the audio alone: runs of tagged samples tie each played sample
 * to a sent text; at `msPerChar` per code point, a word was heard when its last character's
 * samples all played. Assumes a plain reply (chunk texts joined by one space spell it).
 */
export function groundTruth(h: HeardSession, segment: RecordedSegment, texts: string[], msPerChar: number): GroundTruth {
  const audio = segmentAudio(segment)!;
  const runs = heardTags(new Int16Array(audio.data));
  const samplesPerChar = (msPerChar * SAMPLE_RATE) / 1000;
  const words: string[] = [];
  let charsIntoChunk = 0;
  let charsFromWordEnd = Number.POSITIVE_INFINITY;
  for (const [i, text] of texts.entries()) {
    const run = runs[i];
    if (!run) break;
    if (run.tag !== h.fx.tagOf(text)) throw new Error(`audio of chunk ${i} is not "${text}"`);
    const wire = h.fx.wireText(text);
    if (run.samples >= samplesForText(wire, SAMPLE_RATE, msPerChar)) {
      words.push(...text.split(' '));
      continue;
    }
    const played = run.samples / samplesPerChar;
    charsIntoChunk = Math.floor(played + 1e-9);
    let end = 0;
    for (const word of text.split(' ')) {
      end += [...word].length;
      charsFromWordEnd = Math.min(charsFromWordEnd, Math.abs(played - end));
      if (end <= played + 1e-9) words.push(word);
      end += 1;
    }
    break;
  }
  return { heard: words.join(' '), charsIntoChunk, charsFromWordEnd };
}

export function finishedSegment(output: RecordingAudioOutput): Promise<RecordedSegment> {
  return nextEvent<RecordedSegment>(output, RecordingAudioOutput.EVENT_SEGMENT_FINISHED);
}
