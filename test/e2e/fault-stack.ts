/**
 * The stack the fault suites (a server restart, a job process killed) run a call on: the
 * Cartesia-protocol fake with audible tones, the OpenAI fake scripted with the drills' one
 * conversation (scripts/faults/drill.ts `CONVERSATION`), and the caller's question spoken by eSpeak.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareClips } from '../../bench/room/speech.js';
import { CONVERSATION } from '../../scripts/faults/drill.js';
import { DEPARTURE_TIMEOUT_S } from '../../scripts/stack/livekit-config.js';
import { type E2EStack, startStack } from './stack.js';

export interface FaultStack {
  stack: E2EStack;
  /** The suite's own folder under out/: the callers' plans and logs. */
  work: string;
  /** The caller's question as a 48 kHz WAV, with where its voice starts and ends. */
  clip: { file: string; firstVoiced: number; lastVoiced: number };
}

export async function startFaultStack(name: string, agentName: string): Promise<FaultStack> {
  const work = join('out', `e2e-${name}`);
  mkdirSync(work, { recursive: true });
  const spoken = (await prepareClips([{ key: 'speech', text: CONVERSATION.user, language: 'en' }], join(work, 'speech'))).get('speech')!;
  const scriptFile = join(work, 'openai-script.json');
  writeFileSync(scriptFile, CONVERSATION.script());
  const stack = await startStack({
    tts: 'cartesia',
    agentName,
    web: false,
    // A caller rejoining a restarted server finds its room as production would keep it.
    departureTimeoutS: DEPARTURE_TIMEOUT_S.livekitDefault,
    workerEnv: { AGENT_PROCESS_START_TIMEOUT_S: '60' },
    fakeArgs: { openai: ['--script', scriptFile], cartesia: ['--options', JSON.stringify({ audio: 'audible', msPerChar: 60, firstByteDelayMs: 120 })] },
  });
  return { stack, work, clip: { file: spoken.file, firstVoiced: spoken.firstVoiced, lastVoiced: spoken.lastVoiced } };
}
