/**
 * With an early final, the live model's words become the turn's final once they have settled
 * after the end of speech, and the model's own final is held against them: the same words are
 * dropped, other words go to the revision listeners, never a second final to the framework.
 */
import { type APIConnectOptions, asLanguageCode, initializeLogger, stt } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EARLY_FINAL_QUIET_MS, earlyFinalTiming } from '../../src/stt/index.js';
import { type EarlyFinalOptions, PreflightSTT, type TranscriptRevision } from '../../src/stt/preflight.js';

initializeLogger({ pretty: false, level: 'warn' });

const { START_OF_SPEECH, END_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, PREFLIGHT_TRANSCRIPT } = stt.SpeechEventType;
const EARLY: EarlyFinalOptions = { afterEndMs: 100, quietMs: 100 };

/** An STT whose stream emits what the test puts, when it puts it. */
class ManualSTT extends stt.STT {
  label = 'test.ManualSTT';
  stream_: stt.SpeechStream | undefined;
  constructor() {
    super({ streaming: true, interimResults: true });
  }
  protected async _recognize(): Promise<stt.SpeechEvent> {
    throw new Error('streams only');
  }
  stream(options?: { connOptions?: APIConnectOptions }): stt.SpeechStream {
    this.stream_ = new (class extends stt.SpeechStream {
      label = 'test.ManualStream';
      protected async run(): Promise<void> {
        for await (const _ of this.input) void _;
      }
      put(event: stt.SpeechEvent): void {
        this.queue.put(event);
      }
    })(this, undefined, options?.connOptions);
    return this.stream_;
  }
}

type Seen = { type: stt.SpeechEventType; text?: string; requestId?: string };

function harness(early: EarlyFinalOptions | null = EARLY) {
  const inner = new ManualSTT();
  const recognizer = new PreflightSTT(inner, early ? { earlyFinal: early } : {});
  const revisions: TranscriptRevision[] = [];
  recognizer.onRevision((r) => revisions.push(r));
  const stream = recognizer.stream();
  stream.pushFrame(new AudioFrame(new Int16Array(160), 16_000, 1, 160));
  const seen: Seen[] = [];
  void (async () => {
    for await (const event of stream) seen.push({ type: event.type, text: event.alternatives?.[0]?.text, requestId: event.requestId });
  })();
  const put = async (type: stt.SpeechEventType, text?: string, requestId = 'item_1') => {
    const alternatives = text === undefined ? undefined : ([{ text, language: asLanguageCode('en'), startTime: 0, endTime: 0, confidence: 1 }] as [stt.SpeechData]);
    (inner.stream_ as unknown as { put(e: stt.SpeechEvent): void }).put({ type, requestId, alternatives });
    await vi.advanceTimersByTimeAsync(0);
  };
  const wait = (ms: number) => vi.advanceTimersByTimeAsync(ms);
  return { recognizer, revisions, seen, put, wait, close: () => stream.close() };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('PreflightSTT early final', () => {
  it('sends the settled words as the final, then drops the model’s final that says the same', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need');
    await h.put(INTERIM_TRANSCRIPT, 'I need a table');
    await h.put(END_OF_SPEECH);
    await h.wait(99);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    await h.wait(1);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT)).toEqual([{ type: FINAL_TRANSCRIPT, text: 'I need a table', requestId: 'item_1' }]);
    // The preflight and the early final carry the same text: the framework keeps the draft.
    expect(h.seen.filter((e) => e.type === PREFLIGHT_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    await h.wait(1500);
    await h.put(FINAL_TRANSCRIPT, 'I need a table.');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT)).toHaveLength(1);
    expect(h.recognizer.counts).toMatchObject({ earlyFinals: 1, earlyConfirmed: 1, earlyRevised: 0 });
    expect(h.revisions).toEqual([]);
    h.close();
  });

  it('waits until no word has come for quietMs, so a late word is in the final', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need a');
    await h.put(END_OF_SPEECH);
    await h.wait(60);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table');
    await h.wait(99);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    await h.wait(1);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    h.close();
  });

  /** Words ending on an article read unfinished: a stand-in for the transcript detector's rules. */
  const HOLDING: EarlyFinalOptions = { ...EARLY, lateQuietMs: 300, unfinishedHoldMs: 1000, readsFinished: (words) => !/\b(the|a)$/.test(words.trim()) };

  it('words that read unfinished wait for the rest, which the final then carries; the model’s final confirms it', async () => {
    const h = harness(HOLDING);
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'Can you tell me about the');
    await h.put(END_OF_SPEECH);
    await h.wait(150);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    // The model is later than its guess: each word now needs lateQuietMs without another.
    await h.put(INTERIM_TRANSCRIPT, 'Can you tell me about the weather');
    await h.wait(150);
    await h.put(INTERIM_TRANSCRIPT, 'Can you tell me about the weather today?');
    await h.wait(299);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    await h.wait(1);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['Can you tell me about the weather today?']);
    await h.put(FINAL_TRANSCRIPT, 'Can you tell me about the weather today?');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT)).toHaveLength(1);
    expect(h.recognizer.counts).toMatchObject({ earlyFinals: 1, earlyConfirmed: 1, earlyRevised: 0 });
    expect(h.revisions).toEqual([]);
    h.close();
  });

  it('words that read unfinished and get no more go as they are at the hold’s bound', async () => {
    const h = harness(HOLDING);
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I would like the');
    await h.put(END_OF_SPEECH);
    await h.wait(999);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    await h.wait(1);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I would like the']);
    h.close();
  });

  it('words that read finished go when they settle, as without the rule; the caller going on ends a hold without a final', async () => {
    const h = harness(HOLDING);
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table');
    await h.put(END_OF_SPEECH);
    await h.wait(100);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    await h.put(FINAL_TRANSCRIPT, 'I need a table.');
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'for the', 'item_2');
    await h.put(END_OF_SPEECH);
    await h.wait(200);
    await h.put(START_OF_SPEECH);
    await h.wait(2000);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    h.close();
  });

  it('the caller going on before the words settle: no early final, the model’s final passes as before', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need a');
    await h.put(END_OF_SPEECH);
    await h.wait(50);
    await h.put(START_OF_SPEECH);
    await h.wait(1000);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    await h.put(FINAL_TRANSCRIPT, 'I need a table.');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table.']);
    expect(h.recognizer.counts.earlyFinals).toBe(0);
    h.close();
  });

  it('a model final with other words is not passed on: it goes to the revision listeners, and late words are held', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table');
    await h.put(END_OF_SPEECH);
    await h.wait(100);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table for four');
    await h.put(FINAL_TRANSCRIPT, 'I need a table for four.');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    expect(h.seen.filter((e) => e.type === INTERIM_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    expect(h.revisions).toEqual([{ requestId: 'item_1', early: 'I need a table', final: 'I need a table for four.' }]);
    expect(h.recognizer.counts).toMatchObject({ earlyFinals: 1, earlyConfirmed: 0, earlyRevised: 1 });
    h.close();
  });

  it('learns a model that lags more than the guess: after a revision it waits as long as the late word took', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH, undefined, 'item_1');
    await h.put(INTERIM_TRANSCRIPT, 'I need', 'item_1');
    await h.put(END_OF_SPEECH, undefined, 'item_1');
    await h.wait(100);
    await h.wait(200);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table', 'item_1');
    await h.put(FINAL_TRANSCRIPT, 'I need a table', 'item_1');
    expect(h.revisions.map((r) => r.early)).toEqual(['I need']);
    // The same lag again: the last word comes 300 ms after the end, inside the learned wait (300 + 100).
    await h.put(START_OF_SPEECH, undefined, 'item_2');
    await h.put(INTERIM_TRANSCRIPT, 'For', 'item_2');
    await h.put(END_OF_SPEECH, undefined, 'item_2');
    await h.wait(300);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT && e.requestId === 'item_2')).toEqual([]);
    await h.put(INTERIM_TRANSCRIPT, 'For four', 'item_2');
    await h.wait(100);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT && e.requestId === 'item_2').map((e) => e.text)).toEqual(['For four']);
    await h.put(FINAL_TRANSCRIPT, 'For four.', 'item_2');
    expect(h.recognizer.counts).toMatchObject({ earlyFinals: 2, earlyConfirmed: 1, earlyRevised: 1 });
    h.close();
  });

  it('words the item gets after the caller spoke again go on at once, in order, as their own final', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I would like a table for', 'item_1');
    await h.put(END_OF_SPEECH);
    await h.wait(100);
    await h.put(START_OF_SPEECH);
    // The start of the new speech reached the model before the commit: it lands in the old item.
    await h.put(INTERIM_TRANSCRIPT, 'I would like a table for four', 'item_1');
    await h.put(INTERIM_TRANSCRIPT, 'I would like a table for four people', 'item_2');
    await h.put(END_OF_SPEECH);
    await h.wait(100);
    await h.put(FINAL_TRANSCRIPT, 'I would like a table for four.', 'item_1');
    await h.put(FINAL_TRANSCRIPT, 'People.', 'item_2');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => [e.requestId, e.text])).toEqual([
      ['item_1', 'I would like a table for'],
      ['item_1', 'four'],
      ['item_2', 'people'],
    ]);
    expect(h.revisions).toEqual([]);
    expect(h.recognizer.counts).toMatchObject({ earlyFinals: 2, earlyConfirmed: 2, earlyRevised: 0 });
    h.close();
  });

  it('speech whose model final is still on its way comes first: the early final carries it, and each model final is held against its own part', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'Will it be sunny this weekend in', 'item_1');
    await h.put(END_OF_SPEECH);
    await h.wait(50);
    // The caller goes on before the words settle; the model's final for item_1 is slow.
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'Will it be sunny this weekend in Busan', 'item_2');
    await h.put(END_OF_SPEECH);
    expect(h.seen.filter((e) => e.type === PREFLIGHT_TRANSCRIPT).map((e) => e.text).at(-1)).toBe('Will it be sunny this weekend in Busan');
    await h.wait(100);
    await h.put(FINAL_TRANSCRIPT, 'Will it be sunny this weekend in', 'item_1');
    await h.put(FINAL_TRANSCRIPT, 'Busan?', 'item_2');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['Will it be sunny this weekend in Busan']);
    expect(h.revisions).toEqual([]);
    expect(h.recognizer.counts).toMatchObject({ earlyFinals: 1, earlyConfirmed: 2, earlyRevised: 0 });
    h.close();
  });

  it('an early-finalised speech is not offered again at the next end of speech, before the new words come', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table', 'item_1');
    await h.put(END_OF_SPEECH);
    await h.wait(100);
    await h.put(START_OF_SPEECH);
    await h.put(END_OF_SPEECH);
    await h.wait(500);
    expect(h.seen.filter((e) => e.type === PREFLIGHT_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    h.close();
  });

  it('no words by the end of speech: nothing is sent until they come and settle', async () => {
    const h = harness();
    await h.put(START_OF_SPEECH);
    await h.put(END_OF_SPEECH);
    await h.wait(500);
    expect(h.seen.map((e) => e.type)).toEqual([START_OF_SPEECH, END_OF_SPEECH]);
    await h.put(INTERIM_TRANSCRIPT, '네');
    await h.wait(100);
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['네']);
    h.close();
  });

  it('without the option the model’s final is awaited', async () => {
    const h = harness(null);
    await h.put(START_OF_SPEECH);
    await h.put(INTERIM_TRANSCRIPT, 'I need a table');
    await h.put(END_OF_SPEECH);
    await h.wait(5000);
    expect(h.seen.map((e) => e.type)).not.toContain(FINAL_TRANSCRIPT);
    await h.put(FINAL_TRANSCRIPT, 'I need a table.');
    expect(h.seen.filter((e) => e.type === FINAL_TRANSCRIPT).map((e) => e.text)).toEqual(['I need a table']);
    h.close();
  });

  it('speech that starts before the last final: each item’s final carries its own words only (the plugin’s running text joins them)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('table', 'for', 'four', '일곱', '시에', 'please'), { minLength: 1, maxLength: 4 }),
        fc.array(fc.constantFrom('at', 'seven', '두', '명', 'thanks'), { minLength: 1, maxLength: 4 }),
        async (first, second) => {
          const h = harness();
          // The plugin's running transcript: deltas appended across items until a final clears it.
          let running = '';
          const delta = async (word: string, item: string) => {
            running += running ? ` ${word}` : word;
            await h.put(INTERIM_TRANSCRIPT, running, item);
          };
          await h.put(START_OF_SPEECH);
          for (const w of first) await delta(w, 'item_a');
          await h.put(END_OF_SPEECH);
          await h.wait(100);
          await h.put(START_OF_SPEECH);
          for (const w of second) await delta(w, 'item_b');
          await h.put(END_OF_SPEECH);
          await h.wait(100);
          await h.put(FINAL_TRANSCRIPT, first.join(' '), 'item_a');
          await h.put(FINAL_TRANSCRIPT, second.join(' '), 'item_b');
          const finals = h.seen.filter((e) => e.type === FINAL_TRANSCRIPT);
          expect(finals.map((e) => [e.requestId, e.text])).toEqual([
            ['item_a', first.join(' ')],
            ['item_b', second.join(' ')],
          ]);
          expect(h.seen.filter((e) => e.type === INTERIM_TRANSCRIPT && e.requestId === 'item_b').at(-1)?.text).toBe(second.join(' '));
          expect(h.recognizer.counts).toMatchObject({ earlyFinals: 2, earlyConfirmed: 2, earlyRevised: 0 });
          h.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('waits, after the end of speech, for the words of the speech the VAD already counted as silence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 3000 }), fc.integer({ min: 0, max: 3000 }), (silenceMs, wordLagMs) => {
        const { afterEndMs, quietMs } = earlyFinalTiming({ silenceMs, wordLagMs, maxDelayMs: 1500, detector: 'transcript' });
        expect(quietMs).toBe(EARLY_FINAL_QUIET_MS);
        // The last word is due wordLagMs after the last sound, i.e. wordLagMs - silenceMs after the end.
        expect(silenceMs + afterEndMs).toBeGreaterThanOrEqual(wordLagMs + quietMs);
        // ...and no longer than that, or a quiet spell past the end when the words came long before.
        expect(afterEndMs).toBeLessThanOrEqual(Math.max(wordLagMs - silenceMs, 0) + quietMs);
      }),
    );
    expect(earlyFinalTiming({ silenceMs: 250, wordLagMs: 300, maxDelayMs: 1500, detector: 'transcript' })).toMatchObject({ afterEndMs: 150, quietMs: 100, lateQuietMs: 300, unfinishedHoldMs: 1150 });
  });

  it('holds unfinished words only for the transcript detector, and only until the framework would commit them anyway', () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 1000 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 100, max: 5000 }), (silenceMs, wordLagMs, maxDelayMs) => {
        const timing = earlyFinalTiming({ silenceMs, wordLagMs, maxDelayMs, detector: 'transcript' });
        // The framework commits unfinished words maxDelayMs after the last sound (silenceMs before the end): the final is there by then.
        expect(silenceMs + timing.unfinishedHoldMs! + timing.quietMs).toBeLessThanOrEqual(Math.max(maxDelayMs, silenceMs + timing.quietMs));
        expect(timing.lateQuietMs).toBeGreaterThanOrEqual(timing.quietMs);
        expect(timing.readsFinished!('Can you tell me about the')).toBe(false);
        expect(timing.readsFinished!('Can you tell me about the weather today?')).toBe(true);
        for (const detector of ['combined', 'audio', 'off'] as const) {
          const other = earlyFinalTiming({ silenceMs, wordLagMs, maxDelayMs, detector });
          expect(other.readsFinished).toBeUndefined();
          expect(other.unfinishedHoldMs).toBeUndefined();
        }
      }),
    );
  });
});
