/**
 * One realtime transcription WebSocket. Audio is committed either by server_vad (speech_started →
 * speech_stopped → committed, what the plugin relies on for gpt-4o-transcribe, whose default
 * turn detection is server_vad) or by the client's `input_audio_buffer.commit` (the plugin's
 * path with `turnDetection: null` and a VAD). Each commit is transcribed from the shared queue:
 * deltas spread over `transcriptionDelayMs`, then `completed`.
 *
 * The live models (gpt-realtime-whisper, gpt-live-transcribe) have no server-side turn
 * detection (a session.update asking for one is refused) and transcribe while the speech arrives:
 * each word's delta `deltaLagMs` after its audio (speech-words.ts), `completed`
 * `finalAfterCommitMs` after the client's commit, never before the item's last delta.
 */
import type { RawData, WebSocket } from 'ws';
import { describeIssue } from './errors.js';
import { newId } from './http.js';
import { InputAudioBuffer, SAMPLE_RATE, type ServerVad, type VadEvent } from './input-buffer.js';
import type { OpenAIServerOptions, RealtimeSessionRecord, UtteranceRecord } from './options.js';
import { decodeBase64, pcm16, rms } from './pcm.js';
import {
  CONVERSATION_ONLY_EVENTS,
  type ClientEventType,
  type EffectiveSession,
  SERVER_VAD_DEFAULTS,
  type SessionConfig,
  clientEventSchemas,
  errorEvent,
  serverEvent,
  sessionResource,
  transcriptionUsage,
} from './realtime-protocol.js';
import { type TranscriptQueue, languageOf, transcriptDeltas } from './transcripts.js';
import { tokenize } from './tokenize.js';
import { isLiveModel } from './options.js';
import { type HeardWord, SpeechWords } from './speech-words.js';
import { seededRandom } from '../prng.js';

export interface RealtimeHooks {
  options(): OpenAIServerOptions;
  transcripts: TranscriptQueue;
  recordUtterance(utterance: UtteranceRecord): void;
  closed(connection: RealtimeConnection): void;
}

const SESSION_LIFETIME_S = 60 * 60;

export class RealtimeConnection {
  readonly #ws: WebSocket;
  readonly #record: RealtimeSessionRecord;
  readonly #hooks: RealtimeHooks;
  readonly #buffer = new InputAudioBuffer();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #session: EffectiveSession;
  #speechItemId: string | undefined;
  #previousItemId: string | null = null;
  readonly #words: SpeechWords;
  readonly #random: () => number;
  /** Live models: events due later, in the order they must leave (non-decreasing `dueAt`). */
  #outbox: { dueAt: number; send: () => void }[] = [];
  #outboxTimer: NodeJS.Timeout | undefined;

  constructor(ws: WebSocket, record: RealtimeSessionRecord, hooks: RealtimeHooks) {
    this.#ws = ws;
    this.#record = record;
    this.#hooks = hooks;
    const options = hooks.options();
    this.#session = {
      id: newId('sess_', 24),
      transcription: null,
      turnDetection: options.initialTurnDetection === 'server_vad' ? { type: 'server_vad', ...SERVER_VAD_DEFAULTS } : null,
      noiseReduction: null,
      include: null,
      expiresAt: Math.floor(Date.now() / 1000) + SESSION_LIFETIME_S,
    };
    this.#random = seededRandom(options.seed + record.connectionId);
    this.#words = new SpeechWords({
      next: () => hooks.transcripts.nextTimed(hooks.options().defaultTranscript),
      rmsThreshold: () => hooks.options().vadRmsThreshold,
      speechMsPerChar: () => hooks.options().speechMsPerChar,
    });
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => this.#onClose());
    ws.on('error', () => ws.terminate());
    if (options.sendSessionCreated) this.#send(serverEvent('session.created', { session: sessionResource(this.#session) }));
  }

  get id(): number {
    return this.#record.connectionId;
  }

  /** Drops the socket without a close frame (the client sees 1006). */
  terminate(): void {
    this.#ws.terminate();
  }

  #send(event: Record<string, unknown>): void {
    if (this.#ws.readyState === this.#ws.OPEN) this.#ws.send(JSON.stringify(event));
  }

  #reject(message: string, param: string | null, code: string | null, eventId?: string): void {
    this.#record.errors++;
    this.#send(errorEvent({ message, param, code, eventId }));
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) return this.#reject('Binary frames are not supported; send JSON text events.', null, 'invalid_value');
    let event: unknown;
    try {
      event = JSON.parse(data.toString());
    } catch {
      return this.#reject('The server could not parse the event as JSON.', null, 'invalid_json');
    }
    if (event === null || typeof event !== 'object' || Array.isArray(event)) {
      return this.#reject('Invalid event: expected a JSON object.', null, 'invalid_type');
    }
    const { type, event_id: rawEventId } = event as { type?: unknown; event_id?: unknown };
    const eventId = typeof rawEventId === 'string' ? rawEventId : undefined;
    if (typeof type !== 'string') return this.#reject("Missing required parameter: 'type'.", 'type', 'missing_required_parameter', eventId);
    if (CONVERSATION_ONLY_EVENTS.has(type)) {
      return this.#reject(`'${type}' is not supported in transcription sessions.`, 'type', 'invalid_value', eventId);
    }
    if (!(type in clientEventSchemas)) {
      const supported = Object.keys(clientEventSchemas).map((t) => `'${t}'`).join(', ');
      return this.#reject(`Invalid value: '${type}'. Supported values are: ${supported}.`, 'type', 'invalid_value', eventId);
    }
    const parsed = clientEventSchemas[type as ClientEventType].safeParse(event);
    if (!parsed.success) {
      const issue = describeIssue(parsed.error, event);
      return this.#reject(issue.message, issue.param, issue.code, eventId);
    }
    this.#record.eventCounts[type] = (this.#record.eventCounts[type] ?? 0) + 1;
    switch (parsed.data.type) {
      case 'session.update':
        return this.#updateSession(parsed.data.session, eventId);
      case 'input_audio_buffer.append':
        return this.#append(parsed.data.audio, eventId);
      case 'input_audio_buffer.commit':
        return this.#commit(eventId);
      case 'input_audio_buffer.clear':
        this.#buffer.clear();
        this.#words.clear();
        this.#speechItemId = undefined;
        return this.#send(serverEvent('input_audio_buffer.cleared'));
    }
  }

  /** Fields present in the update replace the session's; `null` turns a feature off. */
  #updateSession(session: SessionConfig, eventId?: string): void {
    const input = session.audio?.input;
    const transcription = input && 'transcription' in input ? (input.transcription ?? null) : this.#session.transcription;
    const live = isLiveModel(transcription?.model ?? undefined);
    if (live && input?.turn_detection) {
      // Refused whole, the session unchanged (UNCONFIRMED wording; the docs: these models require
      // turn detection "to be omitted or set to null").
      return this.#reject(
        `Turn detection is not supported for model '${transcription!.model}'. Omit 'session.audio.input.turn_detection' or set it to null, and commit each turn with input_audio_buffer.commit.`,
        'session.audio.input.turn_detection',
        'invalid_value',
        eventId,
      );
    }
    this.#record.sessionUpdates.push(session as Record<string, unknown>);
    if (input && 'transcription' in input) this.#session.transcription = input.transcription ?? null;
    if (input && 'turn_detection' in input) {
      const td = input.turn_detection ?? null;
      this.#session.turnDetection = td?.type === 'server_vad' ? { ...SERVER_VAD_DEFAULTS, ...td } : td;
    }
    // Omitted is the same as null for a live model: it has none.
    if (live) this.#session.turnDetection = null;
    if (input && 'noise_reduction' in input) this.#session.noiseReduction = input.noise_reduction ?? null;
    if ('include' in session) this.#session.include = session.include ?? null;
    this.#send(serverEvent('session.updated', { session: sessionResource(this.#session) }));
  }

  /** semantic_vad is served as server_vad with OpenAI's defaults (there is no model here to judge turns). */
  #vad(): ServerVad | null {
    const td = this.#session.turnDetection;
    if (!td) return null;
    const server = td.type === 'server_vad' ? td : SERVER_VAD_DEFAULTS;
    return {
      prefixPaddingMs: server.prefix_padding_ms ?? SERVER_VAD_DEFAULTS.prefix_padding_ms,
      silenceDurationMs: server.silence_duration_ms ?? SERVER_VAD_DEFAULTS.silence_duration_ms,
    };
  }

  #append(audio: string, eventId?: string): void {
    const bytes = decodeBase64(audio);
    if (!bytes) return this.#reject("Invalid 'audio'. Expected base64-encoded audio bytes.", 'audio', 'invalid_value', eventId);
    const samples = pcm16(bytes);
    // Words first: a server_vad commit in this same audio then carries every piece it took in.
    if (this.#bindsBySpeech()) {
      const heard = this.#words.append(samples, Date.now());
      if (this.#words.bound && this.#speechItemId === undefined) this.#speechItemId = newId('item_', 21);
      if (this.#live()) this.#sendDeltas(this.#speechItemId!, heard);
    }
    const events = this.#buffer.append(samples, this.#vad(), this.#hooks.options().vadRmsThreshold);
    for (const event of events) this.#onVad(event);
  }

  #onVad(event: VadEvent): void {
    if (event.type === 'speech_started') {
      this.#speechItemId = newId('item_', 21);
      this.#send(serverEvent('input_audio_buffer.speech_started', { audio_start_ms: event.audioStartMs, item_id: this.#speechItemId }));
      return;
    }
    const itemId = this.#speechItemId ?? newId('item_', 21);
    this.#speechItemId = undefined;
    this.#send(serverEvent('input_audio_buffer.speech_stopped', { audio_end_ms: event.audioEndMs, item_id: itemId }));
    this.#committed(itemId, event.samples, 'server-vad');
  }

  #commit(eventId?: string): void {
    const minMs = this.#hooks.options().minCommitMs;
    const buffered = this.#buffer.bufferedMs;
    if (buffered < minMs) {
      return this.#reject(
        `Error committing input audio buffer: buffer too small. Expected at least ${minMs}ms of audio, but buffer only has ${buffered.toFixed(2)}ms of audio.`,
        null,
        'input_audio_buffer_commit_empty',
        eventId,
      );
    }
    const itemId = this.#speechItemId ?? newId('item_', 21);
    this.#speechItemId = undefined;
    this.#committed(itemId, this.#buffer.commit(), 'commit');
  }

  #live(): boolean {
    return isLiveModel(this.#session.transcription?.model ?? undefined);
  }

  /** Transcription is off until a session.update configures it, as on OpenAI: nothing is bound before. */
  #bindsBySpeech(): boolean {
    return this.#session.transcription !== null && (this.#live() || this.#hooks.options().bindTranscripts === 'speech');
  }

  #jitter(): number {
    return this.#random() * this.#hooks.options().timingJitterMs;
  }

  /** Each word `deltaLagMs` (plus jitter) after its audio arrived, in order. */
  #sendDeltas(itemId: string, words: HeardWord[]): void {
    const lag = this.#hooks.options().deltaLagMs;
    for (const word of words) {
      this.#sendAt(word.heardAt + lag + this.#jitter(), () =>
        this.#send(serverEvent('conversation.item.input_audio_transcription.delta', { item_id: itemId, content_index: 0, delta: word.text })),
      );
    }
  }

  /** Queues `send` for `dueAt` (Date.now() clock), never ahead of what was queued before it. */
  #sendAt(dueAt: number, send: () => void): void {
    const last = this.#outbox.at(-1)?.dueAt ?? Number.NEGATIVE_INFINITY;
    this.#outbox.push({ dueAt: Math.max(dueAt, last), send });
    if (this.#outbox.length === 1) this.#pumpOutbox();
  }

  #pumpOutbox(): void {
    this.#outboxTimer = undefined;
    while (this.#outbox.length > 0 && this.#outbox[0]!.dueAt <= Date.now()) this.#outbox.shift()!.send();
    const head = this.#outbox[0];
    if (head) this.#outboxTimer = setTimeout(() => this.#pumpOutbox(), Math.max(1, Math.ceil(head.dueAt - Date.now())));
  }

  #committed(itemId: string, samples: Int16Array, source: UtteranceRecord['source']): void {
    this.#send(serverEvent('input_audio_buffer.committed', { previous_item_id: this.#previousItemId, item_id: itemId }));
    this.#previousItemId = itemId;
    const options = this.#hooks.options();
    const committedAt = Date.now();
    const bound = this.#bindsBySpeech() ? this.#words.commit(committedAt) : undefined;
    // Transcription is off until a session.update configures it, as on OpenAI.
    const transcript = bound?.transcript ?? (this.#session.transcription ? this.#hooks.transcripts.next(options.defaultTranscript) : '');
    const durationMs = (samples.length * 1000) / SAMPLE_RATE;
    this.#hooks.recordUtterance({ source, connectionId: this.id, itemId, durationMs, rms: rms(samples), transcript, receivedAt: committedAt });
    if (!this.#session.transcription) return;
    if (this.#live()) {
      this.#sendDeltas(itemId, bound!.late);
      this.#sendAt(committedAt + options.finalAfterCommitMs + this.#jitter(), () => this.#send(this.#completedEvent(itemId, transcript, durationMs)));
      return;
    }

    const deltas = transcriptDeltas(transcript, options.transcriptDeltas);
    const delay = options.transcriptionDelayMs;
    deltas.forEach((delta, i) => {
      this.#later(Math.floor((delay * (i + 1)) / (deltas.length + 1)), () =>
        this.#send(serverEvent('conversation.item.input_audio_transcription.delta', { item_id: itemId, content_index: 0, delta })),
      );
    });
    this.#later(delay, () => this.#send(this.#completedEvent(itemId, transcript, durationMs)));
  }

  #completedEvent(itemId: string, transcript: string, durationMs: number): Record<string, unknown> {
    return serverEvent('conversation.item.input_audio_transcription.completed', {
      item_id: itemId,
      content_index: 0,
      transcript,
      usage: transcriptionUsage(durationMs, tokenize(transcript).length),
      logprobs: null,
      ...(this.#hooks.options().reportLanguage && transcript ? { languages: [{ code: languageOf(transcript) }] } : {}),
    });
  }

  /**
   * A timer that dies with the socket. All timers of one item are set in the same tick with
   * non-decreasing whole-ms delays, so they fire in order (equal delays share Node's FIFO list).
   */
  #later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, ms);
    this.#timers.add(timer);
  }

  #onClose(): void {
    clearTimeout(this.#outboxTimer);
    this.#outbox = [];
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#record.closedAt = Date.now();
    this.#hooks.closed(this);
  }
}
