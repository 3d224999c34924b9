/**
 * One page of a {@link PipeChromium}, driven the way a person would: real mouse clicks at an
 * element's centre, real key presses, screenshots, and bounded waits that name what they waited
 * for. Used by the page clients (page-call.ts, page-errors.ts) inside the stack's namespace.
 */
import { writeFileSync } from 'node:fs';
import type { PipeChromium } from './chromium.js';

export interface CdpPage {
  readonly sessionId: string;
  evaluate<T = unknown>(expression: string): Promise<T>;
  send(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A left click at the centre of `selector` (scrolled into view first). */
  click(selector: string): Promise<void>;
  /** Key presses (keyDown with the character's text, keyUp) for each character of `text`. */
  type(text: string): Promise<void>;
  /** One named key: `Enter`, `Tab`… */
  press(key: keyof typeof NAMED_KEYS): Promise<void>;
  /** Saves a PNG of the whole page and returns `path`. */
  screenshot(path: string): Promise<string>;
  /**
   * Polls `expression` every `everyMs` until it evaluates to something other than
   * null/undefined/false and returns that; fails after `timeoutMs` naming `what` and, when
   * given, what `describe` says about the page at that moment.
   */
  waitFor<T = unknown>(what: string, expression: string, options?: { timeoutMs?: number; everyMs?: number; describe?: string }): Promise<T>;
}

const NAMED_KEYS = {
  Enter: { key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, text: '\r' },
  Tab: { key: 'Tab', code: 'Tab', windowsVirtualKeyCode: 9 },
} as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a US keyboard sends for a printable ASCII character (enough for test sentences). */
function keyFor(char: string): Record<string, unknown> {
  const base = { key: char, text: char, unmodifiedText: char };
  if (/^[a-z]$/.test(char)) return { ...base, code: `Key${char.toUpperCase()}`, windowsVirtualKeyCode: char.toUpperCase().charCodeAt(0) };
  if (/^[A-Z]$/.test(char)) return { ...base, code: `Key${char}`, windowsVirtualKeyCode: char.charCodeAt(0), modifiers: 8 };
  if (/^[0-9]$/.test(char)) return { ...base, code: `Digit${char}`, windowsVirtualKeyCode: char.charCodeAt(0) };
  const punctuation: Record<string, [string, number, boolean]> = {
    ' ': ['Space', 32, false],
    '.': ['Period', 190, false],
    ',': ['Comma', 188, false],
    '?': ['Slash', 191, true],
    '!': ['Digit1', 49, true],
    "'": ['Quote', 222, false],
    '-': ['Minus', 189, false],
  };
  const known = punctuation[char];
  if (!known) throw new Error(`no key for ${JSON.stringify(char)}: type ASCII letters, digits and . , ? ! ' -`);
  return { ...base, code: known[0], windowsVirtualKeyCode: known[1], ...(known[2] ? { modifiers: 8 } : {}) };
}

export async function openPage(
  browser: PipeChromium,
  url: string,
  { initScripts = [], viewport = { width: 1000, height: 900 } }: { initScripts?: string[]; viewport?: { width: number; height: number } } = {},
): Promise<CdpPage> {
  const { targetId } = (await browser.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
  const { sessionId } = (await browser.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
  const send = (method: string, params: Record<string, unknown> = {}) => browser.send(method, params, sessionId);
  await send('Page.enable');
  await send('Emulation.setDeviceMetricsOverride', { ...viewport, deviceScaleFactor: 1, mobile: false });
  for (const source of initScripts) await send('Page.addScriptToEvaluateOnNewDocument', { source });
  await send('Page.navigate', { url });

  const evaluate = async <T>(expression: string): Promise<T> => {
    const { result, exceptionDetails } = (await send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true })) as {
      result: { value?: unknown };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (exceptionDetails) throw new Error(`evaluate failed: ${exceptionDetails.exception?.description ?? exceptionDetails.text}`);
    return result.value as T;
  };

  const keyEvent = async ({ text, unmodifiedText, ...key }: Record<string, unknown>) => {
    await send('Input.dispatchKeyEvent', { type: 'keyDown', text, unmodifiedText, ...key });
    await send('Input.dispatchKeyEvent', { type: 'keyUp', ...key });
  };

  return {
    sessionId,
    evaluate,
    send,
    async click(selector) {
      const box = await evaluate<{ x: number; y: number; disabled: boolean } | null>(`(() => {
        const el = document.querySelector(${JSON.stringify(selector)});
        if (!el) return null;
        el.scrollIntoView({ block: 'center' });
        const r = el.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2, disabled: !!el.disabled };
      })()`);
      if (!box) throw new Error(`click: no element ${selector}`);
      if (box.disabled) throw new Error(`click: ${selector} is disabled`);
      await send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box.x, y: box.y });
      for (const type of ['mousePressed', 'mouseReleased']) {
        await send('Input.dispatchMouseEvent', { type, x: box.x, y: box.y, button: 'left', buttons: type === 'mousePressed' ? 1 : 0, clickCount: 1 });
      }
    },
    async type(text) {
      for (const char of text) await keyEvent(keyFor(char));
    },
    async press(key) {
      await keyEvent({ ...NAMED_KEYS[key] });
    },
    async screenshot(path) {
      const height = Math.ceil(await evaluate<number>('document.documentElement.scrollHeight'));
      const { data } = (await send('Page.captureScreenshot', {
        format: 'png',
        captureBeyondViewport: true,
        clip: { x: 0, y: 0, width: viewport.width, height: Math.max(height, viewport.height), scale: 1 },
      })) as { data: string };
      writeFileSync(path, Buffer.from(data, 'base64'));
      return path;
    },
    async waitFor<T>(what: string, expression: string, { timeoutMs = 30_000, everyMs = 100, describe }: { timeoutMs?: number; everyMs?: number; describe?: string } = {}) {
      const started = Date.now();
      let lastError: unknown;
      for (;;) {
        try {
          const value = await evaluate<T>(expression);
          if (value !== null && value !== undefined && value !== false) return value;
        } catch (error) {
          lastError = error;
        }
        if (Date.now() - started >= timeoutMs) break;
        await sleep(everyMs);
      }
      let page = '';
      if (describe) page = `; the page: ${JSON.stringify(await evaluate(describe).catch((error: Error) => `(unreadable: ${error.message})`))}`;
      const error = lastError ? `; last error: ${String(lastError)}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${error}${page}`);
    },
  };
}
