/**
 * Phone calls on the real stack: a caller that joins exactly as livekit-sip does
 * (test/e2e/clients/sip.ts: kind SIP, `sip_<number>`, the `sip.*` attributes, a MICROPHONE track,
 * the dispatch rule's room name and agent dispatch, pick-up once the agent's track is subscribed)
 * and speaks telephone-band speech (8 kHz, µ-law coded and decoded), against the production worker
 * with the Cartesia fake's audible tones (each text its own pitch) and the OpenAI fake.
 *
 * The first test is the first call the worker takes after it registered: it must greet, answer,
 * and be interrupted by a caller talking over its reply like any later call.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PORTS } from '../../scripts/stack/layout.js';
import { DEFAULT_GREETINGS } from '../../src/sip/greeting.js';
import {
  type CallResult,
  type Speech,
  agentTexts,
  contextsOf,
  describeRuns,
  expectCallOk,
  heardTexts,
  keepRecord,
  loudSpan,
  pitchRuns,
  quietFrom,
  squash,
  synthesizeSpeech,
  userFinals,
  waitFor,
  expectCancelledIfStillGenerating,
  REPLY_DROPPED,
  workerLineAt,
} from './agent-calls.js';
import { type E2EStack, requireStack, startStack } from './stack.js';

const available = requireStack();

/** Audible tones, first byte 120 ms, generated at twice real time (as agent-cartesia.test.ts). */
const CARTESIA_OPTIONS = { audio: 'audible', msPerChar: 60, firstByteDelayMs: 120, realTimeFactor: 0.5 };
const WORKER_ENV = { ACK_MODE: 'off' };

/** One number per call: each must be masked wherever the worker writes it. */
const NUMBERS = { first: '+15557654321', ko: '+821098765432', keys: '+15553219876' };

const STORY = {
  user: 'Please tell me a story',
  reply:
    'Once upon a time, a small fox lived at the edge of a quiet forest. Every morning she walked to the river to watch the fish jump in the light. ' +
    'One day she met an old turtle who knew every story of the valley.',
};
/** One run of words without commas (see agent-cartesia.test.ts: a comma pause can split a turn). */
const SHORT = { user: 'Stop please and tell me something much shorter instead of the whole story', heard: 'Please tell me something short instead.', reply: 'Okay. A fox met a turtle.' };
const KOREAN = { user: '오늘 날씨가 어때요?', match: '날씨', reply: '오늘은 맑고 따뜻해요.' };
/**
 * The keys pressed, and what the LLM must read (nothing in the worker's log may show them). The
 * `*` keeps the log check from matching a number: a log line's `"duration":739.1` read as 7 3 9 1.
 */
const KEYS = { pressed: '73*91#', turn: 'The caller pressed 7 3 * 9 1 #', reply: 'Thank you, your code is confirmed.' };
const KEYS_IN_TEXT = /7\D{0,3}3\D{0,3}\*\D{0,3}9\D{0,3}1/;
/** `text` as a RegExp source that matches it character for character. */
const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.skipIf(!available)('a SIP caller, joining as livekit-sip does, in real rooms', () => {
  let stack: E2EStack;
  let speech: Map<string, Speech>;
  const workerLog = () => readFileSync(join(stack.state.runDir, 'worker.log'), 'utf8');

  beforeAll(async () => {
    const t0 = Date.now();
    [stack, speech] = await Promise.all([
      startStack({ tts: 'cartesia', web: false, workerEnv: WORKER_ENV, fakeArgs: { cartesia: ['--options', JSON.stringify(CARTESIA_OPTIONS)] } }),
      synthesizeSpeech([
        { text: STORY.user, language: 'en-us', telephone: true },
        { text: SHORT.user, language: 'en-us', telephone: true },
        { text: KOREAN.user, language: 'ko', telephone: true },
      ]),
    ]);
    console.info(`[test/e2e] sip-caller: stack up in ${stack.state.upMs} ms (beforeAll ${Date.now() - t0} ms)`);
  }, 150_000);

  afterAll(async () => {
    await stack?.stop();
    for (const { file } of speech?.values() ?? []) rmSync(file, { force: true });
  }, 90_000);

  const call = async (args: string[]) => {
    // A starved machine (other stacks on 2 cores) stretched a 3 s greeting to 13 s: generous bounds.
    const bounds = ['--greeting-timeout-ms', '120000', '--timeout-ms', '200000'];
    const result = (await stack.client('agent-call', ['--agent', stack.state.agentName, ...bounds, ...args], { timeoutMs: 210_000 })) as CallResult;
    keepRecord(stack, result);
    expectCallOk(result);
    return result;
  };

  /**
   * The greeting is the call's first TTS context and the first sound the caller hears: the first
   * run of one pitch is the greeting's, and no other text's tone is heard before the greeting's
   * last. A run needs 3 frames: a loaded machine breaks the track's first half second into bursts,
   * a burst's edge frame reads tens of Hz off its tone, and two such frames read 399 Hz (the
   * reply's 400) in a greeting of 350 and 375 Hz. The greeting lasts seconds, and runs whole after
   * that first half second.
   */
  function expectGreetingFirst(result: CallResult) {
    const contexts = contextsOf(result.cartesia);
    const greeting = contexts[0]!;
    expect(squash(greeting.texts.join(' '))).toBe(squash(DEFAULT_GREETINGS.en!));
    const voiced = contexts.flatMap((c) => c.voiced);
    const runs = pitchRuns(result.frames);
    const { heard } = heardTexts(runs, voiced, { minFrames: 3 });
    const greetingTones = new Set(greeting.voiced.map((v) => v.hz));
    const picture = `runs: ${describeRuns(runs.slice(0, 30))}`;
    expect(heard.length, picture).toBeGreaterThan(0);
    expect(greetingTones.has(heard[0]!.hz), picture).toBe(true);
    const lastGreeting = heard.findLastIndex((h) => greetingTones.has(h.hz));
    expect(heard.slice(0, lastGreeting).every((h) => greetingTones.has(h.hz)), picture).toBe(true);
    expect(agentTexts(result)[0]).toBe(squash(DEFAULT_GREETINGS.en!));
    const first = loudSpan(result.frames)!;
    const joined = result.joinedMs as number;
    const answered = result.answeredMs as number;
    console.info(`[test/e2e] sip: greeting heard ${first.firstMs - joined} ms after the join, ${first.firstMs - answered} ms after pick-up`);
    return first;
  }

  it('the first call after the worker starts: greeting first, the question answered, a barge-in during the reply interrupts it and is answered', async () => {
    const script = [
      { match: 'story', reply: STORY.reply },
      { match: 'short', reply: SHORT.reply },
    ];
    const result = await call([
      '--sip', NUMBERS.first,
      '--speak', speech.get(STORY.user)!.file,
      '--transcripts', JSON.stringify([STORY.user, SHORT.heard]),
      '--openai-script', JSON.stringify(script),
      '--barge-in', speech.get(SHORT.user)!.file,
      '--barge-in-after-ms', '1000',
      '--replies', '2',
    ]);
    expect(result.room).toMatch(/^call-_\+15557654321_[A-Za-z0-9]{12}$/);
    const greeting = expectGreetingFirst(result);
    const [question, barge] = result.speech;
    expect(greeting.firstMs).toBeLessThan(question!.startMs!);

    const [, story, short, ...more] = contextsOf(result.cartesia);
    expect(more, 'an extra TTS context').toEqual([]);
    expect(squash(story!.texts.join(' '))).toBe(squash(STORY.reply));
    expect(squash(short!.texts.join(' '))).toBe(squash(SHORT.reply));
    expectCancelledIfStillGenerating(story!, workerLineAt(workerLog(), REPLY_DROPPED, result.t0Epoch), 'the story');

    // The agent fell silent, then answered the caller. How soon is a figure, not a bound: on an
    // idle machine the VAD pauses the reply while the caller talks; on a starved one its inference
    // fell seconds behind and the STT's final transcript was what stopped the reply (docs/sip.md).
    const runs = pitchRuns(result.frames, barge!.voicedStartMs);
    const silentAt = quietFrom(result.frames, barge!.voicedStartMs!, 600);
    const { heard } = heardTexts(runs, short!.voiced, { minFrames: 2 });
    expect(heard.map((h) => h.text), `runs ${describeRuns(runs)}`).toEqual(short!.voiced.map((v) => v.text));
    expect(silentAt, `never silent before the answer; runs ${describeRuns(runs)}`).toBeLessThan(heard[0]!.startMs);
    if (story!.cancelledAt !== undefined) expect(story!.cancelledAt - result.t0Epoch).toBeGreaterThan(barge!.voicedStartMs!);
    expect(userFinals(result)).toEqual([squash(STORY.user), squash(SHORT.heard)]);
    console.info(`[test/e2e] sip first call: fell silent ${silentAt - barge!.voicedStartMs!} ms after the caller cut in (they spoke ${barge!.voicedEndMs! - barge!.voicedStartMs!} ms)`);
  }, 300_000);

  it('answers Korean speech carried as 8 kHz µ-law', async () => {
    const result = await call([
      '--sip', NUMBERS.ko,
      '--speak', speech.get(KOREAN.user)!.file,
      '--transcripts', JSON.stringify([KOREAN.user]),
      '--openai-script', JSON.stringify([{ match: KOREAN.match, reply: KOREAN.reply }]),
    ]);
    expectGreetingFirst(result);
    const utterances = result.openai!.after!.utterances.slice(result.openai!.before!.utterances.length);
    expect(utterances.map((u) => u.transcript)).toEqual([KOREAN.user]);
    // The STT received the caller's words as one utterance about as long as they spoke.
    expect(utterances[0]!.durationMs).toBeGreaterThan(speech.get(KOREAN.user)!.durationMs * 0.8);
    expect(agentTexts(result).slice(1)).toEqual([squash(KOREAN.reply)]);
  }, 300_000);

  it('turns key presses into a user turn the LLM reads, never writing the keys to the log', async () => {
    const result = await call([
      '--sip', NUMBERS.keys,
      '--dtmf', KEYS.pressed,
      // Only the exact turn text gets this reply: hearing it proves what the LLM request carried.
      '--openai-script', JSON.stringify([{ match: { regex: `^${literally(KEYS.turn)}$`, flags: '' }, reply: KEYS.reply }]),
    ]);
    expectGreetingFirst(result);
    expect(result.openai!.after!.chatRequests - result.openai!.before!.chatRequests).toBe(1);
    expect(agentTexts(result).slice(1)).toEqual([KEYS.reply]);
    const log = workerLog();
    expect(log).toMatch(/"keys":6,"reason":"hash"[^\n]*"msg":"caller pressed keys"/);
    // The keys, together or spaced (`73*91`, `7 3 * 9 1`, `["7","3","*","9","1"]`).
    expect(KEYS.turn).toMatch(KEYS_IN_TEXT);
    expect(log).not.toMatch(KEYS_IN_TEXT);
    expect(log).not.toContain('The caller pressed');
  }, 300_000);

  it('ends every job when its caller hangs up: no error lines, no number in clear, the job processes free', async () => {
    // Each call above hung up (left the room) when it was done; the worker must end every job.
    const workerInfo = async () => {
      const script = `fetch('http://127.0.0.1:${PORTS.agentHttp}/worker').then((r) => r.text()).then((t) => process.stdout.write(t))`;
      const { stdout, code } = await stack.exec(process.execPath, ['-e', script], { timeoutMs: 15_000 });
      return code === 0 ? (JSON.parse(stdout) as { active_jobs?: number; activeJobs?: number; [key: string]: unknown }) : undefined;
    };
    const idle = await waitFor('every job to end', async () => {
      const info = await workerInfo();
      const active = info?.active_jobs ?? info?.activeJobs;
      return active === 0 ? info : undefined;
    }, 60_000);
    console.info(`[test/e2e] sip: after the hang-ups the worker reports ${JSON.stringify(idle)}`);

    const log = workerLog();
    for (const number of Object.values(NUMBERS)) {
      const digits = number.slice(1);
      expect(log.includes(digits), `${number} in clear in the worker's log`).toBe(false);
    }
    // The callers were logged, masked (the framework's own identity fields included).
    expect(log).toContain(`sip_+*******4321`);
    const errors = log.split('\n').filter((line) => /"level":(50|60)/.test(line) || /^\s*(Error|TypeError|Unhandled)/.test(line));
    expect(errors, 'error lines in the worker log').toEqual([]);
  }, 90_000);

  it('still answers the next caller (the job process was free)', async () => {
    const result = await call([
      '--sip', NUMBERS.first,
      '--chat', 'Please tell me something short',
      '--openai-script', JSON.stringify([{ match: 'short', reply: SHORT.reply }]),
    ]);
    expectGreetingFirst(result);
    expect(agentTexts(result).slice(1)).toEqual([squash(SHORT.reply)]);
  }, 300_000);
});
