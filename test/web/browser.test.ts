import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadlessChromium, waitFor } from './cdp.js';
import { type RunningWebServer, closedPort, startWebServer } from './helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const skipReason = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} not found; install it with scripts/ensure-chromium.sh (CI does)`;

if (skipReason) console.warn(`[test/web/browser] skipped: ${skipReason}`);

interface PageState {
  state: string;
  status: string;
  error: string;
  errorHidden: boolean;
}

const READ_STATE = `(() => {
  const status = document.getElementById('status');
  const error = document.getElementById('error');
  return status ? { state: status.dataset.state, status: status.textContent, error: error.textContent, errorHidden: error.hidden } : undefined;
})()`;

describe.skipIf(skipReason !== undefined)(
  `the page in headless Chromium${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let browser: HeadlessChromium;
    let web: RunningWebServer;
    let livekitUrl: string;
    const tokenRequests: unknown[] = [];

    beforeAll(async () => {
      livekitUrl = `ws://127.0.0.1:${await closedPort()}`;
      web = await startWebServer({ livekitUrl });
      web.server.on('request', (req) => {
        if (req.url === '/token') tokenRequests.push(req.method);
      });
      browser = await HeadlessChromium.launch(CHROMIUM);
    }, 30_000);

    afterAll(async () => {
      await browser?.close();
      await web?.close();
    });

    it('shows a clear connection error when no LiveKit server is reachable', async () => {
      const evaluate = await browser.open(`${web.base}/?room=browser-test&identity=tester&autoconnect=1`);

      const final = await waitFor(async () => {
        const page = (await evaluate(READ_STATE)) as PageState | undefined;
        return page && page.state === 'error' ? page : undefined;
      }, 'the page to report the failed connection');

      expect(tokenRequests).toContain('POST');
      expect(final.status).toBe('Connection failed.');
      expect(final.errorHidden).toBe(false);
      expect(final.error).toContain(`Could not connect to LiveKit at ${livekitUrl}`);
      expect(final.error).toContain('Check that the LiveKit server is running');
      // the module graph (app.js → livekit-client ESM) loaded and ran without uncaught errors
      expect(browser.exceptions).toEqual([]);
      expect(await evaluate(`document.getElementById('connect').disabled`)).toBe(false);
    });

    it("shows the token endpoint's reason when the input is rejected", async () => {
      const evaluate = await browser.open(`${web.base}/?room=bad%20room&identity=tester&autoconnect=1`);

      const final = await waitFor(async () => {
        const page = (await evaluate(READ_STATE)) as PageState | undefined;
        return page && page.state === 'error' ? page : undefined;
      }, 'the page to report the refused token');

      expect(final.error).toMatch(/^The token request was refused: room: use 1-64 letters/);
    });
  },
);
