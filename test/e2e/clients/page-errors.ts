/**
 * The page's messages when a call cannot start, in headless Chromium inside the namespace:
 * - every agent busy: a page server (`tsx src/web/main.ts`, as `npm run web` runs it) that
 *   dispatches an agent name no worker registered, so no worker takes the call and /token
 *   answers 503 busy;
 * - LiveKit unreachable: a page server whose WEB_LIVEKIT_URL (the browser's) points at a port
 *   nothing listens on.
 * Prints `{"e2e":"page-errors","ok":true,"refused":{…},"unreachable":{…}}`.
 *
 *   [--screenshot FILE (unreachable)] [--refused-screenshot FILE] [--timeout-ms N] (environment: STACK_WEB_URL and the stack's LiveKit keys)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, TSX_BIN } from '../../../scripts/stack/layout.js';
import { closedPort } from '../../web/helpers.js';
import { PipeChromium } from './chromium.js';
import { type CdpPage, openPage } from './cdp-page.js';
import { need, parseArgs, runClient } from './common.js';

const args = parseArgs();
const timeoutMs = Number(args['timeout-ms'] ?? 80_000);
const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const TOKEN_STATUS = `(() => {
  const e2e = (window.__e2e = { tokens: [] });
  const nativeFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await nativeFetch(input, init);
    if (String(typeof input === 'string' ? input : input.url).endsWith('/token')) e2e.tokens.push(response.status);
    return response;
  };
})()`;

const READ = `(() => {
  const status = document.getElementById('status'), error = document.getElementById('error');
  return { state: status.dataset.state, status: status.textContent, error: error.textContent, errorHidden: error.hidden,
    connectEnabled: !document.getElementById('connect').disabled, tokenStatus: window.__e2e.tokens[0] ?? null };
})()`;

let browser: PipeChromium | undefined;
const servers: ChildProcess[] = [];

/** `npm run web`'s entry with its own port and these settings; resolves with its page URL. */
async function startPageServer(env: Record<string, string>): Promise<string> {
  const port = await closedPort();
  const child = spawn(TSX_BIN, [join(REPO_ROOT, 'src', 'web', 'main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, WEB_HOST: '127.0.0.1', WEB_PORT: String(port), LIVEKIT_URL: need('LIVEKIT_URL'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`a page server did not start within 45 s:\n${output}`)), 45_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /firstword web page: (http:\/\/\S+)/.exec(output);
      if (match) (clearTimeout(timer), resolve(match[1]!));
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`a page server exited ${code}:\n${output}`))));
  });
}

async function settle(page: CdpPage, what: string) {
  return page.waitFor<{ state: string; status: string; error: string; errorHidden: boolean; connectEnabled: boolean; tokenStatus: number | null }>(
    what,
    `(() => { const r = ${READ}; return ['error', 'busy', 'connected'].includes(r.state) && r; })()`,
    { timeoutMs: 45_000, describe: READ },
  );
}

runClient(
  'page-errors',
  timeoutMs,
  async () => {
    if (!existsSync(executable)) throw new Error(`${executable} not found (scripts/ensure-chromium.sh installs it)`);
    const livekitUrl = `ws://127.0.0.1:${await closedPort()}`;
    // The unreachable page's room gets the stack's agent, which waits for a caller who never
    // comes: a short token life closes that room soon (its empty timeout).
    const deadEnd = startPageServer({ WEB_LIVEKIT_URL: livekitUrl, WEB_TOKEN_TTL_S: '30' });
    deadEnd.catch(() => {});
    const noAgent = startPageServer({ AGENT_NAME: 'no-worker-has-this-name' });
    noAgent.catch(() => {});
    browser = PipeChromium.launch(executable, ['--lang=en-US']);
    await browser.send('Browser.getVersion', {}, undefined, 60_000); // started (slowly on a loaded machine)

    // No worker takes the call: /token answers busy, the page says so and connects nowhere.
    const web = new URL(await noAgent);
    web.search = new URLSearchParams({ autoconnect: '1' }).toString();
    const refusedPage = await openPage(browser, web.href, { initScripts: [TOKEN_STATUS] });
    const refused = await settle(refusedPage, 'the page to report that every agent is busy (#status[data-state=busy])');
    if (args['refused-screenshot']) await refusedPage.screenshot(args['refused-screenshot']);
    await browser.send('Target.closeTarget', { targetId: await targetOf(refusedPage) });

    const page = new URL(await deadEnd);
    page.search = new URLSearchParams({ autoconnect: '1' }).toString();
    const unreachablePage = await openPage(browser, page.href, { initScripts: [TOKEN_STATUS] });
    const unreachable = await settle(unreachablePage, 'the page to report the unreachable LiveKit server (#status[data-state=error])');
    const screenshot = args.screenshot ? await unreachablePage.screenshot(args.screenshot) : null;
    return { refused, unreachable: { ...unreachable, livekitUrl }, screenshot };
  },
  async () => {
    for (const server of servers) server.kill('SIGTERM');
    await browser?.close();
  },
);

async function targetOf(page: CdpPage): Promise<string> {
  const { targetInfo } = (await page.send('Target.getTargetInfo')) as { targetInfo: { targetId: string } };
  return targetInfo.targetId;
}
