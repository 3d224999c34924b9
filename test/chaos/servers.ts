/**
 * The two protocol servers behind one chaos-friendly face: provider-neutral faults decided per
 * request by the test, knobs that survive a restart, and `restart()` that closes the server and
 * starts a fresh one on the same port (a provider deploy, as the client sees it).
 */
import { type CartesiaFault, type CartesiaServer, type CartesiaServerOptions, startCartesiaServer } from '../servers/cartesia-server.js';
import { type ResembleFault, type ResembleServer, type ResembleServerOptions, startResembleServer } from '../servers/resemble-server.js';
import { samplesForText, tagForText } from '../servers/audio-tag.js';

export type ProviderName = 'resemble' | 'cartesia';

/** A fault in provider-neutral terms; each server maps it onto its own fault kinds. */
export type ChaosFault =
  /** `graceful`: a close frame (Resemble 1011) instead of a TCP drop; Cartesia always drops. */
  | { kind: 'drop'; afterBytes: number; graceful?: boolean }
  | { kind: 'error'; status: number; afterBytes: number }
  | { kind: 'no-end' }
  | { kind: 'stall'; afterBytes: number; stallMs: number };

/** Decides a fault for one synthesis request, given the text exactly as the driver produced it. */
export type FaultHook = (text: string) => ChaosFault | undefined;

/** Pacing and framing knobs shared by both servers (Resemble bursts, Cartesia jitter). */
export interface ChaosKnobs {
  firstByteDelayMs: number;
  realTimeFactor: number;
  frameBytes: number;
  burst?: { framesPerBurst: number; gapMs: number };
  jitterMs: number;
  /** Cartesia only: chunks of a cancelled piece still sent. */
  lateChunksAfterCancel: number;
  /** Resemble only: stream a socket's queued requests concurrently, frames interleaved. */
  interleave: boolean;
}

export interface ChaosServer {
  readonly provider: ProviderName;
  readonly port: number;
  /** What the TTS constructor takes as `baseURL`. */
  readonly baseURL: string;
  readonly msPerChar: number;
  /** Upgrades accepted over every incarnation of the server. */
  readonly connectionsOpened: number;
  openConnections(): number;
  fault: FaultHook | undefined;
  setKnobs(patch: Partial<ChaosKnobs>): void;
  dropAllConnections(): void;
  /** Closes the server and starts a new one on the same port; in between, connects are refused. */
  restart(downMs?: number): Promise<void>;
  close(): Promise<void>;
  /** Forgets what the server recorded (long runs: the records would otherwise grow forever). */
  clearRecords(): void;
  /** The tag and length of the audio the server makes for a text the driver sent. */
  tagOf(text: string): number;
  samplesOf(text: string, sampleRate: number): number;
}

export const DEFAULT_KNOBS: ChaosKnobs = {
  firstByteDelayMs: 0,
  realTimeFactor: 0,
  frameBytes: 640,
  jitterMs: 0,
  lateChunksAfterCancel: 1,
  interleave: false,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Cartesia tags the transcript exactly as sent: the codec's trailing separator space included. */
function wireText(provider: ProviderName, text: string): string {
  return provider === 'cartesia' ? `${text} ` : text;
}

function resembleFault(f: ChaosFault): ResembleFault {
  switch (f.kind) {
    case 'drop':
      return f.graceful ? { kind: 'close-mid-request', afterBytes: f.afterBytes } : { kind: 'terminate-mid-request', afterBytes: f.afterBytes };
    case 'error':
      return { kind: 'error-frame', afterBytes: f.afterBytes, statusCode: f.status, errorName: f.status >= 500 ? 'ServerError' : 'BadRequest', message: 'Injected chaos fault' };
    case 'no-end':
      return { kind: 'no-audio-end', afterBytes: Infinity };
    case 'stall':
      return { kind: 'stall', afterBytes: f.afterBytes, stallMs: f.stallMs };
  }
}

function cartesiaFault(f: ChaosFault): CartesiaFault {
  switch (f.kind) {
    case 'drop':
      return { kind: 'terminate', afterBytes: f.afterBytes };
    case 'error':
      return {
        kind: 'error-event',
        afterBytes: f.afterBytes,
        statusCode: f.status,
        errorCode: f.status >= 500 ? 'internal_server_error' : 'invalid_request',
        message: 'Injected chaos fault',
      };
    case 'no-end':
      return { kind: 'no-done' };
    case 'stall':
      return { kind: 'stall', afterBytes: f.afterBytes, stallMs: f.stallMs };
  }
}

export async function startChaosServer(provider: ProviderName, opts: { msPerChar?: number; knobs?: Partial<ChaosKnobs> } = {}): Promise<ChaosServer> {
  const msPerChar = opts.msPerChar ?? 1;
  let knobs: ChaosKnobs = { ...DEFAULT_KNOBS, ...opts.knobs };
  let hook: FaultHook | undefined;
  let openedBefore = 0;

  const resembleOptions = (): Partial<ResembleServerOptions> => ({
    msPerChar,
    firstByteDelayMs: knobs.firstByteDelayMs,
    realTimeFactor: knobs.realTimeFactor,
    frameBytes: knobs.frameBytes,
    burst: knobs.burst,
    interleave: knobs.interleave,
    fault: (req) => {
      const f = hook?.(String(req.payload.data));
      return f && resembleFault(f);
    },
  });
  const cartesiaOptions = (): Partial<CartesiaServerOptions> => ({
    msPerChar,
    firstByteDelayMs: knobs.firstByteDelayMs,
    realTimeFactor: knobs.realTimeFactor,
    frameBytes: knobs.frameBytes,
    jitterMs: knobs.jitterMs,
    lateChunksAfterCancel: knobs.lateChunksAfterCancel,
    // Finished contexts linger for concurrency accounting; keep that short so fast turns never
    // hit the per-key limit by accident (a 429 is a fault we choose, not one we stumble into).
    contextExpiryMs: 50,
    fault: (ctx) => {
      const f = hook?.(ctx.transcript.replace(/ $/, ''));
      return f && cartesiaFault(f);
    },
  });

  const start = async (port: number): Promise<ResembleServer | CartesiaServer> =>
    provider === 'resemble'
      ? startResembleServer({ ...resembleOptions(), port })
      : startCartesiaServer({ ...cartesiaOptions(), port });

  let server = await start(0);
  const port = server.port;
  const baseURL = provider === 'resemble' ? (server as ResembleServer).url : (server as CartesiaServer).httpUrl;

  return {
    provider,
    port,
    baseURL,
    msPerChar,
    get connectionsOpened() {
      return openedBefore + server.connectionsOpened;
    },
    openConnections: () => server.openConnections(),
    get fault() {
      return hook;
    },
    set fault(h) {
      hook = h;
    },
    setKnobs(patch) {
      knobs = { ...knobs, ...patch };
      if (provider === 'resemble') (server as ResembleServer).setOptions(resembleOptions());
      else (server as CartesiaServer).setOptions(cartesiaOptions());
    },
    dropAllConnections: () => server.dropAllConnections(),
    async restart(downMs = 0) {
      openedBefore += server.connectionsOpened;
      await server.close();
      if (downMs > 0) await sleep(downMs);
      server = await start(port);
    },
    close: () => server.close(),
    clearRecords: () => {
      server.received.length = 0;
      if (provider === 'resemble') (server as ResembleServer).rejected.length = 0;
      else (server as CartesiaServer).httpRequests.length = 0;
    },
    tagOf: (text) => tagForText(wireText(provider, text)),
    samplesOf: (text, sampleRate) => samplesForText(wireText(provider, text), sampleRate, msPerChar),
  };
}
