/**
 * The turn budget on a live room-less session: scripted user turns, FakeLLM, our ResembleTTS on a
 * loopback socket, realtime playout. Checks attribution and ordering of the stamps (not their
 * values: latency is for the benchmark), LiveKit's own metrics, and the log line.
 */
import { voice } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import type { StampName, TurnReport } from '../../src/latency/stamps.js';
import { TURN_LOG_MESSAGE, attachTurnBudget } from '../../src/latency/turn-budget.js';
import { type AckSession, segmentsFinished, startAckSession, turnsReported } from '../ack/harness.js';
import { withTimeout } from '../helpers/async.js';

const QUESTION = '서울 날씨 어때요?';
const REPLY = '오늘 서울은 맑고, 최고 기온은 이십삼 도예요.';

function expectOrdered(report: TurnReport, names: StampName[]): void {
  const values = names.map((name) => {
    const at = report.stamps[name];
    expect(at, `stamp ${name}`).toBeDefined();
    return at!;
  });
  for (let i = 1; i < values.length; i++) expect(values[i], `${names[i - 1]} ≤ ${names[i]}`).toBeGreaterThanOrEqual(values[i - 1]!);
}

describe('turn budget in a session', () => {
  let s: AckSession | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('reports each turn once, with the reply’s stamps in pipeline order and the ack before the reply', async () => {
    s = await startAckSession({
      mode: 'always',
      responses: [{ input: QUESTION, content: REPLY, ttft: 30 }],
      utterances: [{ transcript: QUESTION }, { transcript: QUESTION }],
    });
    const replies: string[] = [];
    s.session.on(voice.AgentSessionEventTypes.SpeechCreated, (ev) => {
      if (ev.source === 'generate_reply') replies.push(ev.speechHandle.id);
    });
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logged = attachTurnBudget(s.session, {
      agent: s.agent,
      tts: s.engine,
      logger: { info: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) } as never,
    });

    for (let turn = 1; turn <= 2; turn++) {
      s.microphone.pushSilence(100);
      await withTimeout(Promise.all([turnsReported(s.budget, turn), turnsReported(logged, turn)]), 10_000, `turn ${turn} reported`);
    }
    await withTimeout(segmentsFinished(s.output, 4), 5_000, 'all audio played');

    expect(s.budget.reports.map((r) => r.turn)).toEqual([1, 2]);
    expect(s.budget.reports.map((r) => r.speechId)).toEqual(replies);
    for (const report of s.budget.reports) {
      expectOrdered(report, [
        'userStoppedSpeaking',
        'userTurnCompleted',
        'llmRequest',
        'llmFirstToken',
        'ttsFirstChunk',
        'ttsFirstSend',
        'ttsFirstByte',
        'ttsFirstFrame',
        'playbackStarted',
      ]);
      expectOrdered(report, ['userTurnCompleted', 'ackQueued', 'ackPlaybackStarted', 'playbackStarted']);
      expect(report.stamps.turnDecided).toBeDefined();
      expect(report.firstContentAt).toBe('playback');
      expect(report.ack).toMatchObject({ outcome: 'played', reason: 'always', language: 'ko' });
      expect(report.firstSoundMs).toBe(report.ackFirstAudioMs);
      expect(report.livekit.llmTtftMs).toBeGreaterThanOrEqual(0);
      expect(report.livekit.ttsTtfbMs).toBeGreaterThanOrEqual(0);
      expect(report.interrupted).toBe(false);
    }
    expect(s.budget.reports[0]!.ack!.phraseId).not.toBe(s.budget.reports[1]!.ack!.phraseId);

    // One line per turn: fixed message, fields first, and no user words anywhere.
    expect(lines.map((l) => l.message)).toEqual([TURN_LOG_MESSAGE, TURN_LOG_MESSAGE]);
    expect(lines.map((l) => l.fields.turn)).toEqual([1, 2]);
    for (const line of lines) expect(JSON.stringify(line.fields)).not.toContain('서울 날씨');
    logged.close();
  });

  it('puts the transcript in the log line only under a .pii. key, and only when asked', async () => {
    s = await startAckSession({
      mode: 'off',
      playout: 'instant',
      responses: [{ input: QUESTION, content: REPLY }],
      utterances: [{ transcript: QUESTION }],
    });
    const lines: Array<Record<string, unknown>> = [];
    const logged = attachTurnBudget(s.session, {
      agent: s.agent,
      tts: s.engine,
      logTranscript: true,
      logger: { info: (fields: Record<string, unknown>) => lines.push(fields) } as never,
    });
    s.microphone.pushSilence(100);
    await withTimeout(Promise.all([turnsReported(s.budget, 1), turnsReported(logged, 1)]), 10_000, 'turn reported');
    expect(lines).toHaveLength(1);
    const { 'turn.pii.transcript': transcript, ...rest } = lines[0]!;
    expect(transcript).toBe(QUESTION);
    expect(JSON.stringify(rest)).not.toContain('서울');
    expect(s.budget.reports[0]!.ack).toBeUndefined();
  });

  it('marks an interrupted reply, keeping the stamps it reached', async () => {
    s = await startAckSession({
      mode: 'off',
      msPerChar: 60,
      responses: [{ input: QUESTION, content: REPLY }],
      utterances: [{ transcript: QUESTION }],
    });
    s.output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => void s!.session.interrupt());
    s.microphone.pushSilence(100);
    await withTimeout(turnsReported(s.budget, 1), 10_000, 'turn reported');
    const [report] = s.budget.reports;
    expect(report!.interrupted).toBe(true);
    expectOrdered(report!, ['userTurnCompleted', 'llmRequest', 'ttsFirstFrame', 'playbackStarted']);
  });

  it('stamps first audio when the speaker started playing it, however long the listeners before the budget take', async () => {
    s = await startAckSession({ mode: 'off', responses: [{ input: QUESTION, content: REPLY }], utterances: [{ transcript: QUESTION }] });
    // The session's own listeners run before the budget's; on a loaded machine they took 8 ms.
    const busyMs = 40;
    s.output.prependListener(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => {
      const until = performance.now() + busyMs;
      while (performance.now() < until);
    });
    s.microphone.pushSilence(100);
    await withTimeout(turnsReported(s.budget, 1), 10_000, 'turn reported');
    const [report] = s.budget.reports;
    const [segment] = s.output.segments;
    expect(report!.stamps.playbackStarted! + report!.at).toBeCloseTo(segment!.startedAt!, 0);
  });

  it('times typed turns (generateReply with user input) from the request, one report per reply', async () => {
    s = await startAckSession({
      mode: 'always',
      responses: [
        { input: QUESTION, content: REPLY, ttft: 20 },
        { input: 'And tomorrow?', content: 'Tomorrow it rains.', ttft: 20 },
      ],
      utterances: [],
    });
    const handles: string[] = [];
    for (const [turn, input] of [QUESTION, 'And tomorrow?'].entries()) {
      const handle = s.session.generateReply({ userInput: input });
      handles.push(handle.id);
      await withTimeout(turnsReported(s.budget, turn + 1), 10_000, `typed turn ${turn + 1}`);
    }
    expect(s.budget.reports.map((r) => r.speechId)).toEqual(handles);
    for (const report of s.budget.reports) {
      expect(report.stamps.turnDecided).toBe(0);
      expectOrdered(report, ['userStoppedSpeaking', 'llmRequest', 'llmFirstToken', 'ttsFirstChunk', 'ttsFirstByte', 'ttsFirstFrame', 'playbackStarted']);
      expect(report.firstContentMs).toBe(report.stamps.playbackStarted);
      // No user turn ended, so no acknowledgement was due.
      expect(report.ack).toBeUndefined();
      expect(report.stamps.ackQueued).toBeUndefined();
    }
  });

  it('credits a preemptive draft synthesized before the turn was decided to that turn', async () => {
    // The draft's LLM and TTS run on the final transcript; the turn is committed 800 ms after the
    // end of speech, long after the draft's first chunk went to the TTS (as on a loaded worker).
    s = await startAckSession({
      mode: 'off',
      responses: [{ input: QUESTION, content: REPLY, ttft: 10 }],
      utterances: [{ transcript: QUESTION, endBeforeFinal: true }],
      turn: { minDelayMs: 800, maxDelayMs: 1_500, preemptive: true, detection: 'stt' },
    });
    let firstChunkAt: number | undefined;
    s.engine.onStream((_, timeline) => timeline.once('chunk', (ev) => (firstChunkAt ??= ev.at)));
    s.microphone.pushSilence(100);
    await withTimeout(turnsReported(s.budget, 1), 10_000, 'turn reported');
    const [report] = s.budget.reports;
    expect(report!.at + report!.stamps.userTurnCompleted!, 'the draft was synthesizing before the turn').toBeGreaterThan(firstChunkAt!);
    expectOrdered(report!, ['llmRequest', 'llmFirstToken', 'ttsFirstChunk', 'ttsFirstSend', 'ttsFirstByte', 'ttsFirstFrame']);
    expectOrdered(report!, ['userTurnCompleted', 'playbackStarted']);
    expect(report!.streamId).toBeDefined();
    // Heard from the end of speech: what a turn line without this stamp reported as nothing.
    expect(report!.firstSoundMs).toBeCloseTo(report!.stamps.playbackStarted! - report!.stamps.userStoppedSpeaking!, 0);
  });
});
