import { describe, expect, it } from 'vitest';
import { CHAT_TOPIC, MAX_CHAT_LENGTH, createChatLines, prepareChat, shouldSendOnKey } from '../../web/chat.js';
import { createTranscript } from '../../web/transcript.js';

describe('chat messages', () => {
  it('go out on the topic the agent framework reads', () => {
    expect(CHAT_TOPIC).toBe('lk.chat');
  });

  it('are trimmed, with line breaks normalised, and refused when empty or too long', () => {
    expect(prepareChat('  hello agent \r\n')).toEqual({ ok: true, text: 'hello agent' });
    expect(prepareChat('line one\r\nline two\rthree')).toEqual({ ok: true, text: 'line one\nline two\nthree' });
    expect(prepareChat('안녕하세요')).toEqual({ ok: true, text: '안녕하세요' });
    expect(prepareChat('')).toEqual({ ok: false, reason: 'empty' });
    expect(prepareChat(' \n\t ')).toEqual({ ok: false, reason: 'empty' });
    expect(prepareChat('x'.repeat(MAX_CHAT_LENGTH))).toMatchObject({ ok: true });
    expect(prepareChat('x'.repeat(MAX_CHAT_LENGTH + 1))).toEqual({ ok: false, reason: 'too-long' });
  });

  it('are sent by Enter, not by Shift+Enter, other keys, or Enter ending an IME composition', () => {
    expect(shouldSendOnKey({ key: 'Enter', shiftKey: false })).toBe(true);
    expect(shouldSendOnKey({ key: 'Enter', shiftKey: false, isComposing: false, keyCode: 13 })).toBe(true);
    expect(shouldSendOnKey({ key: 'Enter', shiftKey: true })).toBe(false);
    expect(shouldSendOnKey({ key: 'Enter', shiftKey: false, isComposing: true })).toBe(false);
    expect(shouldSendOnKey({ key: 'Enter', shiftKey: false, keyCode: 229 })).toBe(false);
    expect(shouldSendOnKey({ key: 'a', shiftKey: false })).toBe(false);
  });

  it("appear at once as the user's final line, apart from transcribed speech", () => {
    const lines = createChatLines();
    const transcript = createTranscript();
    transcript.apply({ id: 'SG_1', speaker: 'user', text: 'spoken', mode: 'replace', final: false });
    const first = lines.line('typed one');
    const second = lines.line('typed two');
    expect(first).toEqual({ id: 'chat-1', speaker: 'user', text: 'typed one', mode: 'replace', final: true, source: 'chat', delivery: 'sending' });
    expect(second.id).toBe('chat-2');
    transcript.apply(first);
    transcript.apply(second);
    transcript.setDelivery('chat-1', 'sent');
    transcript.setDelivery('chat-2', 'failed');
    expect(transcript.entries().map((e) => [e.id, e.name, e.text, e.final, e.source, e.delivery])).toEqual([
      ['SG_1', 'You', 'spoken', false, 'speech', null],
      ['chat-1', 'You', 'typed one', true, 'chat', 'sent'],
      ['chat-2', 'You', 'typed two', true, 'chat', 'failed'],
    ]);
  });
});
