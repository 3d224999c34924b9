/**
 * Resemble requests as firstword sends them (built by its codec, one field changed where a probe
 * needs it) and their answers: audio frames, `audio_end` or an error, tied by `request_id`.
 */
import type { ResembleCodec } from '@firstword/agents-plugin-tts/protocol';
import type { CheckScope } from './check.js';
import { quote, reading, yesNo } from './format.js';
import { type Closed, type Frame, type ProbeSocket, describeClose } from './probe-socket.js';
import type { ResembleTarget } from './targets.js';

export interface ResembleRequest {
  id: number;
  track: string;
  message: Record<string, unknown>;
}

/** firstword's request for `text`; a field set to undefined in `change` is left out. */
export function request(codec: ResembleCodec, text: string, change: Record<string, unknown> = {}): ResembleRequest {
  const track = codec.newTrack();
  const message = JSON.parse(codec.encode({ track, text, opensTrack: true, closesTrack: true })[0]!) as Record<string, unknown>;
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) delete message[key];
    else message[key] = value;
  }
  return { id: Number(track), track, message };
}

export interface Answer {
  sentAt: number;
  audio: Frame[];
  end?: Frame;
  error?: Frame;
  closed?: Closed;
  /** Nothing decisive within the wait. */
  timedOut: boolean;
}

export const typeOf = (f: Frame): unknown => f.json?.type;
const idOf = (f: Frame): unknown => f.json?.request_id;

/**
 * Sends `message` and waits for its `audio_end` or an error (one with this id, or with none),
 * or — with `stopOnAudio` — for its first audio frame.
 */
export async function ask(
  socket: ProbeSocket,
  message: Record<string, unknown> | string,
  id: number | undefined,
  ms: number,
  opts: { stopOnAudio?: boolean } = {},
): Promise<Answer> {
  const from = socket.frames.length;
  const sentAt = socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  const mine = (f: Frame) => id !== undefined && idOf(f) === id;
  const decisive = await socket.next(
    (f) =>
      (typeOf(f) === 'audio_end' && mine(f)) ||
      (typeOf(f) === 'error' && (mine(f) || idOf(f) === undefined || idOf(f) === null)) ||
      (opts.stopOnAudio === true && typeOf(f) === 'audio' && mine(f)),
    ms,
    from,
  );
  const frames = socket.frames.slice(from);
  return {
    sentAt,
    audio: frames.filter((f) => typeOf(f) === 'audio' && mine(f)),
    end: decisive && typeOf(decisive) === 'audio_end' ? decisive : undefined,
    error: decisive && typeOf(decisive) === 'error' ? decisive : undefined,
    closed: decisive ? undefined : socket.closed,
    timedOut: !decisive && !socket.closed,
  };
}

export function describeAnswer(answer: Answer, ms: number): string {
  if (answer.error) return `error ${quote(answer.error)}`;
  const bytes = answer.audio.reduce((n, f) => n + Buffer.from(String(f.json?.audio_content ?? ''), 'base64').length, 0);
  const audio = answer.audio.length ? `${answer.audio.length} audio frames (${bytes} bytes)` : 'no audio';
  if (answer.end) return `${audio}, then \`audio_end\``;
  if (answer.closed) return `${audio}; socket ${describeClose(answer.closed)}`;
  if (answer.timedOut) return `${audio}; nothing decisive within ${Math.round(ms / 1000)} s`;
  return `audio started: ${audio} so far`;
}

/** The sample rates the audio frames echoed, or "absent". */
export function echoedRates(answer: Answer): string {
  const rates = [...new Set(answer.audio.map((f) => f.json?.sample_rate))];
  return rates.length === 0 ? '—' : rates.map((r) => (r === undefined ? 'absent' : String(r))).join(', ');
}

export async function openSocket(scope: CheckScope<ResembleTarget>, codec: ResembleCodec): Promise<ProbeSocket> {
  return scope.open(() => codec.connect());
}

export interface ErrorProbe {
  label: string;
  /** A request built by `request()`, or raw text for a frame that is not a valid request. */
  message: ResembleRequest | string;
  /** Text that would be costly to synthesize: stop at the first audio frame. */
  stopOnAudio?: boolean;
}

export interface ErrorProbeResult {
  rows: Array<Array<string | number | undefined>>;
  errors: Frame[];
  withoutStatus: string[];
  withoutRequestId: string[];
  audioEndAfterError: string[];
  accepted: string[];
  socketAfter: string;
}

export const ERROR_PROBE_HEADERS = ['probe', 'answer', 'status_code', 'request_id', '`audio_end` after it', 'firstword reads'];

/**
 * Sends each probe on one socket (a new one if a probe closed it), then one normal request to see
 * whether the socket still serves: the documented rule is that synthesis errors keep it open.
 */
export async function runErrorProbes(scope: CheckScope<ResembleTarget>, probes: ErrorProbe[]): Promise<ErrorProbeResult> {
  const { settings, target } = scope;
  const codec = target.codec();
  let socket = await openSocket(scope, codec);
  const result: ErrorProbeResult = { rows: [], errors: [], withoutStatus: [], withoutRequestId: [], audioEndAfterError: [], accepted: [], socketAfter: '' };
  for (const probe of probes) {
    if (!socket.isOpen) socket = await openSocket(scope, codec);
    const id = typeof probe.message === 'string' ? undefined : probe.message.id;
    const body = typeof probe.message === 'string' ? probe.message : probe.message.message;
    const from = socket.frames.length;
    const answer = await ask(socket, body, id, settings.answerMs, { stopOnAudio: probe.stopOnAudio });
    let afterError = '—';
    let readBy = '—';
    if (answer.error) {
      result.errors.push(answer.error);
      const json = answer.error.json ?? {};
      if (json.status_code === undefined) result.withoutStatus.push(probe.label);
      if (json.request_id === undefined || json.request_id === null) result.withoutRequestId.push(probe.label);
      const end = await socket.next((f) => typeOf(f) === 'audio_end' && id !== undefined && f.json?.request_id === id, settings.graceMs, from);
      afterError = end ? `yes, ${Math.round(end.at - answer.error.at)} ms later` : `none within ${settings.graceMs} ms`;
      if (end) result.audioEndAfterError.push(probe.label);
      readBy = reading(codec.decode(answer.error.raw, false, typeof probe.message === 'string' ? undefined : probe.message.track));
    } else if (answer.audio.length > 0) {
      result.accepted.push(probe.label);
      if (probe.stopOnAudio) socket.terminate(); // do not pay for a long synthesis
    }
    const json = answer.error?.json;
    result.rows.push([
      probe.label,
      describeAnswer(answer, settings.answerMs) + (probe.stopOnAudio && answer.audio.length ? ' (accepted: socket dropped to stop it)' : ''),
      json ? (json.status_code === undefined ? 'absent' : String(json.status_code)) : undefined,
      json ? (json.request_id === undefined || json.request_id === null ? 'absent' : String(json.request_id)) : undefined,
      afterError,
      readBy,
    ]);
  }
  if (!socket.isOpen) {
    result.socketAfter = `The socket ${describeClose(socket.closed)} after the last probe.`;
  } else {
    const normal = request(codec, 'Still there?');
    const answer = await ask(socket, normal.message, normal.id, settings.answerMs);
    result.socketAfter = `Socket after the probes: open; a normal request then got ${describeAnswer(answer, settings.answerMs)} (still serves: ${yesNo(answer.end !== undefined)}).`;
  }
  return result;
}

/** Sentences shared by the error checks' conclusions. */
export function errorConclusions(result: ErrorProbeResult): string[] {
  const lines: string[] = [];
  lines.push(
    result.withoutStatus.length
      ? `No \`status_code\` on: ${result.withoutStatus.join(', ')} — firstword treats a missing status as 500, retryable (resemble-codec.ts).`
      : 'Every error frame carried `status_code`.',
  );
  lines.push(
    result.withoutRequestId.length
      ? `No \`request_id\` on: ${result.withoutRequestId.join(', ')} — firstword cannot tie such an error to a request and fails every stream on that socket (socket.ts).`
      : 'Every error frame carried the request\'s `request_id`.',
  );
  lines.push(
    result.audioEndAfterError.length
      ? `\`audio_end\` followed the error for: ${result.audioEndAfterError.join(', ')} (firstword already ended the request at the error; the late \`audio_end\` is dropped as stale).`
      : '`audio_end` never followed an error: the error is terminal for its request, as firstword assumes.',
  );
  if (result.accepted.length) lines.push(`Accepted (audio came back): ${result.accepted.join(', ')}.`);
  lines.push(result.socketAfter);
  return lines;
}
