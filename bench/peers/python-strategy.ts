/**
 * A Python peer as a bench strategy: one driver process per peer (bench/peers/python-driver.ts),
 * shared by every lane, each lane its own session (its own TTS instance, as one call has).
 */
import type { Trace } from '../llm.js';
import type { LaneSetup, SpeakOptions, Strategy, TurnOutcome } from '../strategies.js';
import type { PythonPeerName } from './catalog.js';
import { type DriverReady, PythonDriver } from './python-driver.js';

const drivers = new Map<PythonPeerName, Promise<{ driver: PythonDriver; ready: DriverReady }>>();
let nextSession = 1;

/** The peer's driver process, started on first use. */
export function pythonDriver(peer: PythonPeerName): Promise<{ driver: PythonDriver; ready: DriverReady }> {
  let started = drivers.get(peer);
  if (!started) {
    started = PythonDriver.start(peer);
    // A driver that failed to start is tried again by the next caller (and reported by each).
    started.catch(() => drivers.delete(peer));
    drivers.set(peer, started);
  }
  return started;
}

/** Ends every peer's driver process (their sessions are closed first by the lanes). */
export async function stopPythonDrivers(): Promise<void> {
  const all = [...drivers.values()];
  drivers.clear();
  await Promise.all(all.map((p) => p.then(({ driver }) => driver.stop(), () => undefined)));
}

export class PythonPeerStrategy implements Strategy {
  readonly name: PythonPeerName;
  readonly #setup: LaneSetup;
  readonly #session = `s${nextSession++}`;
  #driver: PythonDriver | undefined;

  constructor(name: PythonPeerName, setup: LaneSetup) {
    this.name = name;
    this.#setup = setup;
  }

  async prewarm(): Promise<void> {
    const { driver } = await pythonDriver(this.name);
    const s = this.#setup;
    await driver.open(this.#session, { provider: s.provider, url: s.baseURL, apiKey: s.apiKey, language: s.language, sampleRate: s.sampleRate });
    this.#driver = driver;
  }

  async speak(trace: Trace, _t0: number, options: SpeakOptions = {}): Promise<TurnOutcome> {
    if (!this.#driver) throw new Error(`${this.name}: speak() before prewarm()`);
    // The driver replays the trace on its own clock from when it reads the turn (python-driver.ts).
    const frames = await this.#driver.turn(this.#session, trace, {
      timeoutMs: this.#setup.turnTimeoutMs,
      ...(options.bargeInAfterFrames ? { bargeInAfterFrames: options.bargeInAfterFrames } : {}),
    });
    return { frames };
  }

  async close(): Promise<void> {
    await this.#driver?.close(this.#session);
  }
}
