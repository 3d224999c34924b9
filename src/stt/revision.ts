/**
 * A turn committed on the early final (./preflight.ts) whose model final then heard other words:
 * the history takes the words the model heard, and a reply still being prepared or played is
 * dropped and answered again from them, so the caller is not left with an answer to words they
 * did not say. With the live model the two agree (its final is its deltas joined), so this is the
 * rare path: a word whose delta came later than the early final waited for.
 */
import { type llm, voice } from '@livekit/agents';
import { normalizedWords, type PreflightSTT, type TranscriptRevision } from './preflight.js';

/** The part of the session this needs (a structural type, so tests can pass a fake). */
export interface RevisableSession {
  readonly history: llm.ChatContext;
  readonly agentState: voice.AgentState;
  readonly userState: voice.UserState;
  interrupt(): unknown;
  generateReply(): unknown;
  on(event: typeof voice.AgentSessionEventTypes.ConversationItemAdded, listener: (ev: voice.ConversationItemAddedEvent) => void): unknown;
  off(event: typeof voice.AgentSessionEventTypes.ConversationItemAdded, listener: (ev: voice.ConversationItemAddedEvent) => void): unknown;
}

export interface RevisionLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export interface RevisionCounts {
  /** User messages given the model's words. */
  corrected: number;
  /** Replies dropped and answered again. */
  reanswered: number;
  /** Revisions whose turn never showed up in the history in time (the caller went on). */
  unmatched: number;
}

/** How long a revision waits for its turn to be committed. */
const COMMIT_WAIT_MS = 10_000;

export function answerRevisions(session: RevisableSession, recognizer: PreflightSTT, log?: RevisionLog): { counts: RevisionCounts; close(): void } {
  const counts: RevisionCounts = { corrected: 0, reanswered: 0, unmatched: 0 };
  let pending: { revision: TranscriptRevision; timer: NodeJS.Timeout } | undefined;

  const settle = (message: llm.ChatMessage, revision: TranscriptRevision) => {
    message.content = [corrected(message.textContent ?? '', revision)];
    counts.corrected++;
    const replying = session.agentState === 'thinking' || session.agentState === 'speaking';
    if (replying && session.userState !== 'speaking') {
      counts.reanswered++;
      session.interrupt();
      session.generateReply();
    }
    log?.info({ replying }, 'the final transcript differed from the early one: history corrected');
  };
  const onItem = (ev: voice.ConversationItemAddedEvent) => {
    if (!pending || ev.item.type !== 'message' || ev.item.role !== 'user') return;
    const { revision, timer } = pending;
    pending = undefined;
    clearTimeout(timer);
    if (holdsWords(ev.item.textContent ?? '', revision.early)) settle(ev.item, revision);
    else counts.unmatched++;
  };
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, onItem);

  const stop = recognizer.onRevision((revision) => {
    const message = lastUserMessage(session.history);
    if (message && holdsWords(message.textContent ?? '', revision.early)) return settle(message, revision);
    // Not committed yet: the framework is still waiting out the end of the turn.
    if (pending) {
      clearTimeout(pending.timer);
      counts.unmatched++;
    }
    const timer = setTimeout(() => {
      pending = undefined;
      counts.unmatched++;
    }, COMMIT_WAIT_MS);
    timer.unref();
    pending = { revision, timer };
  });

  return {
    counts,
    close: () => {
      stop();
      if (pending) clearTimeout(pending.timer);
      session.off(voice.AgentSessionEventTypes.ConversationItemAdded, onItem);
    },
  };
}

/**
 * The message's text with the early words replaced by the model's where they stand (an early final
 * can carry an earlier speech's words before the current one's, and the turn joins several).
 */
export function corrected(text: string, revision: TranscriptRevision): string {
  const at = text.lastIndexOf(revision.early);
  if (at < 0) return revision.final;
  return `${text.slice(0, at)}${revision.final}${text.slice(at + revision.early.length)}`.trim();
}

function holdsWords(text: string, early: string): boolean {
  const words = ` ${normalizedWords(text)} `;
  const part = normalizedWords(early);
  return part !== '' && words.includes(` ${part} `);
}

function lastUserMessage(history: llm.ChatContext): llm.ChatMessage | undefined {
  for (let i = history.items.length - 1; i >= 0; i--) {
    const item = history.items[i]!;
    if (item.type === 'message' && item.role === 'user') return item;
  }
  return undefined;
}
