/** Resemble checks about sockets rather than requests: the idle timeout and the per-key connection limit. */
import { APIError } from '@livekit/agents';
import { DEFAULT_POOL_OPTIONS } from '@firstword/agents-plugin-tts/protocol';
import type { Check, CheckScope, Finding } from './check.js';
import { ms, quote, reading } from './format.js';
import { type ProbeSocket, describeClose } from './probe-socket.js';
import { openSocket, typeOf } from './resemble-probe.js';
import type { ResembleTarget } from './targets.js';

type Scope = CheckScope<ResembleTarget>;

const idleTimeout: Check<ResembleTarget> = {
  id: 'R7',
  title: 'Idle timeout with no pings',
  question: `After how long does Resemble close a socket nobody uses (undocumented)? firstword sends no pings and replaces pooled sockets idle for ${DEFAULT_POOL_OPTIONS.maxIdleMs / 1000} s (pool-options.ts \`maxIdleMs\`).`,
  schedule: 'background',
  skip: (settings) => (settings.idleWaitMs > 0 ? undefined : 'left out (--idle-wait-s 0)'),
  limitMs: (settings) => settings.idleWaitMs + 2 * settings.answerMs,
  async run(scope: Scope): Promise<Finding> {
    const { idleWaitMs } = scope.settings;
    const socket = await openSocket(scope, scope.target.codec());
    const closed = await socket.waitClosed(idleWaitMs);
    const refresh = DEFAULT_POOL_OPTIONS.maxIdleMs;
    const early = socket.frames.length ? ` Frames before it: ${socket.frames.map((f) => quote(f)).join(', ')}.` : '';
    if (!closed) {
      return {
        sent: `Nothing: one socket left silent, no pings, for up to ${Math.round(idleWaitMs / 1000)} s.`,
        observed: [`- Still open after ${ms(idleWaitMs)}.${early}`],
        conclusion:
          idleWaitMs > refresh
            ? `No idle close within ${Math.round(idleWaitMs / 1000)} s, longer than the pool's ${refresh / 1000} s idle refresh: pooled sockets are replaced before any idle limit.`
            : `No idle close within ${Math.round(idleWaitMs / 1000)} s; run with --idle-wait-s above ${refresh / 1000} to cover the pool's idle refresh.`,
      };
    }
    const after = closed.at - socket.openedAt;
    return {
      sent: `Nothing: one socket left silent, no pings, for up to ${Math.round(idleWaitMs / 1000)} s.`,
      observed: [`- ${describeClose(closed)} after ${ms(after)}.${early}`],
      conclusion:
        after < refresh
          ? `Resemble closes an idle socket after about ${Math.round(after / 1000)} s, before the pool's ${refresh / 1000} s refresh: a pooled socket idle that long is found closed (the pool replaces a socket closed while idle without spending a retry, but the turn waits for a new connect). Set the Resemble pool's maxIdleMs below it, or ping.`
          : `Resemble closes an idle socket after about ${Math.round(after / 1000)} s, after the pool's ${refresh / 1000} s refresh: pooled sockets are replaced first.`,
    };
  },
};

/** How socket n of the key was answered: opened and kept, or refused (and how). */
interface Attempt {
  socket?: ProbeSocket;
  refusal?: string;
}

async function attempt(scope: Scope, graceMs: number): Promise<Attempt> {
  const codec = scope.target.codec();
  let socket: ProbeSocket;
  try {
    socket = await openSocket(scope, codec);
  } catch (error) {
    if (!(error instanceof APIError)) throw error;
    return { refusal: `refused at the handshake: "${error.message}" (${error.retryable ? 'retryable' : 'not retryable'})` };
  }
  // A refusal may also come as an error frame (then a close) after the upgrade.
  const error = await socket.next((f) => typeOf(f) === 'error', graceMs);
  if (error) return { refusal: `accepted, then ${quote(error)}; firstword reads: ${reading(codec.decode(error.raw, false, undefined))}` };
  if (socket.closed) return { refusal: `accepted, then ${describeClose(socket.closed)}` };
  return { socket };
}

const connectionLimit: Check<ResembleTarget> = {
  id: 'R8',
  title: 'Over the per-key connection limit',
  question:
    'Resemble documents 20 parallel connections per key but not what happens over the limit. firstword budgets sockets per key (TTS_MAX_SOCKETS_PER_KEY) and treats HTTP 429 as retryable.',
  schedule: 'alone',
  skip: (settings) =>
    settings.connectionLimit > 0
      ? undefined
      : 'left out by default: pass --connection-limit 20 (it opens up to 21 sockets on this key; never run it beside live workers sharing the key)',
  limitMs: (settings) => (settings.connectionLimit + 1) * (settings.answerMs + settings.graceMs) + settings.answerMs,
  async run(scope: Scope): Promise<Finding> {
    const { connectionLimit: limit, graceMs } = scope.settings;
    let opened = 0;
    let refusal: string | undefined;
    while (opened <= limit) {
      const result = await attempt(scope, graceMs);
      if (result.refusal) {
        refusal = result.refusal;
        break;
      }
      opened++;
    }
    // Refused with no socket held: the key itself is the problem, not a limit.
    if (opened === 0 && refusal) throw new Error(`the first socket was ${refusal}`);
    return {
      sent: `Sockets opened one after another on this key (each kept open and silent, ${ms(graceMs)} to show a refusal), up to ${limit + 1}.`,
      observed: [
        `- Opened and kept: ${opened}.`,
        refusal ? `- Socket ${opened + 1}: ${refusal}.` : `- Socket ${limit + 1} was accepted too.`,
      ],
      conclusion: refusal
        ? `The key held ${opened} sockets here (sockets open elsewhere on the key count too); the next was ${refusal.startsWith('refused at the handshake') ? 'refused at the handshake' : 'refused after the upgrade'}. Keep the sum of TTS_MAX_SOCKETS_PER_KEY over the hosts sharing the key at or below the limit.`
        : `No limit at ${limit} sockets (other sockets already open on the key count too).`,
    };
  },
};

export const RESEMBLE_SOCKET_CHECKS: Array<Check<ResembleTarget>> = [idleTimeout, connectionLimit];
