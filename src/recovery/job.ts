/**
 * The job side of call recovery: every job keeps its recent history on its agent participant
 * (where the worker finds it if the job's process dies), and a job dispatched to resume a call
 * starts from that history and says so to the caller.
 */
import { voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { type DispatchInfo, RESUMING_CALL } from './dispatch-metadata.js';
import { resumeGreetingFor } from './greeting.js';
import { HISTORY_ATTRIBUTE, type HistoryTurn, boundHistory, encodeHistory, turnOf } from './history.js';

interface JobLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

interface SessionEvents {
  on(event: typeof voice.AgentSessionEventTypes.ConversationItemAdded, listener: (ev: voice.ConversationItemAddedEvent) => void): unknown;
  off(event: typeof voice.AgentSessionEventTypes.ConversationItemAdded, listener: (ev: voice.ConversationItemAddedEvent) => void): unknown;
}

/**
 * Writes the bounded history (seeded with a resumed call's) to the agent's attributes after each
 * committed message. Writes go one at a time, the latest winning; a failed write is logged once
 * (the call goes on; only a later recovery would miss it). Returns the stop, and the history as
 * it stands (what a job that loses its room hands over, ./lost-room.ts).
 */
export function keepHistory(
  session: SessionEvents,
  participant: { setAttributes(attributes: Record<string, string>): Promise<void> } | undefined,
  seed: readonly HistoryTurn[],
  logger: JobLogger,
): { stop(): void; turns(): readonly HistoryTurn[] } {
  let turns = boundHistory(seed);
  let writing: Promise<void> = Promise.resolve();
  let warned = false;
  const onItem = (ev: voice.ConversationItemAddedEvent) => {
    const turn = turnOf(ev.item as { type?: string; role?: string; textContent?: string });
    if (!turn || !participant) return;
    turns = boundHistory([...turns, turn]);
    const value = encodeHistory(turns);
    writing = writing
      .then(() => participant.setAttributes({ [HISTORY_ATTRIBUTE]: value }))
      .catch((error: Error) => {
        if (warned) return;
        warned = true;
        logger.warn({ error: error.message }, 'the call history could not be saved on the agent; a resumed call would start without it');
      });
  };
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, onItem);
  return { stop: () => session.off(voice.AgentSessionEventTypes.ConversationItemAdded, onItem), turns: () => turns };
}

/** A resumed call's first words, or undefined for a first dispatch. */
export function resumeGreeting(dispatch: DispatchInfo, configuredLanguage: string | undefined): { language: string; text: string } | undefined {
  return dispatch.resume ? resumeGreetingFor(dispatch.resume.history, configuredLanguage) : undefined;
}

/**
 * Speaks a resumed call's apology (a turn the history keeps), from `audio` when it was synthesized
 * ahead (src/sip/greeting-audio.ts). False for a first dispatch.
 */
export function greetResumedCall(
  session: { say(text: string, options: { allowInterruptions: boolean; addToChatCtx: boolean; audio?: ReadableStream<AudioFrame> }): unknown },
  dispatch: DispatchInfo,
  greeting: { language: string; text: string } | undefined,
  logger: JobLogger,
  audio?: ReadableStream<AudioFrame>,
): boolean {
  if (!dispatch.resume || !greeting) return false;
  if (dispatch.error) logger.warn({ resumeOf: dispatch.resume.resumeOf, error: dispatch.error }, 'resuming the call without its history');
  const { resumeOf, why, history } = dispatch.resume;
  logger.info({ resumeOf, why: why ?? 'not said', historyTurns: history.length, language: greeting.language }, RESUMING_CALL);
  session.say(greeting.text, { allowInterruptions: true, addToChatCtx: true, ...(audio ? { audio } : {}) });
  return true;
}
