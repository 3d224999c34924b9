/**
 * A stock @livekit/agents 1.9 worker, the baseline of `npm run bench:capacity -- --compare stock`:
 * Silero VAD, the OpenAI plugin's STT and LLM, LiveKit's own Cartesia plugin, and the framework's
 * defaults for everything else (turn taking, idle processes, interruptions). Nothing of firstword
 * is in its pipeline. It reads the same variables the stack gives the firstword worker
 * (scripts/stack/components.ts `workerEnv`): LIVEKIT_*, AGENT_NAME, AGENT_HTTP_PORT,
 * OPENAI_API_KEY/OPENAI_BASE_URL, CARTESIA_API_KEY/CARTESIA_BASE_URL, AGENT_MAX_CALLS.
 *
 *   node --import tsx bench/capacity/stock-agent.ts start
 *
 * Two things differ from a bare `cli.runApp`, both worker settings the bench needs on a shared
 * 2-core host, neither in the call's pipeline: the load is live calls / AGENT_MAX_CALLS (the
 * framework's CPU rule measures the whole machine and would turn calls away when other work runs),
 * and a job process may take AGENT_PROCESS_START_TIMEOUT_S to start, as the firstword worker is
 * given in this bench. Two log lines mark what the bench measures per process from /proc: `job
 * process ready` at the end of prewarm and `session started` once the session runs (the same
 * messages the firstword worker logs).
 */
import { type JobContext, type JobProcess, ServerOptions, type VAD, cli, defineAgent, log, voice } from '@livekit/agents';
import * as cartesia from '@livekit/agents-plugin-cartesia';
import * as openai from '@livekit/agents-plugin-openai';
import * as silero from '@livekit/agents-plugin-silero';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProcessData {
  vad?: VAD;
}

export default defineAgent<ProcessData>({
  prewarm: async (proc: JobProcess<ProcessData>) => {
    proc.userData.vad = await silero.VAD.load();
    log().info({ startMs: Math.round(process.uptime() * 1000) }, 'job process ready');
  },
  entry: async (ctx: JobContext<ProcessData>) => {
    const vad = ctx.proc.userData.vad!;
    // The realtime STT does not read OPENAI_BASE_URL (plugin stt.ts); the openai SDK under the LLM does.
    const baseURL = process.env.OPENAI_BASE_URL;
    const session = new voice.AgentSession({
      vad,
      stt: new openai.STT({ baseURL, vad }),
      llm: new openai.LLM({ baseURL }),
      tts: new cartesia.TTS({ baseUrl: process.env.CARTESIA_BASE_URL }),
    });
    await ctx.connect();
    await session.start({ agent: new voice.Agent({ instructions: 'You are a helpful voice assistant. Answer briefly.' }), room: ctx.room });
    log().info({}, 'session started');
  },
});

function positiveInt(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (got ${raw})`);
  return n;
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const maxCalls = positiveInt('AGENT_MAX_CALLS');
  const startTimeoutS = positiveInt('AGENT_PROCESS_START_TIMEOUT_S');
  const port = positiveInt('AGENT_HTTP_PORT');
  cli.runApp(
    new ServerOptions({
      agent: fileURLToPath(import.meta.url),
      agentName: process.env.AGENT_NAME,
      ...(port ? { port } : {}),
      ...(startTimeoutS ? { initializeProcessTimeout: startTimeoutS * 1000 } : {}),
      ...(maxCalls ? { loadFunc: async (server) => Math.min(1, server.activeJobs.length / maxCalls), loadThreshold: 1 } : {}),
    }),
  );
}
