/**
 * A whole call on the project's page (`npm run web`) in headless Chromium inside the namespace,
 * against the stack's real worker: the page fetches a token, connects, the agent joins; the
 * fake microphone plays `--wav` (real speech) once the test lets it, the agent answers; then a
 * message is typed (key presses) and answered; the microphone is muted and unmuted; the device
 * list is read; a screenshot is saved. Prints one line,
 * `{"e2e":"page-call","ok":true,"token":…,"agent":…,"audio":…,"transcript":…,…}`, for
 * test/e2e/browser-page.test.ts to assert on.
 *
 * The microphone is blocked when the page connects (CDP `Browser.setPermission`) and allowed
 * once the agent listens; pressing the page's Mute button then starts it ("press Mute to try
 * again"). Chromium plays the WAV from its start whenever the capture starts, so the speech
 * cannot be over before the agent is there to hear it, however slowly the agent joins.
 *
 *   --wav FILE --screenshot FILE --plan '{"name","said","spokenReply","typed","typedReply"}'
 *   [--timeout-ms N] (environment: STACK_WEB_URL, STACK_OPENAI_URL)
 */
import { existsSync } from 'node:fs';
import { PipeChromium } from './chromium.js';
import { type CdpPage, openPage } from './cdp-page.js';
import { need, parseArgs, runClient } from './common.js';

interface Plan {
  /** The display name typed in the page; the server names the room and identity. */
  name: string;
  /** What the fake STT transcribes the WAV as (queued on the OpenAI fake). */
  said: string;
  spokenReply: string;
  typed: string;
  typedReply: string;
}

export interface Line {
  speaker: string;
  source: string;
  final: string;
  delivery: string | null;
  name: string;
  text: string;
}

export interface InboundStats {
  packetsReceived: number;
  totalAudioEnergy: number;
  totalSamplesDuration: number;
  audioLevel: number | null;
  concealedSamples: number;
}

const args = parseArgs();
const timeoutMs = Number(args['timeout-ms'] ?? 150_000);
const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const plan = JSON.parse(args.plan ?? '{}') as Plan;

/**
 * Installed before the page's own scripts: records every change of the states the page shows
 * (`#status`, `#agent-state`, `#mic-status`), the `/token` exchange, uncaught errors, and the
 * level meter's range per agent state (it changes every animation frame, too fast to poll).
 */
const RECORDER = `(() => {
  const e2e = (window.__e2e = { changes: [], tokens: [], errors: [], levels: {} });
  const now = () => Math.round(performance.now());
  addEventListener('error', (event) => e2e.errors.push(String(event.message)));
  addEventListener('unhandledrejection', (event) => e2e.errors.push(String(event.reason && event.reason.stack || event.reason)));
  const nativeFetch = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await nativeFetch(input, init);
    if (String(typeof input === 'string' ? input : input.url).endsWith('/token')) {
      const record = { at: now(), status: response.status, request: init && init.body ? JSON.parse(init.body) : null };
      e2e.tokens.push(record);
      response.clone().json().then((body) => { record.body = body; }, () => {});
    }
    return response;
  };
  const WATCH = { 'data-state': 'status', 'data-agent-state': 'agent-state', 'data-mic': 'mic-status' };
  new MutationObserver((records) => {
    const watched = [];
    for (const r of records) {
      const el = r.target;
      if (r.attributeName === 'data-level' && el.id === 'agent-level') {
        const state = document.getElementById('agent-state').dataset.agentState;
        const level = Number(el.dataset.level);
        const range = e2e.levels[state] || (e2e.levels[state] = { max: 0, min: 1, frames: 0 });
        range.max = Math.max(range.max, level);
        range.min = Math.min(range.min, level);
        range.frames += 1;
      } else if (WATCH[r.attributeName] === el.id) watched.push(r);
    }
    // One batch can hold several changes of one attribute: each one's value is the next one's oldValue.
    watched.forEach((r, i) => {
      const next = watched.slice(i + 1).find((n) => n.target === r.target && n.attributeName === r.attributeName);
      const value = next ? next.oldValue : r.target.getAttribute(r.attributeName);
      if (value !== r.oldValue) e2e.changes.push({ at: now(), what: r.target.id, value });
    });
  }).observe(document, { subtree: true, attributes: true, attributeOldValue: true, attributeFilter: [...Object.keys(WATCH), 'data-level'] });
})()`;

const LINES = `[...document.querySelectorAll('#transcript > li')].map((li) => ({
  speaker: li.dataset.speaker, source: li.dataset.source, final: li.dataset.final, delivery: li.dataset.delivery ?? null,
  name: li.querySelector('.speaker').textContent, text: li.querySelector('.text').textContent,
}))`;

/** What a failed wait reports about the page. */
const DESCRIBE = `(() => {
  const s = window.__firstword && window.__firstword.state();
  return s && { connection: s.connection, status: s.status, error: s.error, agent: s.agent, mic: s.mic, transcript: ${LINES},
    turns: s.turns, changes: window.__e2e.changes.slice(-15), errors: window.__e2e.errors };
})()`;

const STATS = `window.__firstword.stats()`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function control(path: string, body: unknown): Promise<unknown> {
  const origin = new URL(need('STACK_OPENAI_URL')).origin;
  const response = await fetch(`${origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  const answer = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`OpenAI fake ${path}: HTTP ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

function decodeJwt(token: unknown): Record<string, unknown> | null {
  if (typeof token !== 'string') return null;
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

let browser: PipeChromium | undefined;
let opened: CdpPage | undefined;

/** A failed call still leaves a picture of the page behind. */
async function failed(error: Error): Promise<never> {
  if (opened && args.screenshot) {
    const file = args.screenshot.replace(/\.png$/, '') + '-failed.png';
    const saved = await Promise.race([opened.screenshot(file), sleep(5000).then(() => null)]).catch(() => null);
    if (saved) error.message += `\n(screenshot of the page: ${saved})`;
  }
  throw error;
}

runClient(
  'page-call',
  timeoutMs,
  () => call().catch(failed),
  async () => browser?.close(),
);

async function call(): Promise<Record<string, unknown>> {
  if (!existsSync(executable)) throw new Error(`${executable} not found (scripts/ensure-chromium.sh installs it)`);
  if (!args.wav || !existsSync(args.wav)) throw new Error(`--wav ${args.wav} does not exist`);
  const started = Date.now();
  const steps: Record<string, number> = {};
  const step = (name: string) => (steps[name] = Date.now() - started);

  await control('/_control/script', [
    { match: plan.said, reply: plan.spokenReply },
    { match: plan.typed, reply: plan.typedReply },
  ]);
  await control('/_control/transcripts', [plan.said]);

  const web = new URL(need('STACK_WEB_URL'));
  // Real permissions instead of the fake media UI (which grants everything): blocked until allowed.
  browser = PipeChromium.launch(executable, [`--use-file-for-fake-audio-capture=${args.wav}%noloop`, '--lang=en-US'], {
    without: ['--use-fake-ui-for-media-stream'],
  });
  // Chromium answers once it has started (a loaded CI machine may take a while): wait for that first.
  await browser.send('Browser.getVersion', {}, undefined, 60_000);
  await browser.send('Browser.setPermission', { permission: { name: 'microphone' }, setting: 'denied', origin: web.origin });
  const url = new URL(web);
  url.search = new URLSearchParams({ autoconnect: '1', debug: '1', name: plan.name, agentTimeout: '90' }).toString();
  const page = await openPage(browser, url.href, { initScripts: [RECORDER] });
  opened = page;
  const wait = <T>(what: string, expression: string, ms = 30_000) => page.waitFor<T>(what, expression, { timeoutMs: ms, describe: DESCRIBE });

  // ---- token, connection, the agent ---------------------------------------------------
  await wait('the page module to run (body[data-page=ready])', `document.body?.dataset.page === 'ready'`);
  const connected = await wait<string>(
    '#status[data-state=connected] (or error)',
    `['connected', 'error'].includes(document.getElementById('status').dataset.state) && document.getElementById('status').dataset.state`,
    45_000,
  );
  if (connected === 'error') throw new Error(`the page did not connect: ${JSON.stringify(await page.evaluate(DESCRIBE))}`);
  step('connected');
  // When livekit-client says each side started and stopped speaking (the SFU's speaker updates).
  await page.evaluate(`(() => {
    const room = window.__firstword.room, log = (what, value) => window.__e2e.changes.push({ at: Math.round(performance.now()), what, value: String(value) });
    room.localParticipant.on('isSpeakingChanged', (speaking) => log('user-speaking', speaking));
    const follow = (p) => p.on('isSpeakingChanged', (speaking) => log('agent-speaking', speaking));
    room.remoteParticipants.forEach(follow);
    room.on('participantConnected', follow);
  })()`);
  const blockedMic = await wait<{ state: string; error: string; pressed: string }>(
    'the blocked microphone to be reported (#mic-status[data-mic=unavailable])',
    `document.getElementById('mic-status').dataset.mic === 'unavailable' && {
      state: 'unavailable', error: document.getElementById('mic-error').textContent, pressed: document.getElementById('mic').getAttribute('aria-pressed') }`,
  );
  await wait('#agent-state[data-agent-state=listening]', `document.getElementById('agent-state').dataset.agentState === 'listening'`, 90_000);
  step('agentListening');
  await wait("the agent's audio track on the page (__firstword.stats() not null)", `${STATS}.then((s) => s !== null)`, 30_000);
  const beforeTurn = await page.evaluate<InboundStats>(STATS);

  // Sample the agent's inbound audio and the meter from here on, for the report.
  const series: [number, number, number, string, number, number | null][] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const sample = await page
        .evaluate<[number, number, string, number, number | null, number] | null>(
          `(async () => {
            const s = await ${STATS};
            const mic = window.__firstword.room.localParticipant.getTrackPublication('microphone')?.track;
            let micLevel = null;
            if (mic) (await mic.getRTCStatsReport())?.forEach((r) => { if (r.type === 'media-source') micLevel = r.audioLevel ?? null; });
            return s && [s.packetsReceived, s.totalAudioEnergy, document.getElementById('agent-state').dataset.agentState,
              Number(document.getElementById('agent-level').dataset.level), micLevel, Math.round(performance.now())];
          })()`,
        )
        .catch(() => null);
      // [page clock ms, packets, energy, agent state, meter level, microphone level]
      if (sample) series.push([sample[5], sample[0], Number(sample[1].toFixed(5)), sample[2], sample[3], sample[4] === null ? null : Number(sample[4].toFixed(4))]);
      await sleep(250);
    }
  })();

  // ---- the spoken turn ------------------------------------------------------------------
  await browser.send('Browser.setPermission', { permission: { name: 'microphone' }, setting: 'granted', origin: web.origin });
  await page.click('#mic');
  await wait('#mic-status[data-mic=on] after allowing the microphone and pressing Mute', `document.getElementById('mic-status').dataset.mic === 'on'`);
  step('micOn');
  const micOn = await page.evaluate<{ pressed: string; status: string; at: number }>(
    `({ at: Math.round(performance.now()), pressed: document.getElementById('mic').getAttribute('aria-pressed'), status: document.getElementById('mic-status').textContent })`,
  );
  const userLine = await wait<Line>(
    "the user's spoken line (#transcript > li[data-speaker=user][data-source=speech][data-final=true])",
    `${LINES}.find((l) => l.speaker === 'user' && l.source === 'speech' && l.final === 'true')`,
    60_000,
  );
  step('userLine');
  const spokenReply = await wait<Line>(
    "the agent's final reply line after the user's",
    `(() => { const lines = ${LINES}; const u = lines.findIndex((l) => l.speaker === 'user'); return lines.slice(u + 1).find((l) => l.speaker === 'agent' && l.final === 'true'); })()`,
    60_000,
  );
  step('spokenReply');
  await wait(
    'the agent to speak and listen again after the spoken turn',
    `(() => { const c = window.__e2e.changes.filter((c) => c.what === 'agent-state'); const s = c.findIndex((c) => c.value === 'speaking'); return s >= 0 && c.slice(s).some((c) => c.value === 'listening'); })()`,
    60_000,
  );
  const firstTurn = await wait<{ turn: string; ms: string; text: string }>(
    'the time-to-first-audio row of turn 1 (#turns > li[data-turn="1"])',
    `(() => { const li = document.querySelector('#turns > li[data-turn="1"]'); return li && { turn: li.dataset.turn, ms: li.dataset.ms, text: li.textContent }; })()`,
    15_000,
  );
  const afterSpoken = await page.evaluate<InboundStats>(STATS);
  step('spokenTurnDone');

  // ---- the typed turn -------------------------------------------------------------------
  await page.click('#chat-input');
  await page.type(plan.typed);
  const typedBeforeEnter = await page.evaluate<string>(`document.getElementById('chat-input').value`);
  await page.press('Enter');
  const chatLine = await wait<Line>(
    "the typed line, delivered (#transcript > li[data-source=chat][data-delivery=sent])",
    `${LINES}.find((l) => l.source === 'chat' && l.delivery === 'sent')`,
    20_000,
  );
  const inputAfterEnter = await page.evaluate<string>(`document.getElementById('chat-input').value`);
  step('chatSent');
  const typedReply = await wait<Line>(
    "the agent's final reply line after the typed line",
    `(() => { const lines = ${LINES}; const c = lines.findIndex((l) => l.source === 'chat'); return lines.slice(c + 1).find((l) => l.speaker === 'agent' && l.final === 'true'); })()`,
    60_000,
  );
  step('typedReply');
  await wait(
    'the agent to speak and listen again after the typed turn',
    `(() => { const c = window.__e2e.changes.filter((c) => c.what === 'agent-state'); const s = c.map((c) => c.value).lastIndexOf('speaking'); const t = c.filter((c) => c.value === 'speaking').length; return t >= 2 && c.slice(s).some((c) => c.value === 'listening'); })()`,
    60_000,
  );
  const secondTurn = await wait<{ turn: string; ms: string; text: string }>(
    'the time-to-first-audio row of turn 2 (#turns > li[data-turn="2"])',
    `(() => { const li = document.querySelector('#turns > li[data-turn="2"]'); return li && { turn: li.dataset.turn, ms: li.dataset.ms, text: li.textContent }; })()`,
    15_000,
  );
  const afterTyped = await page.evaluate<InboundStats>(STATS);
  step('typedTurnDone');
  sampling = false;
  await sampler;

  // ---- the meter ------------------------------------------------------------------------
  const meter = await page.evaluate<{ levels: Record<string, { max: number; min: number; frames: number }>; dataset: Record<string, string>; audioContext: string }>(
    `({ levels: window.__e2e.levels, dataset: { ...document.getElementById('agent-level').dataset }, audioContext: window.__firstword.state().audioContext })`,
  );
  const afterReply = await wait<Record<string, string>>(
    "the agent's level meter to fall back after the reply (#agent-level[data-level] < 0.05)",
    `(() => { const d = document.getElementById('agent-level').dataset; return Number(d.level) < 0.05 && { ...d }; })()`,
    15_000,
  );
  const micMeter = await page.evaluate<Record<string, string>>(`({ ...document.getElementById('mic-level').dataset })`);

  // ---- mute -----------------------------------------------------------------------------
  const MIC = `(() => {
    const pub = window.__firstword.room.localParticipant.getTrackPublication('microphone');
    return { pressed: document.getElementById('mic').getAttribute('aria-pressed'), state: document.getElementById('mic-status').dataset.mic,
      status: document.getElementById('mic-status').textContent,
      publication: pub ? { muted: pub.isMuted, trackMuted: pub.track.isMuted, enabled: pub.track.mediaStreamTrack.enabled, readyState: pub.track.mediaStreamTrack.readyState } : null };
  })()`;
  await page.click('#mic');
  await wait('#mic[aria-pressed=true] after pressing Mute', `document.getElementById('mic').getAttribute('aria-pressed') === 'true' && document.getElementById('mic-status').dataset.mic === 'muted'`, 15_000);
  const muted = await page.evaluate(MIC);
  await page.click('#mic');
  await wait('#mic[aria-pressed=false] after pressing Mute again', `document.getElementById('mic').getAttribute('aria-pressed') === 'false' && document.getElementById('mic-status').dataset.mic === 'on'`, 15_000);
  const unmuted = await page.evaluate(MIC);
  step('muteToggled');

  // ---- devices --------------------------------------------------------------------------
  const devices = await page.evaluate(`(() => {
    const select = document.getElementById('mic-device');
    return { count: select.dataset.count, disabled: select.disabled, value: select.value,
      options: [...select.options].map((o) => ({ value: o.value, label: o.textContent })) };
  })()`);

  // ---- what is left to report -----------------------------------------------------------
  const screenshot = args.screenshot ? await page.screenshot(args.screenshot) : null;
  const recorded = await page.evaluate<{ changes: { at: number; what: string; value: string }[]; tokens: { status: number; request: unknown; body?: Record<string, unknown> }[]; errors: string[]; timeOrigin: number }>(
    `({ changes: window.__e2e.changes, tokens: window.__e2e.tokens, errors: window.__e2e.errors, timeOrigin: performance.timeOrigin })`,
  );
  const final = await page.evaluate<Record<string, unknown>>(`window.__firstword.state()`);

  // ---- leave ----------------------------------------------------------------------------
  // Pressing Disconnect sends LiveKit's leave: the agent ends its session at once (a closed
  // browser is only noticed by the server's timeout, and the worker would drain it at `down`).
  await page.click('#disconnect');
  const left = await wait<{ state: string; status: string; error: string | null; agent: string; mic: string }>(
    '#status[data-state=disconnected] after pressing Disconnect',
    `(() => { const s = window.__firstword.state(); return s.connection === 'disconnected' && { state: s.connection, status: s.status, error: s.error, agent: s.agent.state, mic: s.mic.state }; })()`,
    15_000,
  );
  step('left');
  const fake = await control('/_control/stats', undefined);
  const history = (what: string) => recorded.changes.filter((c) => c.what === what).map((c) => c.value);
  const token = recorded.tokens[0];
  return {
    steps,
    token: token && {
      status: token.status,
      request: token.request,
      room: token.body?.room,
      identity: token.body?.identity,
      url: token.body?.url,
      agentName: token.body?.agentName,
      claims: decodeJwt(token.body?.token),
      requests: recorded.tokens.length,
    },
    connection: { history: history('status'), final: final.connection, status: final.status, error: final.error, left },
    agent: { history: history('agent-state'), identity: (final.agent as { identity: string | null }).identity },
    mic: { history: history('mic-status'), blocked: blockedMic, on: micOn, muted, unmuted },
    audio: { beforeTurn, afterSpoken, afterTyped, series },
    transcript: { lines: await page.evaluate<Line[]>(LINES), userLine, spokenReply, chatLine, typedReply, typedBeforeEnter, inputAfterEnter },
    turns: { first: firstTurn, second: secondTurn, all: final.turns },
    meter: { ...meter, afterReply },
    micMeter,
    devices,
    screenshot,
    pageErrors: recorded.errors,
    /** Every recorded change, page clock (ms): states shown, and livekit-client's speaking flags. */
    changes: recorded.changes,
    /** The page's `performance.now()` zero in epoch ms: its times against the worker's log. */
    timeOrigin: recorded.timeOrigin,
    fake,
  };
}
