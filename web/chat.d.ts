// Generated from chat.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function prepareChat(raw: string): PreparedChat;
export function shouldSendOnKey(event: {
    key: string;
    shiftKey: boolean;
    isComposing?: boolean;
    keyCode?: number;
}): boolean;
export function createChatLines(): {
    line(text: string): TranscriptUpdate;
};
export function bindChat(ui: {
    form: HTMLFormElement;
    input: HTMLTextAreaElement | HTMLInputElement;
    send: HTMLButtonElement;
}, onSend: (text: string) => void): void;
export function setChatEnabled(ui: {
    input: HTMLTextAreaElement | HTMLInputElement;
    send: HTMLButtonElement;
}, enabled: boolean): void;
export const CHAT_TOPIC: "lk.chat";
export const MAX_CHAT_LENGTH: 2000;
export type PreparedChat = {
    ok: true;
    text: string;
} | {
    ok: false;
    reason: "empty" | "too-long";
};
export type TranscriptUpdate = import("./transcript.js").TranscriptUpdate;
