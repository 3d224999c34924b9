import { type APIConnectOptions, initializeLogger, tts, voice } from '@livekit/agents';
import { AudioFrame, ParticipantKind } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { describeCaller, greetSipCaller } from '../../src/sip/index.js';

initializeLogger({ pretty: false, level: 'warn' });

/** Streaming TTS that records the text it is sent and answers each flush with 20 ms of audio. */
class RecordingTTS extends tts.TTS {
  label = 'test.RecordingTTS';
  readonly texts: string[] = [];

  constructor(sampleRate: number) {
    super(sampleRate, 1, { streaming: true });
  }

  synthesize(): tts.ChunkedStream {
    throw new Error('streaming only');
  }

  stream(options?: { connOptions?: APIConnectOptions }): tts.SynthesizeStream {
    return new RecordingStream(this, options?.connOptions);
  }
}

class RecordingStream extends tts.SynthesizeStream {
  label = 'test.RecordingStream';
  #tts: RecordingTTS;

  constructor(owner: RecordingTTS, connOptions?: APIConnectOptions) {
    super(owner, connOptions);
    this.#tts = owner;
  }

  protected async run(): Promise<void> {
    let pending = '';
    let segment = 0;
    for await (const item of this.input) {
      if (typeof item === 'string') {
        this.markStarted();
        pending += item;
        continue;
      }
      this.#tts.texts.push(pending);
      const samples = this.#tts.sampleRate / 50;
      const frame = new AudioFrame(new Int16Array(samples), this.#tts.sampleRate, 1, samples);
      this.queue.put({ requestId: `r${segment}`, segmentId: `s${segment}`, frame, final: true });
      pending = '';
      segment += 1;
    }
    if (pending) this.#tts.texts.push(pending);
    this.queue.put(tts.SynthesizeStream.END_OF_STREAM);
  }
}

/** Audio sink that plays instantly: reports start on the first frame and finish on flush. */
class CapturingOutput extends voice.AudioOutput {
  readonly frames: AudioFrame[] = [];
  #playing = false;

  override async captureFrame(frame: AudioFrame): Promise<void> {
    await super.captureFrame(frame);
    this.frames.push(frame);
    if (!this.#playing) {
      this.#playing = true;
      this.onPlaybackStarted(Date.now());
    }
  }

  override flush(): void {
    super.flush();
    if (this.#playing) {
      this.#playing = false;
      this.onPlaybackFinished({ playbackPosition: this.frames.length * 0.02, interrupted: false });
    }
  }

  clearBuffer(): void {
    this.flush();
  }
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

describe("the entry's SIP branch in a room-less session", () => {
  it('greets a SIP caller first, with no user turn and no LLM call', async () => {
    const participant = {
      identity: 'sip_+821012345678',
      kind: ParticipantKind.SIP,
      attributes: { 'sip.callID': 'SCL_1', 'sip.phoneNumber': '+821012345678' },
    };
    const caller = describeCaller(participant, { language: 'ko' });
    expect(caller.telephony).toBeDefined();

    const recordingTts = new RecordingTTS(caller.telephony!.sampleRate);
    const llm = new voice.testing.FakeLLM([]);
    let llmCalls = 0;
    const originalChat = llm.chat.bind(llm);
    llm.chat = ((...args: Parameters<typeof originalChat>) => {
      llmCalls += 1;
      return originalChat(...args);
    }) as typeof llm.chat;

    const session = new voice.AgentSession({ llm, tts: recordingTts });
    const output = new CapturingOutput(caller.telephony!.sampleRate);
    session.output.audio = output;

    try {
      await within(session.start({ agent: new voice.Agent({ instructions: 'You answer the phone.' }) }), 5000, 'start');
      const handle = greetSipCaller(session, caller);
      expect(handle).toBeDefined();
      expect(handle!.allowInterruptions).toBe(false);
      await within(handle!.waitForPlayout(), 5000, 'greeting playout');

      expect(recordingTts.texts.join('')).toBe(caller.greeting);
      expect(output.frames.length).toBeGreaterThan(0);
      expect(llmCalls).toBe(0);

      const assistantTurns = session.history.items.filter(
        (item) => item.type === 'message' && item.role === 'assistant',
      );
      expect(assistantTurns.map((item) => (item.type === 'message' ? item.textContent : ''))).toEqual([
        caller.greeting,
      ]);
    } finally {
      await within(session.close(), 5000, 'session close');
    }
  });

  it('does nothing for a browser participant', () => {
    const caller = describeCaller({ identity: 'alice', kind: ParticipantKind.STANDARD });
    const session = {
      say: () => {
        throw new Error('must not be called');
      },
    };
    expect(greetSipCaller(session as never, caller)).toBeUndefined();
  });
});
