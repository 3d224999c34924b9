import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Evaluate, HeadlessChromium, waitFor } from './cdp.js';
import { type RunningWebServer, closedPort, startWebServer } from './helpers.js';
import { requireForSuite } from '../helpers/requires.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = requireForSuite(
  'test/web/browser',
  existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found; install it with bash scripts/ensure-chromium.sh (npm test does)`,
);

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

interface Controls {
  agentState: string;
  agentLabel: string;
  level: string;
  levelTag: string;
  mic: { disabled: boolean; pressed: string | null; state: string; status: string };
  device: { disabled: boolean; count: string; options: string[] };
  chat: { inputDisabled: boolean; sendDisabled: boolean; tag: string };
  connect: boolean;
  disconnect: boolean;
  transcriptItems: number;
  unlabelled: string[];
}

/** The new controls as a test (or a later step against a real server) reads them. */
const READ_CONTROLS = `(() => {
  const $ = (id) => document.getElementById(id);
  const agent = $('agent-state'), meter = $('agent-level'), mic = $('mic'), device = $('mic-device');
  return {
    agentState: agent.dataset.agentState,
    agentLabel: agent.textContent,
    level: meter.dataset.level,
    levelTag: meter.tagName,
    mic: { disabled: mic.disabled, pressed: mic.getAttribute('aria-pressed'), state: $('mic-status').dataset.mic, status: $('mic-status').textContent },
    device: { disabled: device.disabled, count: device.dataset.count, options: [...device.options].map((o) => o.textContent) },
    chat: { inputDisabled: $('chat-input').disabled, sendDisabled: $('chat-send').disabled, tag: $('chat-input').tagName },
    connect: $('connect').disabled,
    disconnect: $('disconnect').disabled,
    transcriptItems: $('transcript').children.length,
    unlabelled: [...document.querySelectorAll('input, select, textarea, meter, button')]
      .filter((el) => el.labels ? el.labels.length === 0 && !el.textContent.trim() : false)
      .map((el) => el.id),
  };
})()`;

const pageReady = (evaluate: Evaluate) =>
  waitFor(async () => ((await evaluate('document.body?.dataset.page')) === 'ready' ? true : undefined), 'the page module to run');

const NOT_CONNECTED_CONTROLS = {
  agentState: 'disconnected',
  agentLabel: 'not connected',
  level: '0.000',
  levelTag: 'METER',
  mic: { disabled: true, pressed: 'false', state: 'disconnected', status: 'Microphone: not connected.' },
  device: { disabled: true, count: '0', options: ['Connect to choose a microphone'] },
  chat: { inputDisabled: true, sendDisabled: true, tag: 'TEXTAREA' },
  unlabelled: [],
};

describe.skipIf(!available)(
  'the page in headless Chromium',
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
      // after the failure, everything that needs a room is off again
      expect(await evaluate(READ_CONTROLS)).toMatchObject({ ...NOT_CONNECTED_CONTROLS, connect: false, disconnect: true });
    });

    it('loads with the agent, microphone and chat controls present and disabled before connecting', async () => {
      const evaluate = await browser.open(`${web.base}/?room=idle-test&identity=tester&name=Tester`);
      await pageReady(evaluate);

      expect(await evaluate(READ_STATE)).toEqual({ state: 'idle', status: 'Not connected.', error: '', errorHidden: true });
      expect(await evaluate(READ_CONTROLS)).toEqual({ ...NOT_CONNECTED_CONTROLS, connect: false, disconnect: true, transcriptItems: 0 });
      // the server names the room and the caller: the page has no field for either, only a display name
      expect(await evaluate(`[document.getElementById('room'), document.getElementById('identity'), document.getElementById('name').value]`)).toEqual([
        null,
        null,
        'Tester',
      ]);
      // live regions for what changes on its own
      expect(
        await evaluate(`['status', 'error', 'agent-state', 'mic-status', 'mic-error', 'transcript'].map((id) => {
          const el = document.getElementById(id);
          return [id, el.getAttribute('role'), el.getAttribute('aria-live')];
        })`),
      ).toEqual([
        ['status', 'status', 'polite'],
        ['error', 'alert', null],
        ['agent-state', 'status', 'polite'],
        ['mic-status', null, 'polite'],
        ['mic-error', 'alert', null],
        ['transcript', null, 'polite'],
      ]);
      expect(await evaluate(`typeof window.__firstword`)).toBe('undefined');
      expect(browser.exceptions).toEqual([]);
      // the page, its modules and livekit-client run under the server's Content-Security-Policy
      expect(browser.logs.filter((entry) => /content security policy/i.test(entry.text))).toEqual([]);
    });

    it('installs the test hook with ?debug=1', async () => {
      const evaluate = await browser.open(`${web.base}/?room=debug-test&identity=tester&debug=1`);
      await pageReady(evaluate);

      expect(await evaluate(`Object.keys(window.__firstword).sort()`)).toEqual(['room', 'state', 'stats']);
      expect(await evaluate(`window.__firstword.room === undefined`)).toBe(true);
      expect(await evaluate(`window.__firstword.stats()`)).toBeNull();
      expect(await evaluate(`window.__firstword.state()`)).toMatchObject({
        connection: 'idle',
        error: null,
        agent: { identity: null, state: 'disconnected', label: 'not connected' },
        mic: { state: 'disconnected', problem: null },
        level: 0,
        peak: 0,
        canPlaybackAudio: null,
        transcript: [],
        turns: [],
      });
    });

    it("moves the level meter with a track's sound (Web Audio in Chromium)", async () => {
      const page = await browser.openPage(`${web.base}/?room=meter-test&identity=tester&debug=1`);
      await pageReady(page.evaluate);
      // a real click: the page's first pointerdown lets audio start (autoplay policy)
      for (const type of ['mousePressed', 'mouseReleased']) {
        await page.send('Input.dispatchMouseEvent', { type, x: 5, y: 5, button: 'left', clickCount: 1 });
      }

      const measured = (await page.evaluate(`(async () => {
        const { createLevelMeter } = await import('/level-meter.js');
        const element = document.getElementById('agent-level');
        const audio = new AudioContext();
        const tone = audio.createOscillator();
        const gain = audio.createGain();
        gain.gain.value = 0.3;
        const out = audio.createMediaStreamDestination();
        tone.connect(gain).connect(out);
        tone.start();
        const meter = createLevelMeter(element);
        meter.attach(out.stream.getAudioTracks()[0]);
        const started = Date.now();
        while (Number(element.dataset.level) < 0.5 && Date.now() - started < 5000) await new Promise((r) => setTimeout(r, 50));
        // The analyser's window still holds the silence before the tone for a few frames.
        await new Promise((r) => setTimeout(r, 300));
        const loud = { ...element.dataset, context: meter.contextState };
        tone.stop();
        meter.detach();
        await audio.close();
        return { loud, after: { ...element.dataset } };
      })()`)) as { loud: Record<string, string>; after: Record<string, string> };

      expect(measured.loud.context).toBe('running');
      expect(measured.loud.active).toBe('true');
      // a 0.3-amplitude sine: RMS 0.21, -13.5 dBFS, 0.78 on the meter's -60..0 dB scale
      expect(Number(measured.loud.rms)).toBeCloseTo(0.3 * Math.SQRT1_2, 1);
      expect(Number(measured.loud.level)).toBeGreaterThan(0.5);
      expect(Number(measured.loud.frames)).toBeGreaterThan(0);
      expect(measured.after).toMatchObject({ active: 'false', level: '0.000' });
      expect(Number(measured.after.peak)).toBeGreaterThan(0.5);
    });

    it('renders transcript lines with data attributes a test can read', async () => {
      const evaluate = await browser.open(`${web.base}/?room=render-test&identity=tester`);
      await pageReady(evaluate);
      const items = await evaluate(`(async () => {
        const { createTranscript, createTranscriptView } = await import('/transcript.js');
        const model = createTranscript();
        const view = createTranscriptView(document.getElementById('transcript'));
        const push = (update) => { const entry = model.apply(update); if (entry) view.show(entry); };
        push({ id: 'A1', speaker: 'agent', text: 'Hello, ', mode: 'append', final: false });
        push({ id: 'U1', speaker: 'user', text: 'hi', mode: 'replace', final: false });
        push({ id: 'A1', speaker: 'agent', text: 'there.', mode: 'append', final: true });
        push({ id: 'chat-1', speaker: 'user', text: '안녕하세요', mode: 'replace', final: true, source: 'chat', delivery: 'sending' });
        view.show(model.setDelivery('chat-1', 'failed'));
        return [...document.querySelectorAll('#transcript li')].map((li) => ({
          className: li.className, text: li.textContent, ...li.dataset,
        }));
      })()`);
      expect(items).toEqual([
        { className: 'agent', text: 'Agent:Hello, there.', speaker: 'agent', segmentId: 'A1', final: 'true', source: 'speech' },
        { className: 'user interim', text: 'You:hi', speaker: 'user', segmentId: 'U1', final: 'false', source: 'speech' },
        {
          className: 'user',
          text: 'You:안녕하세요 (not sent)',
          speaker: 'user',
          segmentId: 'chat-1',
          final: 'true',
          source: 'chat',
          delivery: 'failed',
        },
      ]);
    });

    it('sends typed text with Enter, keeps Shift+Enter as a new line', async () => {
      const page = await browser.openPage(`${web.base}/?room=chat-test&identity=tester`);
      await pageReady(page.evaluate);
      // the page's own box is disabled until connected; bind the same code to a box of the test's
      await page.evaluate(`(async () => {
        const { bindChat, setChatEnabled } = await import('/chat.js');
        const form = document.createElement('form');
        const input = document.createElement('textarea');
        const send = document.createElement('button');
        form.append(input, send);
        document.body.append(form);
        window.sent = [];
        bindChat({ form, input, send }, (text) => window.sent.push(text));
        setChatEnabled({ input, send }, true);
        input.id = 'test-chat';
        input.focus();
      })()`);
      const key = async (modifiers: number) => {
        for (const type of ['keyDown', 'keyUp']) {
          await page.send('Input.dispatchKeyEvent', { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, modifiers, ...(type === 'keyDown' ? { text: '\r' } : {}) });
        }
      };
      await page.send('Input.insertText', { text: 'first line' });
      await key(8); // Shift
      await page.send('Input.insertText', { text: 'second line' });
      expect(await page.evaluate(`[window.sent, document.getElementById('test-chat').value]`)).toEqual([[], 'first line\nsecond line']);
      await key(0);
      expect(await page.evaluate(`[window.sent, document.getElementById('test-chat').value]`)).toEqual([['first line\nsecond line'], '']);
      await key(0); // nothing to send
      expect(await page.evaluate(`window.sent.length`)).toBe(1);
    });

    it('shows a missing microphone clearly, then devices and mute once one works', async () => {
      const page = await browser.openPage(`${web.base}/?room=mic-test&identity=tester`);
      await pageReady(page.evaluate);
      const read = `(() => {
        const $ = (id) => document.getElementById(id);
        return {
          state: $('mic-status').dataset.mic, status: $('mic-status').textContent,
          problem: $('mic-error').hidden ? null : $('mic-error').textContent,
          pressed: $('mic').getAttribute('aria-pressed'), disabled: $('mic').disabled,
          devices: [...$('mic-device').options].map((o) => o.textContent), selected: $('mic-device').value,
          deviceDisabled: $('mic-device').disabled,
        };
      })()`;
      // the page's own controller has no room; a second one gets a stand-in room
      await page.evaluate(`(async () => {
        const { createMicrophone } = await import('/devices.js');
        const $ = (id) => document.getElementById(id);
        const ui = { button: $('mic'), select: $('mic-device'), status: $('mic-status'), error: $('mic-error') };
        window.devices = [];
        window.failWith = 'NotFoundError';
        const room = {
          switched: [],
          localParticipant: {
            isMicrophoneEnabled: false,
            async setMicrophoneEnabled(on) {
              if (window.failWith) throw new DOMException('no device', window.failWith);
              this.isMicrophoneEnabled = on;
            },
          },
          getActiveDevice: () => 'default',
          async switchActiveDevice(kind, id) { room.switched.push([kind, id]); return true; },
        };
        window.room = room;
        window.mic = createMicrophone(ui, { listDevices: async () => window.devices, secureContext: true });
        window.mic.use(room);
        window.mic.setConnected(true);
        await window.mic.start();
      })()`);
      expect(await page.evaluate(read)).toEqual({
        state: 'unavailable',
        status: 'Microphone: unavailable.',
        problem: 'No microphone was found. Connect one, then press Mute to try again. You can still type to the agent below.',
        pressed: 'true',
        disabled: false,
        devices: ['No microphone available'],
        selected: '',
        deviceDisabled: true,
      });

      // a microphone is plugged in; pressing the (pressed) button starts it
      await page.evaluate(`window.failWith = null; window.devices = [
        { deviceId: 'default', label: 'Default - Headset', kind: 'audioinput' },
        { deviceId: 'usb', label: 'USB Microphone', kind: 'audioinput' },
      ]; document.getElementById('mic').click()`);
      const working = await waitFor(async () => {
        const state = (await page.evaluate(read)) as { state: string; devices: string[] };
        return state.state === 'on' && state.devices.length === 2 ? state : undefined;
      }, 'the microphone to start');
      expect(working).toMatchObject({ problem: null, pressed: 'false', selected: 'default', deviceDisabled: false });

      await page.evaluate(`document.getElementById('mic').click()`);
      await waitFor(async () => ((await page.evaluate(read)) as { state: string }).state === 'muted' || undefined, 'muted');
      expect(await page.evaluate(read)).toMatchObject({ pressed: 'true', status: 'Microphone: muted.' });

      await page.evaluate(`(() => { const s = document.getElementById('mic-device'); s.value = 'usb'; s.dispatchEvent(new Event('change')); })()`);
      await waitFor(async () => ((await page.evaluate(`window.room.switched.length`)) === 1 || undefined), 'the switch');
      expect(await page.evaluate(`window.room.switched`)).toEqual([['audioinput', 'usb']]);
    });

    it('says every agent is busy, as its own state, when /token answers 503 busy', async () => {
      web.rooms.busy = true;
      // earlier tests' rooms are gone: this browser's session cookie names none LiveKit still has
      web.rooms.live.clear();
      try {
        const evaluate = await browser.open(`${web.base}/?autoconnect=1`);
        let seen: unknown;
        const final = await waitFor(async () => {
          const page = (seen = await evaluate(READ_STATE)) as PageState | undefined;
          return page && page.state === 'busy' ? page : undefined;
        }, 'the page to report that every agent is busy', 15_000).catch((error: Error) => {
          throw new Error(`${error.message}; last seen ${JSON.stringify(seen)}`);
        });
        expect(final.status).toBe('All agents are busy.');
        expect(final.errorHidden).toBe(false);
        expect(final.error).toMatch(/Every agent is busy/);
        expect(await evaluate(`document.getElementById('connect').disabled`)).toBe(false);
      } finally {
        web.rooms.busy = false;
      }
    });
  },
);
