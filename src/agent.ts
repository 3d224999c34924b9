/**
 * The LiveKit worker: wiring only.
 *
 * `npm start` / `npm run dev` run this file. The main process validates the configuration and
 * registers with LiveKit; each job runs in a pre-forked process that imports this same file for
 * `prewarm` (before any call is assigned) and `entry` (per call).
 */
import {
  type JobContext,
  type JobProcess,
  ServerOptions,
  type VAD,
  defineAgent,
  log,
} from '@livekit/agents';
import * as openai from '@livekit/agents-plugin-openai';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AckLibrary, type AckLibraryOptions, attachAcknowledgement, prepareAcknowledgements } from './ack/index.js';
import { diskAckStore } from './ack/audio-store.js';
import { attachEarlyAck } from './ack/early.js';
import { EARLY_ACK_PHRASES } from './ack/phrases.js';
import { CALLER_FRAME_MS } from './audio/caller-frames.js';
import { createAckRoomOutput } from './audio/room-output.js';
import { type AppConfig, CALL_CPU_CORES, ConfigError, loadConfig, loadEnvFile, redactedConfig, shareAckAudioDir, shareCompileCacheDir, shareJobProcessSettings, shareLeaseSocket } from './config/index.js';
import { protectBargeIn } from './audio/barge-in-output.js';
import { attachJobTurnBudget, startWorkerMetrics } from './latency/worker.js';
import { createCallCap } from './lifecycle/call-cap.js';
import { watchLoadReports } from './lifecycle/load-reports.js';
import { flushCompileCache } from './lifecycle/compile-cache.js';
import { shareWorkerDir } from './lifecycle/worker-dir.js';
import { preloadFetch } from './lifecycle/preload.js';
import { hostCpu } from './lifecycle/host-cpu.js';
import { createWorkerLoad } from './lifecycle/worker-load.js';
import { runAgentApp, runWorkerSettings } from './lifecycle/index.js';
import {
  chatContextOf,
  greetResumedCall,
  handOverIfRoomLost,
  keepHistory,
  recoveryApiOf,
  readDispatchMetadata,
  resumeGreeting,
  startJobRecovery,
} from './recovery/index.js';
import { keepOneAgentPerCall, oneAgentRequests } from './rooms/index.js';
import { createAssistant, createSession } from './session.js';
import { describeCaller, greetSipCaller, greetingFor } from './sip/index.js';
import { type HeldGreeting, holdGreeting, isCallRoom } from './sip/greeting-audio.js';
import { CallStartup } from './sip/startup.js';
import { attachDtmfTurns } from './sip/dtmf-turns.js';
import { guardLogOutput } from './log-output/guard.js';
import { loadSileroVad } from './stt/silero-vad.js';
import { EARLY_ACK_SILENCE_BOUND_MS, PreflightSTT, answerRevisions, createSpeechToText, earlyFinalTiming, isLiveTranscriptionModel, shareVad, wordsDueAfterEndMs } from './stt/index.js';
import { voiceForCall } from './tts/call-voice.js';
import { type CreatedTTS, createTTS } from './tts/factory.js';
import { startLeaseService } from '@firstword/agents-plugin-tts/budget';
import { earlyAckJudge, turnTaking } from './turn/detection.js';
import { registerSmartTurnRunner } from './turn/smart-turn-executor.js';

export interface ProcessData {
  vad?: VAD;
  /** The job's TTS, created (and its socket opened) while the process waited for a call. */
  voice?: Promise<CreatedTTS>;
  /** Acknowledgements synthesized with that TTS (`ACK_MODE` other than `off`). */
  acks?: Promise<AckLibrary>;
}

/**
 * Creates the TTS and opens its connection. The framework never prewarms a session's TTS itself,
 * so without this the first reply of every call would pay the provider's handshake.
 */
export async function prepareVoice(config: AppConfig): Promise<CreatedTTS> {
  const voice = await createTTS(config);
  await voice.prewarm();
  return voice;
}

/** Silero with the turn's silence, its graph from the job processes' shared directory. */
const loadVad = (config: AppConfig) => loadSileroVad({ minSilenceDuration: config.turn.silenceMs, cacheDir: config.worker.compileCacheDir });

export async function prewarm(proc: JobProcess<ProcessData>): Promise<void> {
  // Before any call: the framework logs SIP callers' identities (their numbers) unmasked, and an
  // overloaded VAD warns once per audio window.
  guardLogOutput(process.stdout);
  preloadFetch();
  const config = loadConfig(process.env, { mode: 'worker' });
  proc.userData.vad = await loadVad(config);
  flushCompileCache();

  const voice = prepareVoice(config);
  // Not awaited: a slow provider must not hold up the process's start. A failure here is
  // reported by the entry that awaits it, not as an unhandled rejection.
  voice.catch(() => {});
  proc.userData.voice = voice;
  if (config.ack.mode !== 'off') {
    const acks = voice.then((created) => prepareAcknowledgements(created.tts, ackOptions(config, config.tts.provider)));
    acks.then(
      (library) => log().info({ acks: library.size, fromStore: library.fromStore, startMs: Math.round(process.uptime() * 1000) }, 'acknowledgements ready'),
      () => {},
    );
    proc.userData.acks = acks;
  }
  // How long this process took from fork to ready (the worker allows AGENT_PROCESS_START_TIMEOUT_S).
  log().info({ startMs: Math.round(process.uptime() * 1000) }, 'job process ready');
}

export async function entry(ctx: JobContext<ProcessData>): Promise<void> {
  const logger = log().child({ job: ctx.job.id });
  const config = loadConfig(process.env, { mode: 'worker' });
  logger.debug({ config: redactedConfig(config) }, 'job starting');

  // A dispatch that resumes a call whose job process died (src/recovery) wraps the first one's metadata.
  const dispatch = readDispatchMetadata(ctx.job.metadata);
  const startup = new CallStartup(ctx.job.room?.creationTimeMs);
  // The provider is asked again now; unreachable, the call speaks with TTS_FALLBACK (one log line).
  const pendingVoice = voiceForCall(config, ctx.proc.userData.voice, logger, { create: createTTS });
  ctx.proc.userData.voice = undefined;
  // A room the dispatch rule made is a phone call: the greeting goes to the warm TTS socket now,
  // while the room is joined and the session started, so its audio is on hand at pick-up.
  // A resumed call's apology is held the same way, whatever the room.
  const apology = resumeGreeting(dispatch, config.sip.call.language);
  const firstWords = apology?.text ?? (isCallRoom(ctx.job.room?.name, config.sip.setup.roomPrefix) ? greetingFor(config.sip.call.language, config.sip.call.greeting) : undefined);
  let held: HeldGreeting | undefined;
  if (firstWords !== undefined) {
    void pendingVoice.then(({ voice }) => {
      startup.mark('greetingAsked');
      held = holdGreeting(voice.tts, firstWords);
    }, () => {});
  }
  ctx.addShutdownCallback(async () => held?.cancel());

  let callerParticipant: Awaited<ReturnType<typeof ctx.waitForParticipant>>;
  try {
    await ctx.connect();
    startup.mark('connected');
    keepOneAgentPerCall(ctx, logger);
    // SIP callers (identity and number masked in logs) get telephony audio and an instant greeting.
    // The page server's dispatch names its caller: the agent waits for that identity and listens to
    // no one else (SIP and token-less dispatches name nobody: the first participant).
    callerParticipant = await ctx.waitForParticipant(dispatchedCaller(dispatch.original));
    startup.mark('participant');
  } catch (error) {
    // A caller who hangs up while the job is still starting (a phone rings on until the agent's
    // track is up) closes the room under connect or the wait: a normal end, not an error.
    const leftEarly = (error as Error).name === 'AbortError' || /disconnected while waiting for participant/i.test((error as Error).message);
    if (ctx.room.isConnected || !leftEarly) throw error;
    logger.info({}, 'the caller left before the call started');
    void pendingVoice.then(({ voice }) => voice.close(), () => {});
    return;
  }
  const caller = describeCaller(callerParticipant, { sip: config.sip.call });
  logger.info(caller.logFields, 'caller joined');

  // One Silero inference per call: the STT commits at the session's own end of speech.
  const vad = shareVad(ctx.proc.userData.vad ?? (await loadVad(config)));
  const { voice, fallback } = await pendingVoice;
  ctx.addShutdownCallback(() => voice.close());

  const turn = turnTaking(config.turn, { inferenceExecutor: ctx.inferenceExecutor, speech: vad.speech });
  const ackJudge = earlyAckJudge(turn.detection);
  // The same base URL for both: the plugin's realtime STT does not read OPENAI_BASE_URL itself.
  const recognizer = createSpeechToText({
    apiKey: config.openai.apiKey,
    baseURL: config.openai.baseURL,
    model: config.openai.sttModel,
    vad: vad.stt,
    ...(config.turn.earlyFinal ? { earlyFinal: earlyFinalTiming(config.turn) } : {}),
  });
  const session = createSession(
    {
      vad: vad.session,
      stt: recognizer,
      llm: new openai.LLM({ apiKey: config.openai.apiKey, baseURL: config.openai.baseURL, model: config.openai.llmModel }),
      tts: voice.tts,
    },
    {
      bargeInMinSpeechMs: config.bargeIn.minSpeechMs,
      // A phone line has no browser echo canceller to wait for (see docs/sip.md).
      ...(caller.channel === 'sip' ? { aecWarmupMs: 0 } : {}),
      turn,
    },
  );
  const agent = createAssistant(dispatch.resume ? chatContextOf(dispatch.resume.history) : undefined);
  // One log line per turn (and METRICS_PORT pushes); the ack joins once its audio is ready, never
  // holding up the call's start.
  const turnBudget = attachJobTurnBudget(session, { agent, tts: voice.tts, config, logger, room: { room: ctx.room, callerFrames: vad.frames } });
  ctx.addShutdownCallback(() => turnBudget.close());
  // Acks prepared with the provider's voice would not match the fallback's.
  const voiceName = fallback ? (config.tts.fallback ?? 'local') : config.tts.provider;
  const prepared = fallback ? undefined : ctx.proc.userData.acks;
  const acks = config.ack.mode === 'off' ? undefined : (prepared ?? prepareAcknowledgements(voice.tts, ackOptions(config, voiceName)));
  ctx.proc.userData.acks = undefined;
  const ackMode = config.ack.mode;
  if (acks && (ackMode === 'always' || ackMode === 'slow')) {
    void acks.then(
      (library) => attachAcknowledgement(session, { agent, library, mode: ackMode, slowMs: config.ack.slowMs }),
      (error: Error) => logger.warn({ error: error.message }, 'acknowledgements unavailable'),
    );
  }
  // The early ack's output is the agent's track from the start (never swapped mid-greeting), under
  // the framework's transcript synchronizer (src/audio/room-output.ts).
  const ackRoomOutput =
    acks && ackMode === 'early' ? createAckRoomOutput(ctx.room, { sampleRate: caller.telephony?.startOptions.outputOptions.audioSampleRate }) : undefined;
  if (ackRoomOutput) {
    session.output.audio = ackRoomOutput.output;
    ctx.addShutdownCallback(() => ackRoomOutput.close());
  }
  const startOptions = caller.telephony?.startOptions;
  await session.start({
    agent,
    room: ctx.room,
    ...startOptions,
    inputOptions: { audioFrameSizeMs: CALLER_FRAME_MS, ...startOptions?.inputOptions, participantIdentity: callerParticipant.identity },
    ...(ackRoomOutput ? { outputOptions: { ...startOptions?.outputOptions, audioEnabled: false } } : {}),
  });
  startup.mark('sessionStarted');
  if (recognizer instanceof PreflightSTT) {
    const revisions = answerRevisions(session, recognizer, logger);
    ctx.addShutdownCallback(async () => revisions.close());
  }
  protectBargeIn(session, logger);
  if (acks && ackRoomOutput) {
    void acks.then(
      (library) =>
        attachEarlyAck(session, {
          agent,
          library,
          output: ackRoomOutput.output,
          predict: ackJudge.predict,
          // Only a live model's words arrive before the end of speech; without any, silence decides.
          ...(ackJudge.silenceMayDecide && isLiveTranscriptionModel(config.openai.sttModel) ? { silenceBoundMs: EARLY_ACK_SILENCE_BOUND_MS } : {}),
          // A live model's words trail the voice: "finished" only counts once they cover it.
          ...(isLiveTranscriptionModel(config.openai.sttModel) ? { wordsDueMs: wordsDueAfterEndMs(config.turn) } : {}),
        }),
      (error: Error) => logger.warn({ error: error.message }, 'acknowledgements unavailable'),
    );
  }
  const heldForCaller = held && held.text === (apology ? apology.text : caller.channel === 'sip' ? caller.greeting : undefined) ? held : undefined;
  if (!heldForCaller) held?.cancel();
  const history = keepHistory(session, ctx.room.localParticipant, dispatch.resume?.history ?? [], logger);
  ctx.addShutdownCallback(async () => history.stop());
  // A room connection lost for good (not the caller leaving): the call goes to a new agent.
  handOverIfRoomLost(ctx, recoveryApiOf(config), history.turns, logger);
  // A resumed call gets an apology in the caller's language instead of a welcome.
  const resumed = greetResumedCall(session, dispatch, apology, logger, heldForCaller?.audio);
  if (!resumed && greetSipCaller(session, caller, heldForCaller?.audio)) {
    startup.whenSpeaking(session, heldForCaller, (fields) => logger.info(fields, 'call start-up'));
  }
  if (caller.channel === 'sip') {
    // Keys the caller presses become user turns; the log gets how many, never which.
    const stopDtmf = attachDtmfTurns(ctx.room, session, { callerIdentity: callerParticipant.identity, logger });
    ctx.addShutdownCallback(async () => stopDtmf());
  }
  logger.info({ provider: fallback ? config.tts.fallback : config.tts.provider, ...(fallback ? { fallback: true } : {}) }, 'session started');
}

/** The caller named in the dispatch's metadata (`{"caller": identity}`, src/web/rooms.ts), if any. */
export function dispatchedCaller(metadata: string | undefined): string | undefined {
  if (!metadata) return undefined;
  try {
    const caller = (JSON.parse(metadata) as { caller?: unknown }).caller;
    return typeof caller === 'string' && caller.length > 0 ? caller : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An early ack is a backchannel ("네." / "Okay."): it plays before the reply and delays it by its
 * length. `voice` names the configured provider that speaks them, for the worker's shared audio.
 */
function ackOptions(config: AppConfig, voice: string): Partial<AckLibraryOptions> {
  const shared = config.ack.sharedDir === undefined ? undefined : { store: diskAckStore(config.ack.sharedDir), voice };
  return { phrases: config.ack.mode === 'early' ? EARLY_ACK_PHRASES : {}, ...(shared ? { shared } : {}) };
}

export default defineAgent<ProcessData>({ prewarm, entry });

const WORKER_COMMANDS = new Set(['start', 'dev', 'connect']);
/** Two of the framework's 2.5 s load reports: the dead job has left the count by then. */
const RESUME_WAIT_FOR_ROOM_MS = 6000;

/**
 * Validates the configuration before handing over to the LiveKit CLI, so that a missing variable
 * is one readable message instead of a stack trace from deep inside a plugin.
 */
export function runWorkerCli(argv: string[] = process.argv): void {
  guardLogOutput(process.stdout);
  loadEnvFile();
  if (!WORKER_COMMANDS.has(argv[2] ?? '')) {
    // Job subprocesses and the framework's other commands: the framework parses its own arguments.
    runAgentApp(new ServerOptions({ agent: fileURLToPath(import.meta.url) }), argv);
    return;
  }
  let config: AppConfig;
  try {
    config = loadConfig(process.env, { mode: 'worker' });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  // TURN_DETECTOR=combined: one Smart Turn per worker, in the framework's inference process.
  registerSmartTurnRunner(config.turn.detector);
  shareJobProcessSettings(config);
  // Every call's job process would otherwise synthesize the same phrases, and compile the same
  // code and VAD graph, again.
  if (config.ack.mode !== 'off') shareWorkerDir('firstword-acks-', shareAckAudioDir, 'acknowledgements will be synthesized once per call');
  if (config.worker.compileCacheDir === undefined) shareWorkerDir('firstword-compile-cache-', shareCompileCacheDir, 'job processes will each compile their code');
  const metricsPort = config.metrics.port;
  if (metricsPort !== undefined) {
    // A metrics port that cannot be had is a configuration error like any other: say so and stop.
    startWorkerMetrics(config).catch((error: Error) => {
      process.stderr.write(`METRICS_PORT ${metricsPort} cannot be used: ${error.message}\n`);
      process.exit(1);
    });
  }
  const { httpPort, maxCalls, maxCallsFrom, cpuCores, cpuBudget, processStartTimeoutMs } = config.worker;
  // A job beyond the cap is refused even inside one load report's interval; the load reported is
  // the larger of the cap's share and the CPU budget's, full (no new jobs) at 1.
  const cap = createCallCap({ maxCalls, onRefuse: (fields) => log().info(fields, 'at AGENT_MAX_CALLS: refusing a new call') });
  const load = createWorkerLoad({ cap, readCpu: hostCpu().read, cpuBudget });
  let capacitySaid = false;
  const loadReports = watchLoadReports((server: Parameters<typeof load.loadFunc>[0]) => {
    // Said at the first load report: the framework sets its logger up later than this code runs.
    if (!capacitySaid) {
      capacitySaid = true;
      log().info({ maxCalls, maxCallsFrom, cpuCores, callCpuCores: CALL_CPU_CORES, cpuBudget: cpuBudget ?? 'off' }, 'worker capacity');
    }
    return load.loadFunc(server);
  }, 1);
  // A job process that dies during a call: its agent is taken out and a new one resumes the call,
  // once LiveKit knows this worker has room for it.
  startJobRecovery(config, { readyToServe: () => loadReports.available(RESUME_WAIT_FOR_ROOM_MS), release: (jobId) => cap.release(jobId) });
  // One request handler: a second agent for a room this worker serves is declined, then the cap.
  const requests = oneAgentRequests(cap.requestFunc, log);
  const serverOptions = new ServerOptions({
    agent: fileURLToPath(import.meta.url),
    agentName: config.agentName,
    ...(httpPort !== undefined ? { port: httpPort } : {}),
    initializeProcessTimeout: processStartTimeoutMs,
    requestFunc: requests.requestFunc,
    loadFunc: loadReports.loadFunc,
    loadThreshold: 1,
  });
  // One connection budget for every job process, started before the framework forks any: they
  // inherit its path through the environment. `start` gets the graceful runner (PM2 ready signal,
  // drain then exit 0); the rest is cli.runApp.
  startLeaseService({ limit: config.tts.connections.maxPerKey }).then(
    (service) => {
      shareLeaseSocket(service.path);
      process.once('exit', () => service.removeSync());
      runAgentApp(serverOptions, argv, { ...runWorkerSettings(config), createServer: requests.createServer });
    },
    (error: Error) => {
      process.stderr.write(`the TTS connection budget service cannot start: ${error.message}\n`);
      process.exit(1);
    },
  );
}

const invokedDirectly =
  process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) runWorkerCli();
