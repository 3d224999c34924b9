import { EventEmitter } from 'node:events';
import { llm, voice } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { HISTORY_ATTRIBUTE, HISTORY_MAX_TURNS, decodeHistory } from '../../src/recovery/history.js';
import { greetResumedCall, keepHistory, resumeGreeting } from '../../src/recovery/job.js';
import { readDispatchMetadata } from '../../src/recovery/dispatch-metadata.js';

const quiet = { info: () => {}, warn: () => {} };
const added = (role: 'user' | 'assistant' | 'system', text: string) =>
  ({ type: 'conversation_item_added', item: new llm.ChatMessage({ role, content: [text] }), createdAt: Date.now() }) as voice.ConversationItemAddedEvent;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('the history a job keeps on its agent participant', () => {
  it('writes the bounded history after each message, seeded with the resumed call\'s', async () => {
    const session = new EventEmitter();
    const written: Record<string, string>[] = [];
    const kept = keepHistory(session as never, { setAttributes: async (a) => void written.push(a) }, [{ role: 'user', text: 'earlier' }], quiet);
    session.emit(voice.AgentSessionEventTypes.ConversationItemAdded, added('system', 'instructions'));
    session.emit(voice.AgentSessionEventTypes.ConversationItemAdded, added('assistant', 'Sorry — where were we?'));
    for (let i = 0; i < HISTORY_MAX_TURNS; i++) session.emit(voice.AgentSessionEventTypes.ConversationItemAdded, added('user', `turn ${i}`));
    await settle();
    expect(written).toHaveLength(1 + HISTORY_MAX_TURNS);
    expect(decodeHistory(written[0]![HISTORY_ATTRIBUTE])).toEqual({ ok: true, value: [{ role: 'user', text: 'earlier' }, { role: 'assistant', text: 'Sorry — where were we?' }] });
    const last = decodeHistory(written.at(-1)![HISTORY_ATTRIBUTE]);
    expect(last.ok && last.value.map((t) => t.text)).toEqual(Array.from({ length: HISTORY_MAX_TURNS }, (_, i) => `turn ${i}`));
    expect(kept.turns()).toEqual(last.ok ? last.value : []);
    kept.stop();
    session.emit(voice.AgentSessionEventTypes.ConversationItemAdded, added('user', 'after stop'));
    await settle();
    expect(written).toHaveLength(1 + HISTORY_MAX_TURNS);
  });

  it('a failed write is one warning, and later writes still go', async () => {
    const session = new EventEmitter();
    const warnings: string[] = [];
    let calls = 0;
    keepHistory(session as never, { setAttributes: async () => { if (calls++ < 2) throw new Error('not connected'); } }, [], { info: () => {}, warn: (_f, msg) => warnings.push(msg) });
    for (const text of ['a', 'b', 'c']) session.emit(voice.AgentSessionEventTypes.ConversationItemAdded, added('user', text));
    await settle();
    expect(calls).toBe(3);
    expect(warnings).toHaveLength(1);
  });
});

describe('a resumed call\'s first words', () => {
  it('an apology in the caller\'s language, from held audio when there is some; nothing for a first dispatch', () => {
    const said: { text: string; audio?: unknown }[] = [];
    const session = { say: (text: string, options: { audio?: unknown }) => said.push({ text, audio: options.audio }) };
    const first = readDispatchMetadata('{"caller":"c"}');
    expect(resumeGreeting(first, 'en')).toBeUndefined();
    expect(greetResumedCall(session, first, resumeGreeting(first, 'en'), quiet)).toBe(false);
    const resume = readDispatchMetadata(JSON.stringify({ resumeOf: 'AJ_1', history: [{ role: 'user', text: '안녕하세요' }] }));
    const audio = new ReadableStream();
    expect(greetResumedCall(session, resume, resumeGreeting(resume, 'en'), quiet, audio as never)).toBe(true);
    const broken = readDispatchMetadata(JSON.stringify({ resumeOf: 'AJ_1', history: 'x' }));
    const warnings: string[] = [];
    expect(greetResumedCall(session, broken, resumeGreeting(broken, 'en'), { info: () => {}, warn: (_f, msg) => warnings.push(msg) })).toBe(true);
    expect(said).toEqual([{ text: '죄송해요, 어디까지 이야기했었죠?', audio }, { text: 'Sorry — where were we?', audio: undefined }]);
    expect(warnings).toEqual(['resuming the call without its history']);
  });
});
