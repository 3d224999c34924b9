/**
 * The session wiring shared by the worker and the demo, run without a LiveKit room: the framework's
 * own FakeLLM / FakeSTT, our RecordingAudioOutput as the speaker, and a tone TTS whose audio can be
 * traced back to the words that produced it.
 */
import { initializeLogger, llm, stt, voice } from '@livekit/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type RecordedSegment,
  RecordingAudioOutput,
  segmentAudio,
} from '../src/audio/recording-output.js';
import { ASSISTANT_INSTRUCTIONS, createAssistant, createSession } from '../src/session.js';
import { PushAudioInput } from './helpers/audio-input.js';
import { ScriptedSTT } from './helpers/scripted-stt.js';
import { nextEvent, withTimeout } from './helpers/async.js';
import { ToneTTS, toneFrames } from './helpers/tone-tts.js';

const { FakeLLM } = voice.testing;
type FakeLLMResponse = voice.testing.FakeLLMResponse;

/** A FakeLLM that also keeps the chat contexts it was asked to complete. */
class RecordingLLM extends FakeLLM {
  readonly requests: llm.ChatContext[] = [];

  override chat(options: Parameters<InstanceType<typeof FakeLLM>['chat']>[0]) {
    this.requests.push(options.chatCtx.copy());
    return super.chat(options);
  }
}

function messages(history: llm.ChatContext): { role: string; text: string; interrupted: boolean }[] {
  return history.items
    .filter((item): item is llm.ChatMessage => item.type === 'message')
    .map((item) => ({
      role: item.role,
      text: item.textContent ?? '',
      interrupted: item.interrupted,
    }));
}

function finishedSegment(output: RecordingAudioOutput): Promise<RecordedSegment> {
  return nextEvent<RecordedSegment>(output, RecordingAudioOutput.EVENT_SEGMENT_FINISHED);
}

describe('createSession without a room', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'warn' }));

  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await withTimeout(cleanup(), 5_000, 'cleanup');
  });

  async function startSession(opts: {
    responses: FakeLLMResponse[];
    stt?: stt.STT;
    /** Must be attached before start: agents 1.9 ignores an input set on a running session. */
    microphone?: voice.AudioInput;
    playout: 'instant' | 'realtime';
  }) {
    const tts = new ToneTTS();
    const llmModel = new RecordingLLM(opts.responses);
    const session = createSession(
      { stt: opts.stt ?? new stt.testing.FakeSTT(), llm: llmModel, tts },
    );
    const output = new RecordingAudioOutput({ playout: opts.playout });
    session.output.audio = output;
    if (opts.microphone) session.input.audio = opts.microphone;
    cleanups.push(async () => {
      await session.close();
      output.close();
    });
    await withTimeout(session.start({ agent: createAssistant() }), 5_000, 'start');
    return { session, tts, llm: llmModel, output };
  }

  it('answers a typed user turn with audio made by the TTS it was given', async () => {
    const reply = 'Seoul is the capital of Korea.';
    const { session, tts, llm: llmModel, output } = await startSession({
      responses: [{ input: 'What is the capital of Korea?', content: reply }],
      playout: 'instant',
    });

    const committed = nextEvent<voice.ConversationItemAddedEvent>(
      session,
      voice.AgentSessionEventTypes.ConversationItemAdded,
      (ev) => ev.item.type === 'message' && ev.item.role === 'assistant',
    );
    const handle = session.generateReply({ userInput: 'What is the capital of Korea?' });
    await withTimeout(handle.waitForPlayout(), 5_000, 'reply playout');
    await withTimeout(committed, 5_000, 'the reply in the history');

    // The text reached our TTS, and what was "played" is exactly what the TTS made of it.
    expect(tts.spokenText).toBe(reply);
    expect(output.segments).toHaveLength(1);
    const [segment] = output.segments;
    expect(segment.finished).toBe(true);
    expect(segment.interrupted).toBe(false);
    expect(segment.durationMs).toBeCloseTo(reply.length * tts.opts.msPerChar, 6);
    expect(segment.playedMs).toBeCloseTo(segment.durationMs, 6);
    const expected = tts.received.flatMap((piece) => toneFrames(piece, tts.opts));
    const heard = segmentAudio(segment)!;
    expect(heard.sampleRate).toBe(tts.opts.sampleRate);
    expect(Array.from(heard.data)).toEqual(expected.flatMap((frame) => Array.from(frame.data)));

    // The assistant's own instructions went to the LLM, and both turns are in the history.
    const system = llmModel.requests[0]?.items.find(
      (item): item is llm.ChatMessage => item.type === 'message' && item.role === 'system',
    );
    expect(system?.textContent).toContain(ASSISTANT_INSTRUCTIONS);
    expect(messages(session.history)).toEqual([
      { role: 'user', text: 'What is the capital of Korea?', interrupted: false },
      { role: 'assistant', text: reply, interrupted: false },
    ]);
  });

  it('turns speech heard by the STT into a user turn and an audible answer', async () => {
    const transcript = '서울 날씨 어때요';
    const reply = '오늘 서울은 맑아요.';
    const scriptedStt = new ScriptedSTT([{ transcript, language: 'ko' }]);
    const microphone = new PushAudioInput();
    const { session, tts, output } = await startSession({
      responses: [{ input: transcript, content: reply }],
      stt: scriptedStt,
      microphone,
      playout: 'instant',
    });

    const assistantAdded = nextEvent<voice.ConversationItemAddedEvent>(
      session,
      voice.AgentSessionEventTypes.ConversationItemAdded,
      (ev) => ev.item.type === 'message' && ev.item.role === 'assistant',
    );
    const played = finishedSegment(output);
    microphone.pushSilence(100);

    const segment = await withTimeout(played, 10_000, 'the answer to play');
    await withTimeout(assistantAdded, 5_000, 'the assistant message');

    expect(tts.spokenText).toBe(reply);
    expect(segment.interrupted).toBe(false);
    expect(segment.frames.length).toBeGreaterThan(0);
    expect(segment.durationMs).toBeCloseTo(reply.length * tts.opts.msPerChar, 6);
    expect(messages(session.history)).toEqual([
      { role: 'user', text: transcript, interrupted: false },
      { role: 'assistant', text: reply, interrupted: false },
    ]);
  });

  it('stops the answer where it is interrupted and records only what was heard', async () => {
    // 10 ms of tone per character: several seconds of audio, interrupted after its first frame.
    const reply = 'This answer is long enough that nobody will hear the end of it. '.repeat(5);
    const { session, output } = await startSession({
      responses: [{ input: 'Tell me a story', content: reply }],
      playout: 'realtime',
    });
    output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => session.interrupt({ force: true }));

    const played = finishedSegment(output);
    const committed = nextEvent<voice.ConversationItemAddedEvent>(
      session,
      voice.AgentSessionEventTypes.ConversationItemAdded,
      (ev) => ev.item.type === 'message' && ev.item.role === 'assistant',
    );
    const handle = session.generateReply({ userInput: 'Tell me a story' });
    const segment = await withTimeout(played, 5_000, 'the interrupted segment');
    await withTimeout(handle.waitForPlayout(), 5_000, 'the interrupted reply');
    await withTimeout(committed, 5_000, 'the interrupted reply in the history');

    expect(handle.interrupted).toBe(true);
    expect(segment.interrupted).toBe(true);
    expect(segment.playedMs).toBeLessThan(reply.length * 10);
    const heard = segmentAudio(segment)!;
    expect(heard.samplesPerChannel).toBe(Math.round((segment.playedMs / 1000) * heard.sampleRate));

    // What reaches the history is marked interrupted and never more than the reply itself.
    const assistant = messages(session.history).filter((m) => m.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0].interrupted).toBe(true);
    expect(reply.startsWith(assistant[0].text)).toBe(true);
  });
});
