// @ts-check
/**
 * Typing to the agent: the text goes to the room on topic `lk.chat` (the agent framework reads
 * that topic as user input and answers it like speech) and appears in the transcript as the
 * user's line at once, marked `data-delivery="sending"`, then "sent" or "failed".
 *
 * Enter sends, Shift+Enter starts a new line, and Enter that confirms an input-method
 * composition (Korean, Japanese, Chinese…) does neither.
 *
 * `prepareChat`, `shouldSendOnKey` and `createChatLines` are pure; `bindChat` is the DOM wiring.
 */

export const CHAT_TOPIC = 'lk.chat';
export const MAX_CHAT_LENGTH = 2000;

/**
 * @typedef {{ ok: true, text: string } | { ok: false, reason: 'empty' | 'too-long' }} PreparedChat
 * @typedef {import('./transcript.js').TranscriptUpdate} TranscriptUpdate
 */

/**
 * @param {string} raw what is in the text box
 * @returns {PreparedChat}
 */
export function prepareChat(raw) {
  const text = raw.replace(/\r\n?/g, '\n').trim();
  if (text === '') return { ok: false, reason: 'empty' };
  if (text.length > MAX_CHAT_LENGTH) return { ok: false, reason: 'too-long' };
  return { ok: true, text };
}

/**
 * @param {{ key: string, shiftKey: boolean, isComposing?: boolean, keyCode?: number }} event
 */
export function shouldSendOnKey(event) {
  // keyCode 229: the key went to an input method (Safari reports composition ends this way)
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing && event.keyCode !== 229;
}

/**
 * Transcript lines for typed messages, with ids of their own (`chat-1`, `chat-2`…) so they never
 * merge with transcribed speech.
 */
export function createChatLines() {
  let count = 0;
  return {
    /**
     * @param {string} text
     * @returns {TranscriptUpdate}
     */
    line(text) {
      count += 1;
      return { id: `chat-${count}`, speaker: 'user', text, mode: 'replace', final: true, source: 'chat', delivery: 'sending' };
    },
  };
}

/**
 * @param {{ form: HTMLFormElement, input: HTMLTextAreaElement | HTMLInputElement, send: HTMLButtonElement }} ui
 * @param {(text: string) => void} onSend called with the prepared text; the box is cleared
 */
export function bindChat(ui, onSend) {
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const prepared = prepareChat(ui.input.value);
    if (!prepared.ok) return;
    ui.input.value = '';
    onSend(prepared.text);
    ui.input.focus();
  });
  ui.input.addEventListener('keydown', (event) => {
    const key = /** @type {KeyboardEvent} */ (event);
    if (!shouldSendOnKey(key)) return;
    key.preventDefault();
    ui.form.requestSubmit();
  });
}

/**
 * @param {{ input: HTMLTextAreaElement | HTMLInputElement, send: HTMLButtonElement }} ui
 * @param {boolean} enabled
 */
export function setChatEnabled(ui, enabled) {
  ui.input.disabled = !enabled;
  ui.send.disabled = !enabled;
  ui.input.placeholder = enabled ? 'Type to the agent (Enter sends, Shift+Enter: new line)' : 'Connect to type to the agent';
}
