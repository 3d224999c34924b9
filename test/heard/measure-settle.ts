/**
 * Measures how long an interrupted reply takes to settle in a room-less session, with the
 * framework's plain Agent and with our HeardTextAgent, for both providers, with and without word
 * timestamps. Not a test (timings belong in measurements):
 *
 *   npx tsx test/heard/measure-settle.ts [turns=3]
 *
 * "commit" is interruption → the interrupted reply in the history; "next audio" is interruption →
 * first audio of the reply asked for right after the interruption.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { HeardTextAgent } from '../../src/heard/index.js';
import { ASSISTANT_INSTRUCTIONS } from '../../src/session.js';
import { withTimeout } from '../helpers/async.js';
import { interruptAfterPlayed, nextAssistantMessage, startHeardSession } from './session-harness.js';

const LONG_REPLY =
  'Here is the whole story from the very beginning, told slowly and with every detail you could wish for, ' +
  'so that it keeps the voice busy for a good while after anyone stops listening to it.';

async function measure(
  provider: 'resemble' | 'cartesia',
  timestamps: boolean,
  agent: 'plain' | 'heard',
  turns: number,
): Promise<{ commit: number[]; next: number[]; heard: string }> {
  const responses: voice.testing.FakeLLMResponse[] = [];
  for (let i = 0; i < turns; i++) {
    responses.push({ input: `long ${i}`, content: LONG_REPLY }, { input: `short ${i}`, content: 'Sure, go ahead.' });
  }
  const h = await startHeardSession({
    provider,
    timestamps,
    msPerChar: 30,
    realTimeFactor: 0.5,
    responses,
    agent: () =>
      agent === 'plain'
        ? new voice.Agent({ instructions: ASSISTANT_INSTRUCTIONS })
        : new HeardTextAgent({ instructions: ASSISTANT_INSTRUCTIONS }),
  });
  const commit: number[] = [];
  const next: number[] = [];
  let heard = '';
  try {
    for (let i = 0; i < turns; i++) {
      const message = nextAssistantMessage(h.session);
      h.session.generateReply({ userInput: `long ${i}` });
      const interruptedAt = await withTimeout(interruptAfterPlayed(h, 600), 10_000, 'first audio');
      const nextAudio = new Promise<number>((resolve) =>
        h.output.once(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => resolve(Date.now())),
      );
      const second = h.session.generateReply({ userInput: `short ${i}` });
      const committed = await withTimeout(message, 15_000, 'commit');
      commit.push(Date.now() - interruptedAt);
      next.push((await withTimeout(nextAudio, 15_000, 'next audio')) - interruptedAt);
      heard = committed.textContent ?? '';
      await withTimeout(second.waitForPlayout(), 15_000, 'next reply');
    }
  } finally {
    await h.close();
  }
  return { commit, next, heard };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: 'error' });
  const turns = Number(process.argv[2] ?? 3);
  console.log('provider  timestamps  agent  commit ms (median, all)      next audio ms (median, all)  interrupted reply kept');
  for (const provider of ['resemble', 'cartesia'] as const) {
    for (const timestamps of [false, true]) {
      for (const agent of ['plain', 'heard'] as const) {
        const r = await measure(provider, timestamps, agent, turns);
        console.log(
          [
            provider.padEnd(9),
            String(timestamps).padEnd(11),
            agent.padEnd(6),
            `${median(r.commit)} (${r.commit.join(', ')})`.padEnd(29),
            `${median(r.next)} (${r.next.join(', ')})`.padEnd(29),
            JSON.stringify(r.heard.length > 60 ? `${r.heard.slice(0, 57)}...` : r.heard),
          ].join(' '),
        );
      }
    }
  }
}

await main();
