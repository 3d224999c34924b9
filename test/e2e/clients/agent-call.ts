/**
 * A caller of the production agent: joins a fresh `--room` with the project's token dispatching
 * `--agent NAME`, publishes a microphone (digital silence, or a WAV of speech, at real-time pace
 * in 10 ms frames — a real caller's mic never stops), waits until the agent is `listening`, then
 * takes one turn and records what comes back until `--replies` agent replies have finished:
 *
 *   --sip NUMBER                join as a phone caller bridged by livekit-sip (clients/sip.ts:
 *                               room, identity, kind, attributes, pick-up); the greeting is
 *                               awaited before the turn and counts as one more reply
 *   --chat TEXT                 a typed turn (`lk.chat`, as the page's text box sends it)
 *   --dtmf KEYS                 a turn of key presses (`publishDtmf`, as livekit-sip relays them)
 *   --speak FILE.wav            a spoken turn
 *   --barge-in FILE.wav         speak while the first reply plays, once `--barge-in-after-ms`
 *                               of its audio was heard (default 1500)
 *   --sigterm PID               SIGTERM that process once `--stop-after-ms` of the first reply
 *                               was heard (default 1000): a worker draining mid-reply
 *   --stop-command JSON         instead, run this argv then (e.g. `["pm2","stop","firstword"]`),
 *                               without waiting for it: a drain ends only once the caller left
 *   --openai-script JSON        POSTed to the OpenAI fake's /_control/script before joining
 *   --transcripts JSON          POSTed to its /_control/transcripts (what the STT will "hear")
 *   --threshold RMS             a 20 ms frame louder than this is agent audio (default 300)
 *   --tail-ms N                 keep listening this long after the last reply (default 1500):
 *                               audio that arrives then is audio that should not have
 *   --record FILE.wav           also write the agent's track as received (48 kHz mono), for a
 *                               person looking into a failure
 *
 * A reply has finished when the agent's `lk.agent.state` leaves `speaking` (an interrupted reply
 * too) and its `lk.transcription` streams are closed. Reported, all times in ms from `t0Epoch`:
 * `frames` ([t, rms, hz] per 20 ms frame of the agent's track at 48 kHz; t when it arrived, not
 * when it was read (test/helpers/frame-arrival.ts); hz from zero crossings when loud), `states`, `transcripts` (every `lk.transcription` stream: speaker, text, final),
 * `speech` (when the published utterances started and ended, voiced part included), `chatMs`,
 * `stopMs`, `leftEpoch`, and the fakes' stats plus the Cartesia messages of this call.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import {
  AudioFrame,
  AudioResampler,
  AudioResamplerQuality,
  AudioSource,
  AudioStream,
  LocalAudioTrack,
  type RemoteParticipant,
  type RemoteTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
  dispose,
} from '@livekit/rtc-node';
import { decodeWav, encodeWav } from '../../../src/local-voice/wav.js';
import { AGENT_STATE, callerToken, cartesiaControl, isAgent, openaiControl, zeroCrossingHz } from './agent.js';
import { need, parseArgs, rms, runClient } from './common.js';
import { sipCall, sipToken } from './sip.js';
// Types only (erased): the shapes this client reports are the ones the tests read.
import type { Frame, Transcript, Utterance } from '../agent-calls.js';
import { settledArrivals } from '../../helpers/frame-arrival.js';

const args = parseArgs();
const threshold = Number(args.threshold ?? 300);
const phone = args.sip ? sipCall(args.sip) : undefined;
/** A phone call's greeting is one reply more, before the turn. */
const replies = Number(args.replies ?? 1) + (phone ? 1 : 0);
const DTMF_CODES: Record<string, number> = { '*': 10, '#': 11 };
const tailMs = Number(args['tail-ms'] ?? 1500);
const timeoutMs = Number(args['timeout-ms'] ?? 90_000);
const MIC_RATE = 48_000;
const MIC_FRAME = MIC_RATE / 100;
/** The mic's own loudness gate for "voiced" (10 ms frames of eSpeak speech are far above it). */
const VOICED_RMS = 500;

const t0 = Date.now();
const now = () => Date.now() - t0;


/** Waits for `condition` (re-checked on every `wake()`), bounded; the error says what was awaited. */
class Conditions {
  #waiters = new Set<() => void>();
  wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
  async until(what: string, condition: () => boolean, ms: number): Promise<void> {
    if (condition()) return;
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
      this.#waiters.add(check);
    });
  }
}
const conditions = new Conditions();

function loadSpeech(file: string): Int16Array {
  const { sampleRate, samples } = decodeWav(readFileSync(file));
  if (sampleRate === MIC_RATE) return samples;
  const resampler = new AudioResampler(sampleRate, MIC_RATE, 1, AudioResamplerQuality.HIGH);
  const frames = [...resampler.push(new AudioFrame(samples, sampleRate, 1, samples.length)), ...resampler.flush()];
  resampler.close();
  const out = new Int16Array(frames.reduce((n, f) => n + f.samplesPerChannel, 0));
  let offset = 0;
  for (const frame of frames) {
    out.set(frame.data.subarray(0, frame.samplesPerChannel), offset);
    offset += frame.samplesPerChannel;
  }
  return out;
}

interface Pending {
  samples: Int16Array;
  record: Utterance;
  done: () => void;
}

/**
 * A microphone that always sends: silence, or the utterance being spoken. A frame's time is when
 * its last sample leaves the source (accepted by `captureFrame`, plus what the 100 ms source queue
 * still holds ahead of it, itself included): when a real microphone would have captured it.
 */
class Microphone {
  readonly source = new AudioSource(MIC_RATE, 1, 100);
  readonly utterances: Utterance[] = [];
  #queue: Pending[] = [];
  #stopped = false;
  #running: Promise<void> | undefined;

  start(): void {
    this.#running = this.#loop();
  }

  speak(file: string): Promise<void> {
    const samples = loadSpeech(file);
    const record: Utterance = { file, durationMs: (samples.length * 1000) / MIC_RATE };
    this.utterances.push(record);
    return new Promise((done) => this.#queue.push({ samples, record, done }));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  async #loop(): Promise<void> {
    const silence = new Int16Array(MIC_FRAME);
    let current: Pending | undefined;
    let offset = 0;
    while (!this.#stopped) {
      current ??= this.#queue.shift();
      if (!current) {
        await this.source.captureFrame(new AudioFrame(silence, MIC_RATE, 1, MIC_FRAME));
        continue;
      }
      const slice = new Int16Array(MIC_FRAME);
      slice.set(current.samples.subarray(offset, offset + MIC_FRAME));
      offset += MIC_FRAME;
      await this.source.captureFrame(new AudioFrame(slice, MIC_RATE, 1, MIC_FRAME));
      const at = now() + this.source.queuedDuration;
      const record = current.record;
      record.startMs ??= at;
      if (rms(slice) > VOICED_RMS) {
        record.voicedStartMs ??= at;
        record.voicedEndMs = at;
      }
      if (offset >= current.samples.length) {
        record.endMs = at;
        current.done();
        current = undefined;
        offset = 0;
      }
    }
  }
}

/** Frames stamped by arrival: reads that waited for a busy event loop share a millisecond. */
function withArrivals(frames: Frame[]): Frame[] {
  const arrivals = settledArrivals(frames.map(([at]) => ({ at, ms: 20 })));
  return frames.map(([, level, hz], i) => [arrivals[i]!, level, hz]);
}

const cartesia = Boolean(process.env.STACK_CARTESIA_URL);
const cartesiaStats = async () => (cartesia ? ((await cartesiaControl('/_control/stats')) as Record<string, number>) : undefined);

runClient('agent-call', timeoutMs, async () => {
  if (args['openai-script']) await openaiControl('/_control/script', JSON.parse(args['openai-script']) as unknown);
  if (args.transcripts) await openaiControl('/_control/transcripts', JSON.parse(args.transcripts) as unknown);
  const cartesiaBefore = await cartesiaStats();
  const openaiBefore = process.env.STACK_OPENAI_URL ? await openaiControl('/_control/stats') : undefined;

  const room = new Room();
  const identity = phone?.identity ?? args.identity ?? 'caller';
  const roomName = phone?.room ?? args.room!;
  const states: [number, string][] = [];
  const frames: Frame[] = [];
  const recorded: Int16Array[] = [];
  const transcripts: Transcript[] = [];
  let agent: RemoteParticipant | undefined;
  let agentTrack = false;
  let speakingEnds = 0;
  let heardMs = 0; // agent audio heard since the turn was taken
  let turnTaken = false;
  let micTrackSid: string | undefined;

  const watchAgent = (participant: RemoteParticipant) => {
    if (!isAgent(participant)) return;
    agent ??= participant;
    if (participant !== agent) return;
    const state = participant.attributes[AGENT_STATE];
    const previous = states.at(-1)?.[1];
    if (state !== undefined && state !== previous) {
      states.push([now(), state]);
      if (previous === 'speaking') speakingEnds++;
    }
    conditions.wake();
  };
  room.on(RoomEvent.ParticipantConnected, watchAgent);
  room.on(RoomEvent.ParticipantAttributesChanged, (_changed, participant) => {
    if (participant !== room.localParticipant) watchAgent(participant as RemoteParticipant);
  });
  room.on(RoomEvent.TrackSubscribed, (track: RemoteTrack, _publication, participant) => {
    if (track.kind !== TrackKind.KIND_AUDIO || !isAgent(participant)) return;
    agentTrack = true;
    if (phone) {
      // livekit-sip answers (200 OK) once its subscription to the agent's track is up.
      extra.answeredMs = now();
      void room.localParticipant!.setAttributes({ 'sip.callStatus': 'active' });
    }
    conditions.wake();
    void (async () => {
      for await (const frame of new AudioStream(track, { sampleRate: 48_000, numChannels: 1, frameSizeMs: 20 })) {
        if (args.record) recorded.push(frame.data.slice());
        const level = rms(frame.data);
        const loud = level > threshold;
        frames.push([now(), Math.round(level), loud ? Math.round(zeroCrossingHz(frame.data, frame.sampleRate) * 10) / 10 : 0]);
        if (loud && turnTaken) heardMs += 20;
        conditions.wake();
      }
    })();
  });
  room.registerTextStreamHandler('lk.transcription', (reader, participantInfo) => {
    const attributes = reader.info.attributes ?? {};
    const trackId = attributes['lk.transcribed_track_id'];
    const speaker: Transcript['speaker'] =
      trackId !== undefined && trackId === micTrackSid ? 'user'
      : agent && (participantInfo.identity === agent.identity || trackId === [...agent.trackPublications.keys()][0]) ? 'agent'
      : participantInfo.identity === identity ? 'user'
      : 'other';
    const record: Transcript = { speaker, identity: participantInfo.identity, segment: attributes['lk.segment_id'], final: attributes['lk.transcription_final'], startMs: now(), text: '' };
    transcripts.push(record);
    void (async () => {
      try {
        for await (const chunk of reader) record.text += chunk;
        record.endMs = now();
      } catch {
        // A stream still open when the caller hangs up errors out ("Disconnected while
        // receiving"); it stays unended in the record rather than crashing the client.
      }
      conditions.wake();
    })();
  });

  const extra: Record<string, unknown> = {};
  const token = phone ? await sipToken(phone, args.agent) : await callerToken(roomName, identity, args.agent);
  await room.connect(need('LIVEKIT_URL'), token, { autoSubscribe: true, dynacast: false });
  extra.joinedMs = now();
  const mic = new Microphone();
  const publication = await room.localParticipant!.publishTrack(
    // livekit-sip names its track after the caller and gives no source: MICROPHONE, as here.
    LocalAudioTrack.createAudioTrack(phone ? identity : 'microphone', mic.source),
    new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }),
  );
  micTrackSid = publication.sid;
  mic.start();
  for (const participant of room.remoteParticipants.values()) watchAgent(participant);

  const report = async (extra: Record<string, unknown> = {}) => {
    if (args.record) {
      const all = new Int16Array(recorded.reduce((n, f) => n + f.length, 0));
      recorded.reduce((offset, f) => (all.set(f, offset), offset + f.length), 0);
      writeFileSync(args.record, encodeWav(all, 48_000));
    }
    const cartesiaAfter = await cartesiaStats().catch(() => undefined);
    const cartesiaMessages = cartesia && cartesiaBefore
      ? ((await cartesiaControl(`/_control/received?since=${cartesiaBefore.messages}`).catch(() => ({ messages: [] }))) as { messages: unknown[] }).messages
      : undefined;
    const cartesiaVoiced = cartesia && cartesiaBefore
      ? ((await cartesiaControl(`/_control/voiced?since=${cartesiaBefore.voiced}`).catch(() => ({ voiced: [] }))) as { voiced: unknown[] }).voiced
      : undefined;
    const cartesiaFinished = cartesia && cartesiaBefore
      ? ((await cartesiaControl(`/_control/finished?since=${cartesiaBefore.finished}`).catch(() => ({ finished: [] }))) as { finished: unknown[] }).finished
      : undefined;
    const openaiStats = process.env.STACK_OPENAI_URL ? await openaiControl('/_control/stats').catch(() => undefined) : undefined;
    return {
      room: roomName,
      ...(phone ? { sip: { identity, attributes: phone.attributes } } : {}),
      t0Epoch: t0,
      agent: agent ? { identity: agent.identity, attributes: { ...agent.attributes } } : undefined,
      micTrackSid,
      states,
      transcripts,
      speech: mic.utterances,
      frames: withArrivals(frames),
      cartesia: cartesia ? { before: cartesiaBefore, after: cartesiaAfter, messages: cartesiaMessages, voiced: cartesiaVoiced, finished: cartesiaFinished } : undefined,
      openai: { before: openaiBefore, after: openaiStats },
      ...extra,
    };
  };

  try {
    if (phone) await conditions.until('the greeting to end', () => speakingEnds >= 1, Number(args['greeting-timeout-ms'] ?? 45_000));
    await conditions.until('the agent to join and be listening', () => agent?.attributes[AGENT_STATE] === 'listening', 45_000);
    await conditions.until("the agent's audio track", () => agentTrack, 15_000);
    extra.readyMs = now();

    turnTaken = true;
    if (args.chat) {
      await room.localParticipant!.sendText(args.chat, { topic: 'lk.chat' });
      extra.chatMs = now();
    } else if (args.speak) {
      void mic.speak(args.speak);
    } else if (args.dtmf) {
      for (const key of args.dtmf) {
        await room.localParticipant!.publishDtmf(DTMF_CODES[key] ?? Number(key), key);
        // A person's key presses are ~150 ms apart; RFC 4733 events take ~100 ms each.
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      extra.dtmfMs = now();
    }

    const triggers: Promise<void>[] = [];
    if (args['barge-in']) {
      const after = Number(args['barge-in-after-ms'] ?? 1500);
      triggers.push(
        conditions.until(`${after} ms of the first reply's audio (barge-in)`, () => heardMs >= after, 45_000).then(async () => {
          extra.cartesiaAtBargeIn = await cartesiaStats();
          extra.bargeInMs = now();
          await mic.speak(args['barge-in']!);
        }),
      );
    }
    if (args.sigterm || args['stop-command']) {
      const after = Number(args['stop-after-ms'] ?? 1000);
      triggers.push(
        conditions.until(`${after} ms of the first reply's audio (stopping the worker)`, () => heardMs >= after, 45_000).then(() => {
          if (args.sigterm) process.kill(Number(args.sigterm), 'SIGTERM');
          else {
            const [cmd, ...rest] = JSON.parse(args['stop-command']!) as string[];
            spawn(cmd!, rest, { detached: true, stdio: 'ignore' }).unref();
          }
          extra.stopMs = now();
        }),
      );
    }
    await Promise.all(triggers);
    await conditions.until(`${replies} finished agent replies (lk.agent.state leaving speaking)`, () => speakingEnds >= replies, 60_000);
    await conditions.until('the agent transcription streams to close', () => transcripts.every((t) => t.endMs !== undefined), 15_000);
    extra.repliesDoneMs = now();
    // An observation window, not a wait for a condition: anything heard now is a defect.
    await new Promise((resolve) => setTimeout(resolve, tailMs));
  } catch (error) {
    return report({ ...extra, ok: false, error: (error as Error).message });
  }
  await mic.stop();
  await room.disconnect();
  extra.leftEpoch = Date.now();
  return report(extra);
}, dispose);
