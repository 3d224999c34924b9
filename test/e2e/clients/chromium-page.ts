/**
 * Opens the project's page (`npm run web`) in headless Chromium inside the namespace, lets it
 * join `--room` as `--identity` with the fake microphone (the page's `/token` answer is replaced
 * by a plain join token for that room: the page server names rooms itself, admits one caller to
 * each and wants a worker, and this test is about the network, with three participants and no
 * agent), and waits until WebRTC stats show
 * audio both ways: inbound `totalAudioEnergy` above `--min-energy` and outbound packets.
 * Then pauses and removes the page's <audio> elements to see whether inbound energy still
 * grows without playout. Prints `{"e2e":"chromium-page","ok":true,"inbound":{…},…}`.
 */
import { existsSync } from 'node:fs';
import { PipeChromium } from './chromium.js';
import { joinToken, need, parseArgs, runClient } from './common.js';

const args = parseArgs();
const timeoutMs = Number(args['timeout-ms'] ?? 45_000);
const minEnergy = Number(args['min-energy'] ?? 0.01);
const executable = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** web/app.js keeps its Room private; wrapping the constructor is how the test sees the peer connections. */
const CAPTURE_PCS = `(() => {
  const Native = window.RTCPeerConnection;
  window.__pcs = [];
  window.RTCPeerConnection = class extends Native {
    constructor(...a) { super(...a); window.__pcs.push(this); }
  };
})()`;

const READ_STATS = `(async () => {
  const out = { inbound: { packets: 0, energy: 0, samples: 0 }, outboundPackets: 0, candidates: [] };
  for (const pc of window.__pcs ?? []) {
    (await pc.getStats()).forEach((s) => {
      if (s.type === 'inbound-rtp' && s.kind === 'audio') {
        out.inbound.packets += s.packetsReceived ?? 0;
        out.inbound.energy += s.totalAudioEnergy ?? 0;
        out.inbound.samples += s.totalSamplesReceived ?? 0;
      } else if (s.type === 'outbound-rtp' && s.kind === 'audio') out.outboundPackets += s.packetsSent ?? 0;
      else if (s.type === 'local-candidate' || s.type === 'remote-candidate') {
        out.candidates.push({ address: s.address, port: s.port, protocol: s.protocol, type: s.candidateType, local: s.type === 'local-candidate' });
      }
    });
  }
  const status = document.getElementById('status');
  out.state = status?.dataset.state;
  out.status = status?.textContent;
  out.audioElements = [...document.querySelectorAll('audio')].map((a) => ({ paused: a.paused }));
  return out;
})()`;

interface PageStats {
  inbound: { packets: number; energy: number; samples: number };
  outboundPackets: number;
  candidates: { address: string; port: number; protocol: string; type: string; local: boolean }[];
  state?: string;
  status?: string;
  audioElements: { paused: boolean }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let browser: PipeChromium | undefined;

runClient(
  'chromium-page',
  timeoutMs,
  async () => {
    if (!existsSync(executable)) throw new Error(`${executable} not found (scripts/ensure-chromium.sh installs it)`);
    const page = new URL(need('STACK_WEB_URL'));
    page.search = new URLSearchParams({ autoconnect: '1' }).toString();
    const grant = { token: await joinToken(args.room ?? 'e2e-smoke', args.identity ?? 'browser'), url: need('LIVEKIT_URL'), agentName: null };
    const tokenAnswer = `(() => {
      const nativeFetch = window.fetch.bind(window);
      window.fetch = async (input, init) => String(typeof input === 'string' ? input : input.url).endsWith('/token')
        ? new Response(${JSON.stringify(JSON.stringify(grant))}, { status: 200, headers: { 'content-type': 'application/json' } })
        : nativeFetch(input, init);
    })()`;
    browser = PipeChromium.launch(executable);
    const evaluate = await browser.open(page.href, [CAPTURE_PCS, tokenAnswer]);
    const read = async () => (await evaluate(READ_STATS).catch(() => undefined)) as PageStats | undefined;

    let stats: PageStats | undefined;
    const started = Date.now();
    for (;;) {
      stats = await read();
      if (stats?.state === 'error') throw new Error(`page error: ${stats.status}`);
      if (stats && stats.state === 'connected' && stats.inbound.energy > minEnergy && stats.outboundPackets > 50) break;
      await sleep(250);
    }
    const audioMs = Date.now() - started;

    // Does inbound energy need playout? Each state is measured over its second second, after
    // the change has settled: element playing, paused, then removed.
    const growth = async (action: string) => {
      await evaluate(action);
      await sleep(1000);
      const before = (await read())!.inbound;
      await sleep(1000);
      const after = (await read())!.inbound;
      return { energy: after.energy - before.energy, samples: after.samples - before.samples, packets: after.packets - before.packets };
    };
    const playing = await growth('0');
    const paused = await growth(`document.querySelectorAll('audio').forEach((a) => a.pause())`);
    const removed = await growth(`document.querySelectorAll('audio').forEach((a) => { a.srcObject = null; a.remove(); })`);
    return { audioMs, state: stats.state, inbound: stats.inbound, outboundPackets: stats.outboundPackets, audioElements: stats.audioElements, candidates: stats.candidates, energyGrowth: { playing, paused, removed } };
  },
  async () => browser?.close(),
);
