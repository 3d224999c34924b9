/**
 * `npm run soak`: the worker held at its call cap on the real stack for a long run, with one fault
 * of each kind injected along the way; reports turns asked, answered and lost, inside the faults
 * and outside them (scripts/soak/report.ts). Exits non-zero when a turn is lost, or a call not
 * served, outside a fault.
 *
 *   npm run soak -- [--minutes 20] [--calls 3] [--turn-every 20] [--call-minutes 4]
 *                   [--faults tts,job,redis,livekit,restart] [--nodes 1] [--json FILE]
 *
 * `--calls` is both the worker's AGENT_MAX_CALLS and how many callers keep a call going at once:
 * each caller (scripts/faults/caller.ts, real speech through the SFU) takes a turn every
 * `--turn-every` seconds and hangs up after `--call-minutes`, and a new call takes its place. The
 * faults are spread evenly over the run. `--nodes 2` runs a two-node cluster and adds `node` (the
 * last node killed for good) to the faults. For the TTS plugin alone (no LiveKit) see `soak:tts`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareClips } from '../../bench/room/speech.js';
import { CONVERSATION, type CallerHandle, startCaller } from '../faults/drill.js';
import type { FaultCallerPlan } from '../faults/caller.js';
import { DEPARTURE_TIMEOUT_S } from '../stack/livekit-config.js';
import { down, up } from '../stack/stack.js';
import { type FaultContext, type LiveCall, SOAK_FAULTS, type SoakFaultKind, injectFault } from './faults.js';
import { type SoakCall, type SoakFault, type SoakTurn, formatSoakReport, soakReport } from './report.js';

const AGENT = 'firstword-soak';
const BETWEEN_CALLS_MS = 5000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`  ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SoakOptions {
  minutes: number;
  calls: number;
  turnEveryMs: number;
  callMs: number;
  nodes: number;
  faults: SoakFaultKind[];
  json?: string;
}

function options(): SoakOptions {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '20' },
      calls: { type: 'string', default: '3' },
      'turn-every': { type: 'string', default: '20' },
      'call-minutes': { type: 'string', default: '4' },
      nodes: { type: 'string', default: '1' },
      faults: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const number = (name: string, raw: string, min: number, max: number) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name} must be a number from ${min} to ${max} (got ${raw})`);
    return n;
  };
  const nodes = number('nodes', values.nodes, 1, 2);
  const faults = (values.faults ?? SOAK_FAULTS.filter((f) => f !== 'node' || nodes > 1).join(',')).split(',').filter(Boolean);
  const unknown = faults.filter((f) => !(SOAK_FAULTS as readonly string[]).includes(f));
  if (unknown.length > 0) throw new Error(`--faults takes ${SOAK_FAULTS.join(',')} (got ${unknown.join(',')})`);
  if (faults.includes('node') && nodes < 2) throw new Error('the node fault needs --nodes 2');
  return {
    minutes: number('minutes', values.minutes, 1, 240),
    calls: Math.round(number('calls', values.calls, 1, 16)),
    turnEveryMs: number('turn-every', values['turn-every'], 5, 600) * 1000,
    callMs: number('call-minutes', values['call-minutes'], 0.5, 60) * 60_000,
    nodes,
    faults: faults as SoakFaultKind[],
    json: values.json,
  };
}

async function main(): Promise<number> {
  const opts = options();
  const started = Date.now();
  const endAt = started + opts.minutes * 60_000;
  log(`firstword call soak: ${opts.calls} calls at the cap for ${opts.minutes} min, a turn every ${opts.turnEveryMs / 1000} s, faults ${opts.faults.join(', ')}; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
  const work = resolve('out', 'soak');
  mkdirSync(work, { recursive: true });
  const clip = (await prepareClips([{ key: 'speech', text: CONVERSATION.user, language: 'en' }], join(work, 'speech'))).get('speech')!;
  const scriptFile = join(work, 'openai-script.json');
  writeFileSync(scriptFile, CONVERSATION.script());
  const workerEnv = { AGENT_PROCESS_START_TIMEOUT_S: '60', AGENT_MAX_CALLS: String(opts.calls), TTS_FALLBACK: 'local' };
  const state = await up({
    owner: 'harness',
    tts: 'cartesia',
    agentName: AGENT,
    nodes: opts.nodes,
    workers: 1,
    // A caller rejoining a restarted server finds its room as production would keep it.
    departureTimeoutS: DEPARTURE_TIMEOUT_S.livekitDefault,
    web: false,
    workerEnv,
    fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: 60, firstByteDelayMs: 120 })] },
    progress: (line) => note(`stack: ${line}`),
  });
  const worker = state.processes.find((p) => p.name === 'worker')!;
  const turns: SoakTurn[] = [];
  const calls: SoakCall[] = [];
  const faults: SoakFault[] = [];
  const live = new Map<string, LiveCall>();
  const failures: string[] = [];
  try {
    const ctx: FaultContext = {
      state,
      agentName: AGENT,
      maxCalls: opts.calls,
      worker: { name: worker.name, pid: worker.pid, logFile: worker.logFile },
      liveCalls: () => [...live.values()],
      note,
    };
    let placed = 0;
    /** One call of a slot, from placing it to its caller's exit. */
    const runCall = async (slot: number): Promise<void> => {
      const name = `s${slot}-c${placed++}`;
      const room = `soak-${name}-${Date.now().toString(36)}`;
      const callMs = Math.min(opts.callMs, endAt - Date.now());
      const plan: Omit<FaultCallerPlan, 'stopFile'> = {
        room,
        agentName: AGENT,
        joinDeadlineMs: 60_000,
        clip: { file: clip.file, firstVoiced: clip.firstVoiced, lastVoiced: clip.lastVoiced },
        transcript: CONVERSATION.user,
        turnFirst: true,
        turnAtEnd: false,
        holdMaxMs: Math.max(0, callMs),
        turnEveryMs: opts.turnEveryMs,
      };
      const call: SoakCall = { name, placedAt: Date.now(), endedAt: 0, events: [] };
      calls.push(call);
      const caller: CallerHandle = startCaller(state, work, name, plan, () => {});
      const seen = new Set<unknown>();
      const take = () => {
        for (const e of caller.events) {
          if (seen.has(e)) continue;
          seen.add(e);
          const at = Number(e.at);
          if (e.bench === 'listening') {
            call.servedAt = at;
            live.set(name, { name, room, agent: String(e.agent ?? '') });
          } else if (e.bench === 'turn') {
            turns.push({ call: name, startedAt: Number(e.startedAt ?? at), ok: Boolean(e.ok), error: (e.error as string | null) ?? null, firstSoundMs: (e.firstSoundMs as number | null) ?? null });
          } else if (e.bench === 'event') call.events.push({ at, what: String(e.what) });
          else if (e.bench === 'error') call.error = String(e.error);
        }
      };
      const poll = setInterval(take, 250);
      const code = await caller.exited;
      clearInterval(poll);
      take();
      live.delete(name);
      call.endedAt = Date.now();
      if (code !== 0 && !call.error) call.error = `caller exited ${code}`;
    };
    const slot = async (index: number) => {
      // Staggered, so the calls' turns do not all fall at once.
      await sleep((index * opts.turnEveryMs) / opts.calls);
      // A hung-up call's job takes a moment to end; until it has, the cap still counts it.
      for (let first = true; Date.now() < endAt - opts.turnEveryMs; first = false) {
        if (!first) await sleep(BETWEEN_CALLS_MS);
        await runCall(index);
      }
    };
    const slots = Array.from({ length: opts.calls }, (_, i) => slot(i));
    const faultsDone = (async () => {
      for (const [i, kind] of opts.faults.entries()) {
        await sleep(started + ((i + 1) * (endAt - started)) / (opts.faults.length + 1) - Date.now());
        note(`--- fault ${kind} at +${((Date.now() - started) / 1000).toFixed(0)} s with ${live.size} live calls`);
        try {
          const fault = await injectFault(ctx, kind);
          faults.push(fault);
          note(`${kind}: ${fault.action}; back after ${fault.endedAt - fault.startedAt} ms; ${JSON.stringify(fault.figures)}`);
        } catch (error) {
          failures.push(`${kind}: ${(error as Error).message}`);
          note(`${kind} could not be injected: ${(error as Error).message}`);
        }
      }
    })();
    await Promise.all([...slots, faultsDone]);
  } finally {
    await down(state, note);
  }
  const report = soakReport(turns, calls, faults);
  log('');
  for (const line of formatSoakReport(report, started)) log(line);
  for (const f of failures) log(`FAULT NOT INJECTED: ${f}`);
  log(`\n${((Date.now() - started) / 60_000).toFixed(1)} min; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}; logs ${state.runDir}`);
  if (opts.json) {
    mkdirSync(dirname(resolve(opts.json)), { recursive: true });
    writeFileSync(opts.json, `${JSON.stringify({ date: new Date().toISOString(), options: opts, report, turns, calls, logs: state.runDir }, (_k, v: unknown) => (v === Number.POSITIVE_INFINITY ? 'until the call ended' : v), 2)}\n`);
    log(`json: ${opts.json}`);
  }
  const unservedOutside = report.calls.notServed.filter((c) => c.insideFault === null).length;
  return report.outside.lost === 0 && unservedOutside === 0 && failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
