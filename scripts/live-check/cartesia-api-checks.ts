/**
 * The Cartesia checks about the API surface: word timestamps, models, versions, voice shape and
 * the wording of per-context errors.
 */
import { APIError, APIStatusError } from '@livekit/agents';
import type { Check, CheckScope, Finding } from './check.js';
import { ContextProbe, describeSpoken, openSocket, speakWhole, typeOf } from './cartesia-probe.js';
import { ms, quote, table } from './format.js';
import type { Frame, ProbeSocket } from './probe-socket.js';
import type { CartesiaTarget } from './targets.js';

type Scope = CheckScope<CartesiaTarget>;

const SHORT_TEXT = 'Hello there.';
const NUMBER_TEXT = 'I owe you 25 dollars.';
const UNKNOWN_VOICE = '00000000-0000-0000-0000-000000000000';
const UNKNOWN_MODEL = 'no-such-model';
const CANDIDATE_MODELS = ['sonic-3', 'sonic-3.5', 'sonic-3.6', 'sonic-preview', 'sonic-latest', 'sonic-3-2026-01-12', 'sonic-3.5-2026-05-04', 'sonic-2'];

interface WordTimes {
  words: string[];
  start: number[];
  end: number[];
}

function wordsOf(frames: Frame[]): WordTimes {
  const out: WordTimes = { words: [], start: [], end: [] };
  for (const f of frames) {
    const ts = f.json?.word_timestamps as Partial<WordTimes> | undefined;
    if (typeOf(f) !== 'timestamps' || !ts) continue;
    out.words.push(...(ts.words ?? []));
    out.start.push(...(ts.start ?? []));
    out.end.push(...(ts.end ?? []));
  }
  return out;
}

const normalizedDefault: Check<CartesiaTarget> = {
  id: 'C5',
  title: 'Default of use_normalized_timestamps',
  question: 'Do word timestamps describe the text as sent ("25") or as spoken ("twenty-five") when firstword leaves `use_normalized_timestamps` out?',
  async run(scope: Scope): Promise<Finding> {
    const { settings, target } = scope;
    const codec = target.codec({ wordTimestamps: true });
    const socket = await openSocket(scope, codec);
    const variants: Array<[string, boolean | undefined]> = [['left out (firstword)', undefined], ['true', true], ['false', false]];
    const seen = new Map<string, string>();
    const rows: string[][] = [];
    for (const [label, value] of variants) {
      const spoken = await speakWhole(socket, codec, NUMBER_TEXT, settings, value === undefined ? undefined : { use_normalized_timestamps: value });
      const words = wordsOf(spoken.probe.frames()).words.join(' ');
      seen.set(label, words);
      rows.push([label, spoken.terminal && typeOf(spoken.terminal) === 'error' ? describeSpoken(spoken, settings) : quote(words || '(no timestamps)')]);
    }
    const byDefault = seen.get('left out (firstword)') ?? '';
    const sameAs = ['true', 'false'].filter((v) => seen.get(v) === byDefault);
    const form = /\b25\b/.test(byDefault) ? 'the text as sent' : /twenty/i.test(byDefault) ? 'the spoken form' : 'neither form clearly';
    return {
      sent: `\`${NUMBER_TEXT}\` with \`add_timestamps\`, three contexts: the field left out, true, false.`,
      observed: table(['use_normalized_timestamps', 'words'], rows),
      conclusion:
        `Left out, the words show ${form}${sameAs.length === 1 ? ` (the same as \`${sameAs[0]}\`)` : sameAs.length === 2 ? ' (the three variants agree for this text)' : ''}. ` +
        'firstword rewrites numbers into words before sending (packages/agents-plugin-tts/src/chunking/speech) and respells timed words with the reply\'s own text (src/heard/respell.ts), so either default keeps heard text right; pin the field if they differ.',
    };
  },
};

const timestampShape: Check<CartesiaTarget> = {
  id: 'C6',
  title: 'Word-timestamp events across a continued context',
  question: 'The shape of `timestamps` events, and whether times count from the start of the context across continuations (firstword places words on the track\'s axis).',
  async run(scope: Scope): Promise<Finding> {
    const { settings, target } = scope;
    const codec = target.codec({ wordTimestamps: true });
    const socket = await openSocket(scope, codec);
    const probe = new ContextProbe(socket, codec);
    const from = socket.frames.length;
    probe.send('Hello there,', { opens: true, closes: false });
    probe.send('how are you?', { opens: false, closes: true });
    const end = await probe.terminal(settings.answerMs, from);
    const events = probe.frames(from).filter((f) => typeOf(f) === 'timestamps');
    const times = wordsOf(events);
    const second = times.words.findIndex((w) => /^how/i.test(w));
    const cumulative = second > 0 ? (times.start[second] ?? 0) >= (times.end[second - 1] ?? 0) - 0.01 : undefined;
    const pairs = times.words.map((w, i) => `${quote(w)} ${times.start[i]?.toFixed(2)}–${times.end[i]?.toFixed(2)} s`);
    return {
      sent: 'One context, two inputs: `Hello there, ` (`continue: true`) then `how are you? ` (`continue: false`), with `add_timestamps`.',
      observed: [
        `- End: ${end ? quote(end) : `nothing within ${ms(settings.answerMs)}`}.`,
        `- \`timestamps\` events: ${events.length}; the first: ${events[0] ? quote(events[0]) : '—'}.`,
        `- Words: ${pairs.join(', ') || '(none)'}.`,
        `- firstword reads the first: ${events[0] ? probe.readingOf(events[0]) : '—'}.`,
      ],
      conclusion:
        cumulative === undefined
          ? 'Could not tell whether times continue across inputs (the second input\'s first word was not found).'
          : cumulative
            ? 'Times continue across the continuation (counted from the start of the context): words of one context line up. A context reopened under a new id restarts at 0, which firstword offsets only by the track start, so after a reopen words land early.'
            : 'Times restart with the second input: firstword would place the continuation\'s words too early.',
    };
  },
};

const voiceShapeOnNewVersion: Check<CartesiaTarget> = {
  id: 'C7',
  title: 'voice {mode: "id"} under Cartesia-Version 2026-08-14',
  question: 'The v4 SDKs dropped the typed `{mode: "id", id}` voice. Is it still accepted on 2026-08-14 (before bumping the version)?',
  async run(scope: Scope): Promise<Finding> {
    const codec = scope.target.codec({ apiVersion: '2026-08-14' });
    const socket = await openSocket(scope, codec);
    const spoken = await speakWhole(socket, codec, SHORT_TEXT, scope.settings);
    const ok = spoken.terminal !== undefined && typeOf(spoken.terminal) === 'done';
    return {
      sent: `firstword's request (\`voice: {mode: "id", id}\`) for \`${SHORT_TEXT}\` on a socket opened with \`Cartesia-Version: 2026-08-14\`.`,
      observed: [`- ${describeSpoken(spoken, scope.settings)}.`, ...(spoken.terminal ? [`- firstword reads: ${spoken.probe.readingOf(spoken.terminal)}.`] : [])],
      conclusion: ok
        ? 'Accepted: CARTESIA_API_VERSION can move to 2026-08-14 without changing the voice shape.'
        : 'Not accepted: stay on 2026-03-01, or change the voice shape in cartesia-codec.ts before bumping the version.',
    };
  },
};

async function connectOrRefusal(scope: Scope, apiVersion: string): Promise<ProbeSocket | string> {
  try {
    return await openSocket(scope, scope.target.codec({ apiVersion }));
  } catch (error) {
    // A rejected key says nothing about versions: the whole check could not run.
    const auth = error instanceof APIStatusError && (error.statusCode === 401 || error.statusCode === 403);
    if (error instanceof APIError && !auth) return `refused: "${error.message}"`;
    throw error;
  }
}

const versions: Check<CartesiaTarget> = {
  id: 'C8',
  title: 'API version behaviour',
  question: 'What a missing, unknown or older `Cartesia-Version` gets, and the error shape each version uses.',
  async run(scope: Scope): Promise<Finding> {
    const configured = scope.target.options.apiVersion;
    const rows: string[][] = [];
    for (const [label, version] of [
      ['empty', ''],
      ['unknown (future)', '2099-01-01'],
      ['older', '2024-11-13'],
      ['configured', configured],
    ] as const) {
      const socket = await connectOrRefusal(scope, version);
      if (typeof socket === 'string') {
        rows.push([`${label} \`${version}\``, socket, '—', '—']);
        continue;
      }
      const codec = scope.target.codec({ apiVersion: version, model: UNKNOWN_MODEL });
      const spoken = await speakWhole(socket, codec, SHORT_TEXT, scope.settings);
      const shape = spoken.terminal?.json ? ('error_code' in spoken.terminal.json ? 'structured' : 'error' in spoken.terminal.json ? 'legacy `error` string' : 'other') : '—';
      rows.push([`${label} \`${version}\``, 'open', `${shape}: ${describeSpoken(spoken, scope.settings)}`, spoken.terminal ? spoken.probe.readingOf(spoken.terminal) : '—']);
      socket.terminate();
    }
    return {
      sent: `A socket per version; on each that opens, a context with model \`${UNKNOWN_MODEL}\` to draw an error.`,
      observed: table(['Cartesia-Version', 'handshake', `error for model ${UNKNOWN_MODEL}`, 'firstword reads'], rows),
      conclusion: `firstword sends ${configured}; its codec parses both error shapes. The rows show which versions the service takes and whether firstword names the model problem (CARTESIA_MODEL) for each.`,
    };
  },
};

const models: Check<CartesiaTarget> = {
  id: 'C9',
  title: 'Accepted model ids',
  question: 'Which model ids the account serves (default `sonic-3.5`, as the docs recommend, list 3.6 as latest; professional clones need dated ids).',
  async run(scope: Scope): Promise<Finding> {
    const { target, settings } = scope;
    const socket = await openSocket(scope, target.codec());
    const rows: string[][] = [];
    const accepted: string[] = [];
    for (const model of [...new Set([target.options.model, ...CANDIDATE_MODELS])]) {
      const codec = target.codec({ model });
      const spoken = await speakWhole(socket, codec, SHORT_TEXT, settings);
      if (spoken.terminal && typeOf(spoken.terminal) === 'done') accepted.push(model);
      rows.push([model === target.options.model ? `${model} (configured)` : model, describeSpoken(spoken, settings), spoken.terminal && typeOf(spoken.terminal) === 'error' ? spoken.probe.readingOf(spoken.terminal) : '—']);
    }
    return {
      sent: `\`${SHORT_TEXT}\` once per model id, with the configured voice.`,
      observed: table(['model_id', 'answer', 'firstword reads'], rows),
      conclusion: `Served for this voice: ${accepted.join(', ') || 'none'}. ${accepted.includes(target.options.model) ? `The configured ${target.options.model} works.` : `The configured ${target.options.model} does NOT work: set CARTESIA_MODEL to one that does.`}`,
    };
  },
};

const contextErrors: Check<CartesiaTarget> = {
  id: 'C10',
  title: 'Wording of per-context 4xx errors',
  question: 'firstword fails the turn on any 4xx it does not recognise (cartesia-codec.ts). What do the common ones look like: unknown voice, a parameter changed mid-context, a malformed message?',
  async run(scope: Scope): Promise<Finding> {
    const { target, settings } = scope;
    const socket = await openSocket(scope, target.codec());
    const rows: string[][] = [];
    const unknownVoice = await speakWhole(socket, target.codec({ voice: UNKNOWN_VOICE }), SHORT_TEXT, settings);
    rows.push(['unknown voice id', describeSpoken(unknownVoice, settings), unknownVoice.terminal ? unknownVoice.probe.readingOf(unknownVoice.terminal) : '—']);

    const changed = new ContextProbe(socket, target.codec());
    const from = socket.frames.length;
    changed.send('Hello there,', { opens: true, closes: false });
    changed.send('how are you?', { opens: false, closes: true, change: { language: target.options.language === 'fr' ? 'de' : 'fr' } });
    const changedEnd = await changed.terminal(settings.answerMs, from);
    rows.push(['`language` changed on the second input', changedEnd ? (typeOf(changedEnd) === 'done' ? '`done` (accepted)' : quote(changedEnd)) : `nothing within ${ms(settings.answerMs)}`, changedEnd ? changed.readingOf(changedEnd) : '—']);

    const malformed = new ContextProbe(socket, target.codec());
    const malformedFrom = socket.frames.length;
    socket.send('{"context_id": ');
    const malformedError = await socket.next((f) => typeOf(f) === 'error', settings.answerMs, malformedFrom);
    rows.push(['malformed JSON', malformedError ? quote(malformedError) : `nothing within ${ms(settings.answerMs)}`, malformedError ? malformed.readingOf(malformedError) : '—']);
    return {
      sent: `On one socket: a context with voice ${UNKNOWN_VOICE}; a context whose second input changes \`language\`; a frame that is not JSON.`,
      observed: table(['probe', 'answer', 'firstword reads'], rows),
      conclusion:
        'Each "error … not retryable" above fails a turn and counts toward the AgentSession\'s unrecoverable errors; an error for the whole socket fails every stream on it. The errors are configuration mistakes (voice) or firstword bugs (the other two), so failing is right for them; the benign cases are C1–C3.',
    };
  },
};

const pingPong: Check<CartesiaTarget> = {
  id: 'C11',
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
          ? 'No pong: do not build a keepalive on pings.'
          : 'Pings are answered. Whether they also hold off the documented 5-minute idle close is not shown here (the pool refreshes sockets idle for 240 s anyway).',
    };
  },
};

export const CARTESIA_API_CHECKS: Array<Check<CartesiaTarget>> = [normalizedDefault, timestampShape, voiceShapeOnNewVersion, versions, models, contextErrors, pingPong];
