/**
 * The words heard at the end of speech become the framework's preflight transcript (the
 * preemptive draft starts from them); a final that says the same keeps the draft's exact text.
 */
import { type APIConnectOptions, asLanguageCode, initializeLogger, stt } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { PreflightSTT, normalizedWords } from '../../src/stt/preflight.js';
import { withTimeout } from '../helpers/async.js';

initializeLogger({ pretty: false, level: 'warn' });

const { START_OF_SPEECH, END_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, PREFLIGHT_TRANSCRIPT } = stt.SpeechEventType;
type Step = { type: stt.SpeechEventType; text?: string };

/** Emits its script, one event per pushed frame. */
class ScriptSTT extends stt.STT {
  label = 'test.ScriptSTT';
  constructor(readonly script: Step[]) {
    super({ streaming: true, interimResults: true });
  }
  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('streams only');
  }
  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    const script = this.script;
    return new (class extends stt.SpeechStream {
      label = 'test.ScriptStream';
      protected async run(): Promise<void> {
        let i = 0;
        for await (const item of this.input) {
          if (item === stt.SpeechStream.FLUSH_SENTINEL) continue;
          const step = script[i++];
          if (!step) continue;
          const alternatives = step.text === undefined ? undefined : ([{ text: step.text, language: asLanguageCode('en'), startTime: 0, endTime: 0, confidence: 1 }] as [stt.SpeechData]);
          this.queue.put({ type: step.type, alternatives });
        }
      }
    })(this, undefined, options?.connOptions);
  }
}

async function run(script: Step[]): Promise<{ events: { type: stt.SpeechEventType; text?: string }[]; recognizer: PreflightSTT }> {
  const recognizer = new PreflightSTT(new ScriptSTT(script));
  const stream = recognizer.stream();
  const frame = new AudioFrame(new Int16Array(160), 16_000, 1, 160);
  for (let i = 0; i < script.length; i++) stream.pushFrame(frame);
  const events: { type: stt.SpeechEventType; text?: string }[] = [];
  const finals = script.filter((s) => s.type === FINAL_TRANSCRIPT).length;
  await withTimeout(
    (async () => {
      for await (const event of stream) {
        events.push({ type: event.type, text: event.alternatives?.[0]?.text });
        if (events.filter((e) => e.type === FINAL_TRANSCRIPT).length === finals) return;
      }
    })(),
    5000,
    'the script',
  );
  stream.close();
  return { events, recognizer };
}

describe('PreflightSTT', () => {
  it('passes interims while the caller speaks, sends the words heard at the end of speech as a preflight, and again for a late word', async () => {
    const { events, recognizer } = await run([
      { type: START_OF_SPEECH },
      { type: INTERIM_TRANSCRIPT, text: 'I need' },
      { type: INTERIM_TRANSCRIPT, text: 'I need a' },
      { type: END_OF_SPEECH },
      { type: INTERIM_TRANSCRIPT, text: 'I need a table' },
      { type: FINAL_TRANSCRIPT, text: 'I need a table.' },
    ]);
    expect(events).toEqual([
      { type: START_OF_SPEECH, text: undefined },
      { type: INTERIM_TRANSCRIPT, text: 'I need' },
      { type: INTERIM_TRANSCRIPT, text: 'I need a' },
      { type: END_OF_SPEECH, text: undefined },
      { type: PREFLIGHT_TRANSCRIPT, text: 'I need a' },
      { type: PREFLIGHT_TRANSCRIPT, text: 'I need a table' },
      // The same words: the final carries the preflight's text, so the framework keeps that draft.
      { type: FINAL_TRANSCRIPT, text: 'I need a table' },
    ]);
    expect(recognizer.counts).toMatchObject({ preflights: 2, finalsMatched: 1, finalsDiffered: 0 });
  });

  it('a final with other words is passed on as it is (the draft is dropped), and the caller going on ends the preflights', async () => {
    const { events, recognizer } = await run([
      { type: START_OF_SPEECH },
      { type: INTERIM_TRANSCRIPT, text: '내일 서울' },
      { type: END_OF_SPEECH },
      { type: START_OF_SPEECH },
      { type: INTERIM_TRANSCRIPT, text: '내일 서울 날씨' },
      { type: FINAL_TRANSCRIPT, text: '내일 서울 날씨 어때요?' },
    ]);
    expect(events.filter((e) => e.type === PREFLIGHT_TRANSCRIPT).map((e) => e.text)).toEqual(['내일 서울']);
    expect(events.filter((e) => e.type === INTERIM_TRANSCRIPT).map((e) => e.text)).toEqual(['내일 서울', '내일 서울 날씨']);
    expect(events.at(-1)).toEqual({ type: FINAL_TRANSCRIPT, text: '내일 서울 날씨 어때요?' });
    expect(recognizer.counts).toMatchObject({ preflights: 1, finalsMatched: 0, finalsDiffered: 1 });
  });

  it('no words at the end of speech: no preflight', async () => {
    const { events } = await run([{ type: START_OF_SPEECH }, { type: END_OF_SPEECH }, { type: FINAL_TRANSCRIPT, text: 'Yes.' }]);
    expect(events.map((e) => e.type)).toEqual([START_OF_SPEECH, END_OF_SPEECH, FINAL_TRANSCRIPT]);
  });

  it('normalises case, punctuation and spacing only', () => {
    expect(normalizedWords(' I need,  a TABLE. ')).toBe('i need a table');
    expect(normalizedWords('네, 예약해 주세요.')).toBe('네 예약해 주세요');
    expect(normalizedWords('a table')).not.toBe(normalizedWords('a cable'));
  });
});
