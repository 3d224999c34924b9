/**
 * The Cartesia context checks of docs/provider-fidelity.md: when a context expires and what input
 * to it then gets, the empty first transcript, what a cancel leaves behind.
 */
import type { Check, CheckScope, Finding } from './check.js';
import { CARTESIA_API_CHECKS } from './cartesia-api-checks.js';
import { ContextProbe, openSocket, sleepUntil, typeOf } from './cartesia-probe.js';
import { count, ms, quote, table, yesNo } from './format.js';
import { type Frame, describeClose } from './probe-socket.js';
import { pcm16Ms } from './stats.js';
import type { CartesiaTarget } from './targets.js';

type Scope = CheckScope<CartesiaTarget>;

const OPENING = 'Hello there.';
const LATER = 'Are you still there?';
const LONG_TEXT =
  'Thanks for calling. I can help you book a table, change a reservation, or answer questions about our opening hours, the menu, parking, and anything else you would like to know before your visit this evening.';

function answerCell(frame: Frame | undefined, waitedMs: number): string {
  if (!frame) return `nothing within ${ms(waitedMs)}`;
  return typeOf(frame) === 'done' ? '`done` (accepted)' : quote(frame);
}

const closeAfterIdle: Check<CartesiaTarget> = {
  id: 'C1',
  title: 'Context expiry: the closing message after the last audio',
  question:
    'Contexts "expire 1 second after the last audio output" (Cartesia docs). Does that hold for a context still open (`continue: true`)? What does firstword\'s closing message (`transcript: ""`, `continue: false`) get after it? Also: an early `done` while the context is idle.',
  limitMs: (s) => s.expiryDelaysMs.reduce((sum, d) => sum + d + 3 * s.answerMs, 0),
  async run(scope: Scope): Promise<Finding> {
    const { settings, target } = scope;
    const socket = await openSocket(scope, target.codec());
    const rows: string[][] = [];
    const accepted: number[] = [];
    const refused: Array<{ delay: number; frame: Frame; reading: string }> = [];
    for (const delay of settings.expiryDelaysMs) {
      const probe = new ContextProbe(socket, target.codec());
      const from = socket.frames.length;
      probe.send(OPENING, { opens: true, closes: false });
      const settled = await probe.settle(settings, from);
      // A `done` here is the early one for an idle open context; an error ends the probe.
      if ((settled.terminal && typeOf(settled.terminal) === 'error') || settled.lastAudioAt === undefined) {
        rows.push([ms(delay), '—', `ended before the wait: ${answerCell(settled.terminal, settings.answerMs)}`, settled.terminal ? probe.readingOf(settled.terminal) : '—']);
        continue;
      }
      const lastAudioAt = settled.lastAudioAt;
      await sleepUntil(lastAudioAt + delay);
      const closeFrom = socket.frames.length;
      const closeAt = probe.close();
      // Noticing the end of audio may take longer than a short delay: report the idle time there was.
      const idle = closeAt - lastAudioAt;
      const early = probe.frames(from).find((f) => typeOf(f) === 'done' && f.at < closeAt);
      const answer = await probe.terminal(settings.answerMs, closeFrom);
      if (answer && typeOf(answer) === 'done') accepted.push(idle);
      if (answer && typeOf(answer) === 'error') refused.push({ delay: idle, frame: answer, reading: probe.readingOf(answer) });
      rows.push([
        Math.abs(idle - delay) > 20 ? `${ms(delay)} (in fact ${ms(idle)})` : ms(delay),
        early ? `yes, ${ms(early.at - lastAudioAt)} after the last audio (firstword: ${probe.readingOf(early)})` : 'no',
        answerCell(answer, settings.answerMs),
        answer ? probe.readingOf(answer) : '—',
      ]);
    }
    const firstRefused = refused.sort((a, b) => a.delay - b.delay)[0];
    const lastAccepted = accepted.filter((d) => !firstRefused || d < firstRefused.delay).sort((a, b) => a - b).at(-1);
    let conclusion: string;
    if (!firstRefused) {
      conclusion = `No expiry seen: the open context still took its closing message ${ms(Math.max(0, ...accepted))} after its last audio. firstword can close a context whenever the LLM ends.`;
    } else {
      conclusion =
        `An open context expired between ${lastAccepted === undefined ? '0 ms' : ms(lastAccepted)} and ${ms(firstRefused.delay)} after its last audio; the closing message then got ${quote(firstRefused.frame)}. ` +
        `firstword reads it as: ${firstRefused.reading}. Because the close was already sent, the driver fails that turn although all of its audio played: the codec should end such a track quietly.`;
    }
    return {
      sent: `Per row, a new context on one socket: \`${OPENING}\` with \`continue: true\`; once its audio is out (its \`flush_done\`, or ${ms(settings.quietMs)} without a chunk), wait the delay, then firstword's closing message.`,
      observed: [...table(['idle after last audio', 'early `done` while idle', 'answer to the closing message', 'firstword reads'], rows), '', 'Delays count from the arrival of the last chunk here (network included).'],
      conclusion,
    };
  },
};

const inputAfterExpiry: Check<CartesiaTarget> = {
  id: 'C2',
  title: 'Input on an expired context',
  question: 'The error for more text on a context that finished (`done`) or sat idle past its expiry (the docs only say it is "not supported"; the "Context has closed" wording is unconfirmed).',
  async run(scope: Scope): Promise<Finding> {
    const { settings, target } = scope;
    const waitMs = Math.max(...settings.expiryDelaysMs);
    const socket = await openSocket(scope, target.codec());
    const rows: string[][] = [];
    const answers: Frame[] = [];
    for (const open of [false, true]) {
      const probe = new ContextProbe(socket, target.codec());
      const from = socket.frames.length;
      probe.send(OPENING, { opens: true, closes: !open });
      const settled = open ? await probe.settle(settings, from) : { terminal: await probe.terminal(settings.answerMs, from), lastAudioAt: undefined };
      const base = open ? settled.lastAudioAt : settled.terminal?.at;
      if (base === undefined || (settled.terminal && typeOf(settled.terminal) === 'error')) {
        rows.push([open ? 'open, idle' : 'finished', `ended first: ${answerCell(settled.terminal, settings.answerMs)}`, '—']);
        continue;
      }
      await sleepUntil(base + waitMs);
      const laterFrom = socket.frames.length;
      probe.send(LATER, { opens: false, closes: true });
      const answer = await probe.terminal(settings.answerMs, laterFrom);
      if (answer) answers.push(answer);
      rows.push([
        open ? `open (\`continue: true\`), idle ${ms(waitMs)} after its last audio` : `finished (\`done\` seen), ${ms(waitMs)} later`,
        answerCell(answer, settings.answerMs),
        answer ? probe.readingOf(answer) : '—',
      ]);
    }
    const errors = answers.filter((f) => typeOf(f) === 'error');
    return {
      sent: `Two contexts on one socket: one closed with its text, one left open; ${ms(waitMs)} after (\`done\` / last audio), \`${LATER}\` on the same \`context_id\`.`,
      observed: table(['context', 'answer to more text', 'firstword reads'], rows),
      conclusion: errors.length
        ? `Wording of the refusal: ${errors.map((f) => quote(f)).join('; ')}. firstword recognises a closed context by \`error_code\` "context_closed" or text like "context has closed/already finished" (cartesia-codec.ts); the reading column shows whether it did.`
        : 'Neither context refused more text: input after `done` or after an idle spell is accepted on this account.',
    };
  },
};

const emptyFirst: Check<CartesiaTarget> = {
  id: 'C3',
  title: 'Empty first transcript',
  question: 'The `error_code` for a context opened with no speakable text (firstword never sends one, but recognises the error to end such a turn quietly).',
  async run(scope: Scope): Promise<Finding> {
    const { settings, target } = scope;
    const socket = await openSocket(scope, target.codec());
    const rows: string[][] = [];
    const quiet: boolean[] = [];
    for (const text of ['', '...']) {
      const probe = new ContextProbe(socket, target.codec());
      const from = socket.frames.length;
      probe.send(text, { opens: true, closes: true });
      const answer = await probe.terminal(settings.answerMs, from);
      const readBy = answer ? probe.readingOf(answer) : '—';
      quiet.push(readBy.startsWith('end'));
      rows.push([quote(JSON.stringify(`${text} `)), answerCell(answer, settings.answerMs), readBy]);
    }
    return {
      sent: 'Two contexts opened and closed at once, with the transcript firstword\'s codec would send for "" and "..." (it appends a space).',
      observed: table(['first transcript', 'answer', 'firstword reads'], rows),
      conclusion: quiet.every(Boolean)
        ? 'firstword recognises the refusal and ends the track quietly.'
        : 'firstword does not recognise this refusal as "nothing to say": it would fail the turn. Match the live `error_code` in cartesia-codec.ts.',
    };
  },
};

const cancelTail: Check<CartesiaTarget> = {
  id: 'C4',
  title: 'What follows a cancel',
  question: 'Does `done` follow a cancel, and how much audio still arrives after it?',
  async run(scope: Scope): Promise<Finding> {
    const { settings, target } = scope;
    const socket = await openSocket(scope, target.codec());
    const probe = new ContextProbe(socket, target.codec());
    const from = socket.frames.length;
    probe.send(LONG_TEXT, { opens: true, closes: true });
    const first = await socket.next((f) => f.json?.context_id === probe.track && ['chunk', 'error', 'done'].includes(String(typeOf(f))), settings.answerMs, from);
    if (!first || typeOf(first) !== 'chunk') throw new Error(`no audio to cancel: ${answerCell(first, settings.answerMs)}`);
    const cancelAt = probe.cancel();
    const cancelFrom = socket.frames.length;
    // Until the context goes quiet: late chunks may come before a `done`, after it, or without one.
    const after = await probe.listen(settings.graceMs, settings.answerMs, cancelFrom);
    const ended = after.find((f) => typeOf(f) === 'done' || typeOf(f) === 'error');
    const late = after.filter((f) => typeOf(f) === 'chunk');
    const lateMs = late.reduce((sum, f) => sum + pcm16Ms(Buffer.from(String(f.json?.data ?? ''), 'base64').length, target.options.sampleRate), 0);
    const others = [...new Set(after.map((f) => String(typeOf(f))).filter((t) => t !== 'chunk'))];
    return {
      sent: `A ${LONG_TEXT.length}-character context closed with its text; firstword's cancel at its first chunk.`,
      observed: [
        `- Chunks after the cancel: ${late.length} (${ms(lateMs)} of audio), the last ${late.length ? ms(late.at(-1)!.at - cancelAt) : '—'} after it; then ${ms(settings.graceMs)} without an event.`,
        `- Other events after it: ${others.length ? others.map((t) => `\`${t}\``).join(', ') : 'none'}.`,
        `- \`done\` or error after the cancel: ${ended ? `${quote(ended)}, ${ms(ended.at - cancelAt)} after it` : 'none'}.`,
        `- Socket: ${describeClose(socket.closed)}.`,
      ],
      conclusion:
        `${late.length ? `${count(late.length, 'chunk')} (${ms(lateMs)}) still came after the cancel` : 'No chunk came after the cancel'}; \`done\` after a cancel: ${yesNo(ended !== undefined && typeOf(ended) === 'done')}. ` +
        'firstword marks a cancelled context stale and drops all of its late events (socket.ts), so neither answer matters to playback; a context without `done` still holds a concurrency slot until it expires.',
    };
  },
};

export const CARTESIA_CHECKS: Array<Check<CartesiaTarget>> = [closeAfterIdle, inputAfterExpiry, emptyFirst, cancelTail, ...CARTESIA_API_CHECKS];
