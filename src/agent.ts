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
import * as silero from '@livekit/agents-plugin-silero';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AckLibrary, attachAcknowledgement, prepareAcknowledgements } from './ack/index.js';
import { attachEarlyAck } from './ack/early.js';
import { EARLY_ACK_PHRASES } from './ack/phrases.js';
import { createAckRoomOutput } from './audio/room-output.js';
import { type AppConfig, ConfigError, loadConfig, loadEnvFile, redactedConfig, shareLeaseSocket } from './config/index.js';
import { protectBargeIn } from './audio/barge-in-output.js';
import { attachJobTurnBudget, startWorkerMetrics } from './latency/worker.js';
import { runAgentApp, runWorkerSettings } from './lifecycle/index.js';
import { createAssistant, createSession } from './session.js';
import { describeCaller, greetSipCaller } from './sip/index.js';
import { maskPhoneNumbersInOutput } from './sip/log-privacy.js';
import { EARLY_ACK_SILENCE_BOUND_MS, createSpeechToText, isLiveTranscriptionModel } from './stt/index.js';
import { type CreatedTTS, createTTS } from './tts/factory.js';
import { startLeaseService } from './tts/lease-service.js';
import { turnTaking } from './turn/detection.js';
import { predictTurnComplete } from './turn/transcript-detector.js';

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

export async function prewarm(proc: JobProcess<ProcessData>): Promise<void> {
  // Before any call: the framework logs SIP callers' identities (their numbers) unmasked.
  maskPhoneNumbersInOutput(process.stdout);
  const config = loadConfig(process.env, { mode: 'worker' });
  proc.userData.vad = await silero.VAD.load({ minSilenceDuration: config.turn.silenceMs });

  const voice = prepareVoice(config);
  // Not awaited: a slow provider must not hold up the process's start. A failure here is
  // reported by the entry that awaits it, not as an unhandled rejection.
  voice.catch(() => {});
  proc.userData.voice = voice;
  if (config.ack.mode !== 'off') {
    const acks = voice.then((created) => prepareAcknowledgements(created.tts, ackPhrases(config)));
    acks.catch(() => {});
    proc.userData.acks = acks;
  }
}

export async function entry(ctx: JobContext<ProcessData>): Promise<void> {
  const logger = log().child({ job: ctx.job.id });
  const config = loadConfig(process.env, { mode: 'worker' });
  logger.debug({ config: redactedConfig(config) }, 'job starting');

  await ctx.connect();
  // SIP callers (identity and number masked in logs) get telephony audio and an instant greeting.
  const callerParticipant = await ctx.waitForParticipant();
  const caller = describeCaller(callerParticipant, { sip: config.sip.call });
  logger.info(caller.logFields, 'caller joined');

  const vad = ctx.proc.userData.vad ?? (await silero.VAD.load({ minSilenceDuration: config.turn.silenceMs }));
  const voice = await (ctx.proc.userData.voice ?? prepareVoice(config));
  ctx.proc.userData.voice = undefined;
  ctx.addShutdownCallback(() => voice.close());

  const session = createSession(
    {
      vad,
      // The same base URL for both: the plugin's realtime STT does not read OPENAI_BASE_URL itself.
      stt: createSpeechToText({ apiKey: config.openai.apiKey, baseURL: config.openai.baseURL, model: config.openai.sttModel, vad }),
      llm: new openai.LLM({ apiKey: config.openai.apiKey, baseURL: config.openai.baseURL, model: config.openai.llmModel }),
      tts: voice.tts,
    },
    {
      bargeInMinSpeechMs: config.bargeIn.minSpeechMs,
      turn: turnTaking(config.turn, { hasInferenceExecutor: ctx.inferenceExecutor !== undefined }),
    },
  );
  const agent = createAssistant();
  // One log line per turn (and METRICS_PORT pushes); the ack joins once its audio is ready, never
  // holding up the call's start.
  const turnBudget = attachJobTurnBudget(session, { agent, tts: voice.tts, config, logger, room: { room: ctx.room, callerIdentity: callerParticipant.identity } });
  ctx.addShutdownCallback(() => turnBudget.close());
  const acks = config.ack.mode === 'off' ? undefined : (ctx.proc.userData.acks ?? prepareAcknowledgements(voice.tts, ackPhrases(config)));
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
    ...(ackRoomOutput ? { outputOptions: { ...startOptions?.outputOptions, audioEnabled: false } } : {}),
  });
  protectBargeIn(session);
  if (acks && ackRoomOutput) {
    void acks.then(
      (library) =>
        attachEarlyAck(session, {
          agent,
          library,
          output: ackRoomOutput.output,
          predict: predictTurnComplete,
          // Only a live model's words arrive before the end of speech; without any, silence decides.
          ...(isLiveTranscriptionModel(config.openai.sttModel) ? { silenceBoundMs: EARLY_ACK_SILENCE_BOUND_MS } : {}),
        }),
      (error: Error) => logger.warn({ error: error.message }, 'acknowledgements unavailable'),
    );
  }
  greetSipCaller(session, caller);
  logger.info({ provider: config.tts.provider }, 'session started');
}

/** An early ack is a backchannel ("네." / "Okay."): it plays before the reply and delays it by its length. */
function ackPhrases(config: AppConfig): { phrases: Partial<typeof EARLY_ACK_PHRASES> } {
  return { phrases: config.ack.mode === 'early' ? EARLY_ACK_PHRASES : {} };
}

export default defineAgent<ProcessData>({ prewarm, entry });

const WORKER_COMMANDS = new Set(['start', 'dev', 'connect']);

/**
 * Validates the configuration before handing over to the LiveKit CLI, so that a missing variable
 * is one readable message instead of a stack trace from deep inside a plugin.
 */
export function runWorkerCli(argv: string[] = process.argv): void {
  maskPhoneNumbersInOutput(process.stdout);
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
  const metricsPort = config.metrics.port;
  if (metricsPort !== undefined) {
    // A metrics port that cannot be had is a configuration error like any other: say so and stop.
    startWorkerMetrics(config).catch((error: Error) => {
      process.stderr.write(`METRICS_PORT ${metricsPort} cannot be used: ${error.message}\n`);
      process.exit(1);
    });
  }
  const { httpPort, maxCalls } = config.worker;
  const serverOptions = new ServerOptions({
    agent: fileURLToPath(import.meta.url),
    agentName: config.agentName,
    ...(httpPort !== undefined ? { port: httpPort } : {}),
    // Load as the share of the calls this worker takes: full (no new jobs) at exactly maxCalls.
    ...(maxCalls !== undefined ? { loadFunc: async (server) => server.activeJobs.length / maxCalls, loadThreshold: 1 } : {}),
  });
  // One connection budget for every job process, started before the framework forks any: they
  // inherit its path through the environment. `start` gets the graceful runner (PM2 ready signal,
  // drain then exit 0); the rest is cli.runApp.
  startLeaseService({ limit: config.tts.connections.maxPerKey }).then(
    (service) => {
      shareLeaseSocket(service.path);
      process.once('exit', () => service.removeSync());
      runAgentApp(serverOptions, argv, runWorkerSettings(config));
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
