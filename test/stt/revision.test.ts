/**
 * A model final that hears other words than the early final the turn was committed on: the
 * history takes the model's words, and a reply being prepared or played is answered again.
 */
import { EventEmitter } from 'node:events';
import { type stt, llm, voice } from '@livekit/agents';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PreflightSTT, type TranscriptRevision } from '../../src/stt/preflight.js';
import { type RevisableSession, answerRevisions, corrected } from '../../src/stt/revision.js';

class FakeSession extends EventEmitter implements RevisableSession {
  history = llm.ChatContext.empty();
  agentState: voice.AgentState = 'listening';
  userState: voice.UserState = 'listening';
  interrupts = 0;
  replies: string[] = [];
  interrupt() {
    this.interrupts++;
  }
  generateReply() {
    this.replies.push(lastUserText(this.history));
  }
  commit(text: string) {
    const message = this.history.addMessage({ role: 'user', content: text });
    this.emit(voice.AgentSessionEventTypes.ConversationItemAdded, { type: 'conversation_item_added', item: message, createdAt: Date.now() });
  }
}

function lastUserText(history: llm.ChatContext): string {
  const users = history.items.filter((i): i is llm.ChatMessage => i.type === 'message' && i.role === 'user');
  return users.at(-1)?.textContent ?? '';
}

function setup() {
  const recognizer = new PreflightSTT({ capabilities: { streaming: true, interimResults: true }, label: 'x', on: () => {} } as unknown as stt.STT);
  const session = new FakeSession();
  const handler = answerRevisions(session, recognizer);
  const revise = (early: string, final: string) => recognizer.revised({ requestId: 'item_1', early, final });
  return { recognizer, session, handler, revise };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('answerRevisions', () => {
  it('a committed turn whose reply is playing: the history takes the model’s words and the reply is answered again', () => {
    const { session, handler, revise } = setup();
    session.commit('I need a table');
    session.agentState = 'speaking';
    revise('I need a table', 'I need a table for four.');
    expect(lastUserText(session.history)).toBe('I need a table for four.');
    expect(session.interrupts).toBe(1);
    expect(session.replies).toEqual(['I need a table for four.']);
    expect(handler.counts).toEqual({ corrected: 1, reanswered: 1, unmatched: 0 });
  });

  it('a turn not yet committed: corrected when it is, and answered again if the draft is under way', () => {
    const { session, handler, revise } = setup();
    revise('I need a table', 'I need a cable.');
    expect(session.interrupts).toBe(0);
    session.agentState = 'thinking';
    session.commit('I need a table');
    expect(lastUserText(session.history)).toBe('I need a cable.');
    expect(session.replies).toEqual(['I need a cable.']);
    expect(handler.counts.reanswered).toBe(1);
  });

  it('earlier words of the same turn stay; only the early final’s part is replaced', () => {
    const { session, revise } = setup();
    session.commit('Hello there. I need a table');
    revise('I need a table', 'I need a table for four.');
    expect(lastUserText(session.history)).toBe('Hello there. I need a table for four.');
  });

  it('a reply already over, or a caller speaking again: the history is corrected, nothing is said again', () => {
    const { session, handler, revise } = setup();
    session.commit('네 두 명이요');
    revise('네 두 명이요', '네, 세 명이요.');
    session.agentState = 'speaking';
    session.userState = 'speaking';
    session.commit('아 그리고');
    revise('아 그리고', '아, 그리고요');
    expect(session.interrupts).toBe(0);
    expect(session.replies).toEqual([]);
    expect(handler.counts).toEqual({ corrected: 2, reanswered: 0, unmatched: 0 });
    expect(session.history.items.filter((i) => i.type === 'message').map((i) => (i as llm.ChatMessage).textContent)).toEqual(['네, 세 명이요.', '아, 그리고요']);
  });

  it('a turn that never comes with those words is given up, and the next user message is left alone', () => {
    const { session, handler, revise } = setup();
    revise('I need a table', 'I need a table for four.');
    session.commit('Something else entirely');
    expect(lastUserText(session.history)).toBe('Something else entirely');
    revise('for two', 'for two please');
    vi.advanceTimersByTime(10_000);
    session.commit('for two');
    expect(lastUserText(session.history)).toBe('for two');
    expect(handler.counts).toEqual({ corrected: 0, reanswered: 0, unmatched: 2 });
  });

  it('closing stops it', () => {
    const { session, handler, revise } = setup();
    handler.close();
    session.commit('I need a table');
    revise('I need a table', 'I need a table for four.');
    expect(lastUserText(session.history)).toBe('I need a table');
  });

  it('replaces the early part where it stands, the last time it occurs', () => {
    const revision: TranscriptRevision = { requestId: 'r', early: 'a table', final: 'a cable' };
    expect(corrected('I need a table', revision)).toBe('I need a cable');
    expect(corrected('a table, I need a table for two', revision)).toBe('a table, I need a cable for two');
    expect(corrected('nothing alike', revision)).toBe('a cable');
  });

  it('an earlier speech’s part in the middle of the turn is corrected in place', () => {
    const { session, handler, revise } = setup();
    session.commit('Will it be sunny this weekend in Busan?');
    session.agentState = 'speaking';
    revise('Will it be sunny this weekend', 'Will it rain this weekend');
    expect(lastUserText(session.history)).toBe('Will it rain this weekend in Busan?');
    expect(handler.counts.reanswered).toBe(1);
  });
});
