/**
 * The production worker (`src/agent.ts start`, registered as `firstword`) in real rooms, with the
 * offline local voice (eSpeak, real speech), the OpenAI fake as its LLM and STT, and the real
 * Silero VAD: token dispatch, and typed and spoken turns in Korean and English. Every
 * participant runs inside the stack's namespace (test/e2e/clients/agent-call.ts).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from '../../src/local-voice/synthesizer.js';
import type { VoiceLanguage } from '../../src/local-voice/worker-messages.js';
import { durationMs, speak } from '../servers/openai/test-audio.js';
import {
  type CallResult,
  type Speech,
  FRAME_MS,
  agentTexts,
  expectCallOk,
  keepRecord,
  freshRoom,
  loudSpan,
  squash,
  synthesizeSpeech,
  userFinals,
  waitFor,
} from './agent-calls.js';
import { EARLY_ACK_PHRASES } from '../../src/ack/phrases.js';
import { type E2EStack, requireStack, startStack } from './stack.js';

const available = requireStack();
const AGENT = 'firstword';

interface Turn {
  language: VoiceLanguage;
  /** What the caller types or says (and what the STT fake "hears"). */
  user: string;
  /** The LLM fake's scripted reply, matched on `match`. */
  match: string;
  reply: string;
}

const TYPED: Record<'ko' | 'en', Turn> = {
  ko: { language: 'ko', user: '도서관은 몇 시에 열어요?', match: '도서관', reply: '도서관은 아침 아홉 시에 열고 저녁 여섯 시에 닫아요.' },
  en: { language: 'en-us', user: 'What time does the library open?', match: 'library', reply: 'The library opens at nine in the morning and closes at six in the evening.' },
};
const SPOKEN: Record<'ko' | 'en', Turn> = {
  ko: { language: 'ko', user: '오늘 날씨가 어때요?', match: '날씨', reply: '네, 오늘은 맑고 따뜻해요. 오후에는 바람이 조금 불어요.' },
  en: { language: 'en-us', user: 'Can you tell me about the weather today?', match: 'weather', reply: 'Sure. It is sunny and warm today, with a light breeze in the afternoon.' },
};

const script = (turn: Turn) => JSON.stringify([{ match: turn.match, reply: turn.reply }]);

describe.skipIf(!available)('the production worker in real rooms (local voice)', () => {
  let stack: E2EStack;
  let speech: Map<string, Speech>;
  /** eSpeak's own duration of each scripted reply: what the agent's audio should roughly last. */
  const replyMs = new Map<string, number>();

  beforeAll(async () => {
    const t0 = Date.now();
    [stack, speech] = await Promise.all([
      startStack({ tts: 'local', web: false }),
      synthesizeSpeech(Object.values(SPOKEN).map(({ user, language }) => ({ text: user, language }))),
    ]);
    const synthesizer = await EspeakSynthesizer.start();
    try {
      for (const turn of [...Object.values(TYPED), ...Object.values(SPOKEN)]) {
        replyMs.set(turn.reply, durationMs(await speak(synthesizer, turn.reply, turn.language)));
      }
    } finally {
      await synthesizer.close();
    }
    console.info(`[test/e2e] agent-local: stack up in ${stack.state.upMs} ms (beforeAll ${Date.now() - t0} ms)`);
  }, 150_000);

  afterAll(async () => {
    const t0 = Date.now();
    await stack?.stop();
    for (const { file } of speech?.values() ?? []) rmSync(file, { force: true });
    console.info(`[test/e2e] agent-local: stack down in ${Date.now() - t0} ms`);
  }, 60_000);

  const call = async (args: string[]) => {
    const result = (await stack.client('agent-call', ['--agent', AGENT, ...args], { timeoutMs: 120_000 })) as CallResult;
    keepRecord(stack, result);
    expectCallOk(result);
    return result;
  };

  /** The worker's newest `turn latency` line (its log is the stack's). */
  /** The worker's last turn line: its stamps are ms after `atEpochMs`. */
  interface TurnLine {
    ack?: { outcome: string; reason?: string; durationMs?: number; expectedWaitMs?: number };
    atEpochMs: number;
    stamps: { playbackStarted?: number };
  }
  function lastTurnLine(): TurnLine {
    const lines = readFileSync(join(stack.state.runDir, 'worker.log'), 'utf8').split('\n').filter((line) => line.includes('"turn latency"'));
    expect(lines.length, 'the worker logged the turn').toBeGreaterThan(0);
    return JSON.parse(lines.at(-1)!) as TurnLine;
  }

  /** The reply was heard: speech energy on the agent's track, for about as long as eSpeak says it. */
  function expectSpokenReply(result: CallResult, turn: Turn, afterMs: number, { ackMs = 0 } = {}) {
    const span = loudSpan(result.frames, afterMs);
    expect(span, 'no speech energy on the agent track').toBeDefined();
    const reference = replyMs.get(turn.reply)!;
    console.info(
      `[test/e2e] ${turn.language} reply: ${span!.loudMs} ms loud over ${span!.spanMs} ms (eSpeak alone: ${Math.round(reference)} ms), max RMS ${span!.maxRms}`,
    );
    expect(span!.maxRms).toBeGreaterThan(2000);
    // The reply is voiced chunk by chunk; the words are eSpeak's, so their sound lasts about as
    // long. How far it is spread is not bounded: a CPU-starved worker's playout stutters (a 4 s
    // reply once spread over 11 s in CI); more sound than the reply's, or a second text, would
    // show below.
    expect(span!.spanMs).toBeGreaterThan(reference * 0.7);
    expect(span!.loudMs).toBeGreaterThan(reference * 0.4);
    expect(span!.loudMs).toBeLessThan(reference * 1.2 + 200 + ackMs);
    // What the agent said, as text, is the reply the LLM gave (one segment, nothing else).
    expect(agentTexts(result)).toEqual([squash(turn.reply)]);
  }

  it('joins a room whose token dispatches it, and no room whose token names no agent', async () => {
    // Both rooms are created at the same moment, on a worker that registered before the test:
    // the server dispatches at room creation, so the named room's agent arriving bounds how long
    // a wrongly dispatched agent would take. 8 s is several times that (1–3 s here), and more
    // than livekit-server's 3 s batching of participant updates.
    const [named, unnamed] = await Promise.all([
      stack.client('agent-dispatch', ['--room', freshRoom('dispatch'), '--identity', 'caller', '--agent', AGENT, '--expect', 'agent']),
      stack.client('agent-dispatch', ['--room', freshRoom('nodispatch'), '--identity', 'caller', '--expect', 'none', '--watch-ms', '8000']),
    ]);
    expect(named, JSON.stringify(named)).toMatchObject({ ok: true });
    const agents = (named.participants as { kind: string; attributes: Record<string, string> }[]).filter((p) => p.kind === 'AGENT');
    expect(agents).toHaveLength(1);
    expect(agents[0]!.attributes['lk.agent.state']).toBeDefined();
    expect(agents[0]!.attributes['lk.agent.name']).toBe(AGENT);
    expect(unnamed, JSON.stringify(unnamed)).toMatchObject({ ok: true, participants: [] });
    expect(unnamed.watchedMs).toBeGreaterThanOrEqual(8000);
    console.info(`[test/e2e] dispatch: agent state after ${named.stateMs} ms; the unnamed room stayed empty for ${unnamed.watchedMs} ms`);
  }, 60_000);

  it.each(['ko', 'en'] as const)('answers a typed turn on lk.chat (%s)', async (lang) => {
    const turn = TYPED[lang];
    const result = await call(['--room', freshRoom(`typed-${lang}`), '--chat', turn.user, '--openai-script', script(turn)]);
    expect(result.openai!.after!.chatRequests - result.openai!.before!.chatRequests).toBe(1);
    expectSpokenReply(result, turn, result.chatMs!);
  }, 120_000);

  it.each(['ko', 'en'] as const)('answers a spoken turn: real speech, Silero VAD, STT transcript (%s)', async (lang) => {
    const turn = SPOKEN[lang];
    const wav = speech.get(turn.user)!;
    const result = await call([
      '--room', freshRoom(`spoken-${lang}`),
      '--speak', wav.file,
      '--transcripts', JSON.stringify([turn.user]),
      '--openai-script', script(turn),
    ]);
    const [utterance] = result.speech;
    expect(utterance?.voicedEndMs, 'the caller spoke').toBeDefined();
    // The STT committed exactly one utterance, the one queued for it, about as long as the speech.
    const utterances = result.openai!.after!.utterances.slice(result.openai!.before!.utterances.length);
    expect(utterances.map((u) => u.transcript)).toEqual([turn.user]);
    expect(utterances[0]!.durationMs).toBeGreaterThan(wav.durationMs * 0.8);
    // The agent published the caller's final transcript, and answered only after they stopped.
    expect(userFinals(result)).toEqual([squash(turn.user)]);
    const span = loudSpan(result.frames, utterance!.startMs);
    expect(span!.firstMs).toBeGreaterThan(utterance!.voicedEndMs!);
    // The early acknowledgement is heard first (the embedded voice makes it at 22.05 kHz; a room
    // takes 24 kHz and dropped it silently until it was resampled), then the reply: the sound from
    // the ack on is the reply's and at most the ack's length more. The reply's audio waits behind
    // the ack (AckOutput), so sound in the ack's window is the ack's. How much of it is loud is not
    // held to a share: when the worker, the SFU and this caller share two busy cores, the first
    // ~500 ms after a silence arrive in pieces (40 ms of every 200 ms, then whole; 40 to 140 ms
    // of a 433 ms clip were heard, where an idle machine hears 360 to 400).
    // Sound heard before the worker even began to play the reply can only be the ack's.
    const { ack, atEpochMs, stamps } = lastTurnLine();
    const replyPlayedMs = atEpochMs + stamps.playbackStarted! - result.t0Epoch;
    if (ack?.outcome === 'skipped') {
      // A starved host delivers the live words late (1.6 s after the speech was seen here), so the
      // words that end the turn come when less of the expected wait is left than any clip lasts:
      // the worker skips the ack rather than hold the reply behind it. Then nothing plays first.
      expect(ack.reason, 'the only reason to skip an ack on a finished question').toBe('reply_ready');
      expect(ack.expectedWaitMs, 'the wait no clip fitted is logged').toBeDefined();
      expect(loudSpan(result.frames, utterance!.voicedEndMs!, replyPlayedMs - FRAME_MS), 'sound before the reply, with no ack').toBeUndefined();
      expectSpokenReply(result, turn, span!.firstMs);
      console.info(`[test/e2e] ${lang} spoken turn: no ack (only ${ack.expectedWaitMs} ms of the expected wait were left when the words ended the turn)`);
      return;
    }
    expect(ack?.outcome, 'the early ack played').toBe('played');
    const ackHeard = loudSpan(result.frames, utterance!.voicedEndMs!, Math.min(replyPlayedMs, span!.firstMs + ack!.durationMs!) - FRAME_MS);
    expect(ackHeard?.loudMs ?? 0, `the ack reached the caller before the reply began to play (${Math.round(replyPlayedMs)} ms)`).toBeGreaterThanOrEqual(FRAME_MS);
    expectSpokenReply(result, turn, span!.firstMs, { ackMs: ack!.durationMs! });
    console.info(
      `[test/e2e] ${lang} spoken turn: the ack heard ${span!.firstMs - utterance!.voicedEndMs!} ms after the caller's speech ended ` +
        `(${ackHeard!.loudMs} ms loud of its ${Math.round(ack!.durationMs!)} ms)`,
    );
  }, 120_000);

  it('synthesizes its acknowledgements once: the job processes forked for later calls read them back', async () => {
    interface AcksReady {
      acks: number;
      fromStore: number;
    }
    const phrases = EARLY_ACK_PHRASES.ko.length + EARLY_ACK_PHRASES.en.length;
    const readyLines = () =>
      readFileSync(join(stack.state.runDir, 'worker.log'), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"acknowledgements ready"'))
        .map((line) => JSON.parse(line) as AcksReady);
    // The calls above each took a prewarmed process and the framework forked its replacement after
    // the first ones had stored every phrase; a replacement may still be preparing.
    const lines = await waitFor('a job process that read its acknowledgements', async () => (readyLines().some((l) => l.fromStore > 0) ? readyLines() : undefined), 30_000);
    expect(lines.every((l) => l.acks === phrases), JSON.stringify(lines)).toBe(true);
    expect(lines.some((l) => l.fromStore === phrases), JSON.stringify(lines)).toBe(true);
    console.info(`[test/e2e] acknowledgements: ${lines.map((l) => `${l.fromStore}/${l.acks}`).join(', ')} read from the worker's store per job process`);
  }, 60_000);
});
