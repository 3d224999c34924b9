/**
 * The Resemble checks of docs/provider-fidelity.md: what the live
 * service echoes, how it paces audio, what its timestamps and errors look like.
 */
import { RESEMBLE_MAX_REQUEST_CHARS } from '@firstword/agents-plugin-tts/protocol';
import type { TrackTiming } from '@firstword/agents-plugin-tts/protocol';
import type { Check, CheckScope, Finding } from './check.js';
import { ms, quote, reading, table, yesNo } from './format.js';
import {
  ERROR_PROBE_HEADERS,
  ask,
  describeAnswer,
  echoedRates,
  errorConclusions,
  openSocket,
  request,
  runErrorProbes,
} from './resemble-probe.js';
import { delivery, pcm16Ms } from './stats.js';
import type { ResembleTarget } from './targets.js';
import { RESEMBLE_SOCKET_CHECKS } from './resemble-socket-checks.js';

type Scope = CheckScope<ResembleTarget>;

const SHORT_TEXT = 'Hello there.';
const TIMED_TEXT = 'Hello there, how are you today?';
const PACED_TEXT =
  'Thanks for calling. I can help you book a table, change a reservation, or answer questions about our opening hours and the menu.';
/** A voice id no account has. */
const UNKNOWN_VOICE = '00000000-0000-0000-0000-000000000000';
const MODELS = ['chatterbox', 'chatterbox-turbo'];

const audioBytes = (f: { json?: Record<string, unknown> }): number =>
  Buffer.from(String(f.json?.audio_content ?? ''), 'base64').length;

const echoAndModel: Check<ResembleTarget> = {
  id: 'R1',
  title: 'Echoed sample_rate per model, and whether this key streams at all',
  question:
    'Does every model echo the requested `sample_rate` (firstword ignores the echo)? What is the default when it is left out? What does an account without WebSocket access get (a field report saw `DBCacheError`, not `Unauthorized`)?',
  async run(scope: Scope): Promise<Finding> {
    const { target, settings } = scope;
    const configured = target.options.model;
    const rate = target.options.sampleRate;
    const variants: Array<{ model: string | undefined; rate: number | undefined }> = [
      { model: configured, rate },
      ...MODELS.filter((m) => m !== configured).map((model) => ({ model, rate })),
      ...(rate === 48000 ? [] : [{ model: configured, rate: 48000 }]),
      { model: configured, rate: undefined },
    ];
    const rows: Array<Array<string | undefined>> = [];
    const mismatched: string[] = [];
    const refused: string[] = [];
    const failures: unknown[] = [];
    let omittedEcho = '—';
    for (const variant of variants) {
      const label = variant.model ?? "(the voice's own)";
      const codec = target.codec({ model: variant.model });
      let socket;
      try {
        socket = await openSocket(scope, codec);
      } catch (error) {
        failures.push(error);
        rows.push([label, variant.rate === undefined ? 'left out' : String(variant.rate), `could not connect: ${(error as Error).message}`, '—', '—']);
        continue;
      }
      const req = request(codec, SHORT_TEXT, { sample_rate: variant.rate });
      const answer = await ask(socket, req.message, req.id, settings.answerMs);
      const echoed = echoedRates(answer);
      let readBy = '—';
      if (answer.error) {
        readBy = reading(codec.decode(answer.error.raw, false, req.track));
        refused.push(`${label}: ${quote(answer.error)}`);
      } else if (variant.rate === undefined) {
        omittedEcho = echoed;
        readBy = 'never sent this way (firstword always sends `sample_rate`)';
      } else if (answer.audio.length) {
        const matches = echoed === String(variant.rate);
        if (!matches) mismatched.push(`${label} at ${variant.rate} Hz echoed ${echoed}`);
        readBy = matches ? 'plays at the right speed' : `plays as ${variant.rate} Hz: wrong pitch and speed, no error`;
      }
      rows.push([label, variant.rate === undefined ? 'left out' : String(variant.rate), describeAnswer(answer, settings.answerMs), echoed, readBy]);
      socket.terminate();
    }
    if (failures.length === variants.length) throw failures[0];
    const conclusion = [
      mismatched.length
        ? `The echo differs from the request (${mismatched.join('; ')}): firstword would play that audio at the wrong speed; compare the echo with the request and fail loudly.`
        : 'Every model that answered echoed the requested rate: ignoring the echo is safe for these.',
      `Left out, \`sample_rate\` came back as ${omittedEcho} (firstword always sends it).`,
      refused.length === variants.length
        ? `Every request was refused, so this key/voice does not stream over WebSocket: ${refused[0]}. firstword's reading is in the table (the plan hint appears only for 401/403, ConnectionFailure, Unauthorized).`
        : refused.length
          ? `Refused: ${refused.join('; ')}.`
          : 'No request was refused.',
    ].join(' ');
    return {
      sent: `\`${SHORT_TEXT}\` once per row on a fresh socket: firstword's request with \`model\` and \`sample_rate\` as shown.`,
      observed: table(['model', 'sample_rate sent', 'answer', 'sample_rate echoed', 'firstword'], rows),
      conclusion,
    };
  },
};

const pacing: Check<ResembleTarget> = {
  id: 'R2',
  title: 'Audio delivery: time to first byte, gaps, holes without a prebuffer',
  question:
    'Does Resemble deliver audio in bursts with 300–450 ms gaps (Pipecat keeps a ~1 s buffer)? firstword plays the first bytes at once: would that leave holes?',
  async run(scope: Scope): Promise<Finding> {
    const { target, settings } = scope;
    const rows: Array<Array<string | number>> = [];
    const holes: string[] = [];
    for (const rate of [...new Set([22050, 48000, target.options.sampleRate])]) {
      const codec = target.codec({ sampleRate: rate });
      const socket = await openSocket(scope, codec);
      const req = request(codec, PACED_TEXT);
      const answer = await ask(socket, req.message, req.id, settings.answerMs);
      socket.terminate();
      const stats = delivery(answer.sentAt, answer.audio.map((f) => ({ at: f.at, audioMs: pcm16Ms(audioBytes(f), rate) })));
      if (!stats) {
        rows.push([rate, describeAnswer(answer, settings.answerMs), '—', '—', '—', '—', '—', '—']);
        continue;
      }
      if (stats.holes > 0) holes.push(`${rate} Hz: ${stats.holes} holes, longest ${ms(stats.holeMaxMs)}, a ${ms(stats.prebufferMs)} prebuffer avoids them`);
      rows.push([
        rate,
        ms(stats.ttfbMs),
        stats.frames,
        `${ms(stats.audioMs)} in ${ms(stats.spanMs)}`,
        `${ms(stats.gapMedianMs)} / ${ms(stats.gapP90Ms)} / ${ms(stats.gapMaxMs)}`,
        stats.holes,
        stats.holes ? `${ms(stats.holeTotalMs)} (longest ${ms(stats.holeMaxMs)})` : '0 ms',
        ms(stats.prebufferMs),
      ]);
    }
    return {
      sent: `One request per rate on a fresh socket: \`${PACED_TEXT}\` (${PACED_TEXT.length} characters).`,
      observed: [
        ...table(
          ['Hz', 'first audio after send', 'frames', 'audio / first-to-last frame', 'gap median / p90 / max', 'holes from the first byte', 'silence inserted', 'prebuffer for no holes'],
          rows,
        ),
        '',
        'Times are arrival times at this machine (network included). "Holes" replays the arrivals as a player that starts on the first byte with no buffer, as firstword does (playout.ts).',
      ],
      conclusion: holes.length
        ? `Playing from the first byte would stutter: ${holes.join('; ')}. A Resemble prebuffer of about that size would remove the holes.`
        : 'No holes: delivery stayed ahead of playback from the first byte at every rate; no prebuffer is needed on this connection.',
    };
  },
};

const graphemes: Check<ResembleTarget> = {
  id: 'R3',
  title: 'Grapheme timestamps: spaces, per-frame increments, request-relative times',
  question:
    'Do `graph_chars` include spaces, and does each frame carry only its own characters with times from the start of the request? firstword builds words from them (resemble-codec.ts `WordAssembler`).',
  async run(scope: Scope): Promise<Finding> {
    const { target, settings } = scope;
    const codec = target.codec();
    const socket = await openSocket(scope, codec);
    const req = request(codec, TIMED_TEXT);
    const answer = await ask(socket, req.message, req.id, settings.answerMs);
    if (!answer.end) return { sent: `\`${TIMED_TEXT}\``, observed: [`Answer: ${describeAnswer(answer, settings.answerMs)}`], conclusion: 'No complete answer, so nothing to say about timestamps.' };
    const stamped = answer.audio
      .map((f) => f.json?.audio_timestamps as { graph_chars?: string[]; graph_times?: Array<[number, number]>; phon_chars?: string[] } | undefined)
      .filter((t): t is NonNullable<typeof t> => !!t && Array.isArray(t.graph_chars));
    const words: TrackTiming[] = [];
    for (const frame of [...answer.audio, answer.end]) {
      for (const ev of codec.decode(frame.raw, false, req.track)) {
        if (ev.type === 'timings' || (ev.type === 'audio' && ev.timings)) words.push(...(ev.timings ?? []));
      }
    }
    const observed = [`- Frames with \`audio_timestamps\`: ${stamped.length} of ${answer.audio.length}.`];
    if (stamped.length === 0) {
      return {
        sent: `\`${TIMED_TEXT}\` with firstword's request (no timestamp option exists on the WebSocket request).`,
        observed,
        conclusion: 'No grapheme timestamps came back: firstword gets no word timings from Resemble with these settings, so heard-text after a barge-in falls back to what the player counted.',
      };
    }
    const chars = stamped.flatMap((t) => t.graph_chars ?? []);
    const joined = chars.join('');
    const firstChars = stamped.map((t) => (t.graph_chars ?? []).join(''));
    const cumulative = firstChars.length > 1 && firstChars.every((s, i) => i === 0 || s.startsWith(firstChars[i - 1]!));
    const increments = !cumulative && joined.replace(/\s+/g, '') === TIMED_TEXT.replace(/\s+/g, '');
    const starts = stamped.map((t) => t.graph_times?.[0]?.[0] ?? NaN);
    const ends = stamped.map((t) => t.graph_times?.at(-1)?.[1] ?? NaN);
    const requestRelative = starts.every((s, i) => i === 0 || s >= (ends[i - 1] ?? 0) - 0.005);
    const hasSpaces = chars.some((c) => /\s/.test(c));
    observed.push(
      `- \`graph_chars\`, all frames joined: ${quote(joined)}; frame by frame: ${firstChars.slice(0, 6).map((s) => quote(s)).join(', ')}${firstChars.length > 6 ? ', …' : ''}.`,
      `- Spaces among the graphemes: ${yesNo(hasSpaces)}. Phonemes (\`phon_chars\`): ${yesNo(stamped.some((t) => Array.isArray(t.phon_chars)))}.`,
      `- First grapheme start per frame (s): ${starts.slice(0, 8).join(', ')}${starts.length > 8 ? ', …' : ''}.`,
      `- firstword's words: ${words.map((w) => `${quote(w.text.trim())}@${w.start.toFixed(2)}s`).join(' ') || '(none)'}.`,
    );
    const shape = cumulative ? 'repeat everything so far (cumulative)' : increments ? 'carry only their own characters (increments)' : 'do not add up to the text';
    const clock = requestRelative ? 'count from the start of the request' : 'restart per frame';
    const fine = hasSpaces && increments && requestRelative;
    return {
      sent: `\`${TIMED_TEXT}\` with firstword's request.`,
      observed,
      conclusion: `Frames ${shape}; times ${clock}; spaces ${hasSpaces ? 'included' : 'missing'}. ${
        fine
          ? 'This is what firstword\'s word assembly assumes: the words above are right.'
          : 'firstword\'s word assembly assumes spaces, increments and request-relative times: the words above show what it makes of this instead.'
      }`,
    };
  },
};

const badJson: Check<ResembleTarget> = {
  id: 'R4',
  title: 'BadJSON: shape of the documented recoverable error',
  question:
    'The documented `BadJSON` example has no `request_id`, and a frame without `status_code` is read as a retryable 500. What does the live service send, and does the socket stay open?',
  async run(scope: Scope): Promise<Finding> {
    const codec = scope.target.codec();
    const result = await runErrorProbes(scope, [
      { label: 'unparsable JSON', message: '{"voice_uuid": "x", "data": ' },
      { label: '`data` left out', message: request(codec, 'unused', { data: undefined }) },
    ]);
    return {
      sent: 'On one socket: a frame that is not JSON, then firstword\'s request without `data`, then a normal request.',
      observed: table(ERROR_PROBE_HEADERS, result.rows),
      conclusion: errorConclusions(result).join(' '),
    };
  },
};

const requestErrors: Check<ResembleTarget> = {
  id: 'R5',
  title: 'Errors for an unknown voice, text over 3,000 characters, a bad sample_rate',
  question: 'Error name, status and shape of each (none is documented), and whether `audio_end` follows an error.',
  async run(scope: Scope): Promise<Finding> {
    const codec = scope.target.codec();
    const longText = 'la '.repeat(Math.ceil((RESEMBLE_MAX_REQUEST_CHARS + 1) / 3)).trim();
    const result = await runErrorProbes(scope, [
      { label: 'unknown voice', message: request(codec, SHORT_TEXT, { voice_uuid: UNKNOWN_VOICE }) },
      { label: `${longText.length} characters`, message: request(codec, longText), stopOnAudio: true },
      { label: 'sample_rate 12345', message: request(codec, SHORT_TEXT, { sample_rate: 12345 }) },
    ]);
    return {
      sent: `On one socket: firstword's request with \`voice_uuid\` ${UNKNOWN_VOICE}; with ${longText.length} characters of \`la la …\` (dropped at its first audio if accepted); with \`sample_rate\` 12345; then a normal request.`,
      observed: table(ERROR_PROBE_HEADERS, result.rows),
      conclusion: errorConclusions(result).join(' '),
    };
  },
};

const pingPong: Check<ResembleTarget> = {
  id: 'R6',
  title: 'Protocol ping/pong',
  question: 'Does the server answer WebSocket pings (a keepalive for pooled sockets would rely on it)?',
  async run(scope: Scope): Promise<Finding> {
    const socket = await openSocket(scope, scope.target.codec());
    const rtt = await socket.ping(scope.settings.answerMs);
    return {
      sent: 'One protocol-level ping on an idle socket.',
      observed: [rtt === undefined ? `- No pong within ${ms(scope.settings.answerMs)}.` : `- Pong after ${ms(rtt)}.`],
      conclusion:
        rtt === undefined
          ? 'No pong: a ping-based keepalive would kill healthy sockets; use another liveness signal.'
          : 'Pings are answered: a keepalive on pooled sockets can use them (firstword sends none today).',
    };
  },
};

export const RESEMBLE_CHECKS: Array<Check<ResembleTarget>> = [echoAndModel, pacing, graphemes, badJson, requestErrors, pingPong, ...RESEMBLE_SOCKET_CHECKS];
