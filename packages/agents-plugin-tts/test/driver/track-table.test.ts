/**
 * The in-order track table pins an error that names no request on the request it refused
 * (src/transport/track-table.ts `unattributed`/`settle`), whatever the interleaving of sends, refusals
 * and audio. Modelled on the Resemble protocol: the service takes requests in send order, refuses
 * a request the moment it arrives (an error without `request_id`, ahead of everything queued),
 * and answers the others strictly one after another with audio frames and an end.
 */
import { APIStatusError } from '@livekit/agents';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Outstanding } from '../../src/transport/track-table.js';
import { trackTableFor } from '../../src/transport/track-table.js';

type ServerMessage = { kind: 'error'; refused: string } | { kind: 'audio'; key: string } | { kind: 'end'; key: string };

interface Case {
  /** Per request: refused, or how many audio frames it gets. */
  requests: Array<{ refused: boolean; frames: number }>;
  /** Which of the possible steps runs next, each taken modulo the steps possible then. */
  choices: number[];
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  requests: fc.array(fc.record({ refused: fc.boolean(), frames: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 6 }),
  choices: fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
});

/** Runs one interleaving; returns which error each refused request was failed with. */
function run(c: Case): { pinned: Map<string, string>; ended: string[]; outstanding: number } {
  const table = trackTableFor({ ordering: 'in-order' });
  const keys = c.requests.map((_, i) => String(i + 1));
  const pinned = new Map<string, string>();
  const ended: string[] = [];
  let sent = 0; // client → server, in order
  let arrived = 0; // requests the server has read
  const toServer: string[] = [];
  const queue: string[] = []; // accepted requests the server has yet to answer, FIFO
  const served = new Map<string, number>(); // frames sent so far of the request being answered
  const toClient: ServerMessage[] = [];

  const settle = () => {
    for (const [key, error] of table.settle()) {
      pinned.set(key, error.message);
      table.delete(key);
    }
  };
  const steps: Array<{ can: () => boolean; run: () => void }> = [
    {
      can: () => sent < keys.length,
      run: () => {
        const key = keys[sent++]!;
        const t: Outstanding = { owner: null, progressAt: 0, awaitingInput: false, heardSinceSend: false };
        table.set(key, t);
        toServer.push(key);
      },
    },
    {
      can: () => toServer.length > 0,
      run: () => {
        const key = toServer.shift()!;
        const request = c.requests[arrived++]!;
        if (request.refused) toClient.push({ kind: 'error', refused: key });
        else queue.push(key);
      },
    },
    {
      can: () => queue.length > 0,
      run: () => {
        const key = queue[0]!;
        const done = served.get(key) ?? 0;
        if (done < c.requests[Number(key) - 1]!.frames) {
          served.set(key, done + 1);
          toClient.push({ kind: 'audio', key });
        } else {
          queue.shift();
          toClient.push({ kind: 'end', key });
        }
      },
    },
    {
      can: () => toClient.length > 0,
      run: () => {
        const message = toClient.shift()!;
        if (message.kind === 'error') {
          // The wire names no request: only the message text tells the errors apart.
          table.unattributed(new APIStatusError({ message: `refused ${message.refused}`, options: { statusCode: 400, retryable: false } }));
        } else if (message.kind === 'audio') {
          const t = table.get(message.key);
          if (t) t.heardSinceSend = true;
        } else {
          table.delete(message.key);
          ended.push(message.key);
        }
        settle();
      },
    },
  ];
  let i = 0;
  for (;;) {
    const possible = steps.filter((s) => s.can());
    if (possible.length === 0) break;
    possible[(c.choices[i++ % c.choices.length] ?? 0) % possible.length]!.run();
  }
  return { pinned, ended, outstanding: table.size };
}

describe('in-order track table: errors without a request id', () => {
  it('fails exactly the refused requests, each with its own error, and leaves nothing outstanding', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const { pinned, ended, outstanding } = run(c);
        const refused = c.requests.flatMap((r, i) => (r.refused ? [String(i + 1)] : []));
        const accepted = c.requests.flatMap((r, i) => (r.refused ? [] : [String(i + 1)]));
        expect([...pinned.keys()].sort()).toEqual(refused.sort());
        for (const [key, message] of pinned) expect(message).toBe(`refused ${key}`);
        expect(ended).toEqual(accepted);
        expect(outstanding).toBe(0);
      }),
      { numRuns: 500, seed: 19 },
    );
  });

  it('multiplexed tables leave it to every owner (contexts run concurrently)', () => {
    const table = trackTableFor({ ordering: 'multiplexed' });
    expect(table.unattributed(new APIStatusError({ message: 'x', options: { statusCode: 400 } }))).toBe('all');
    expect(table.settle()).toEqual([]);
  });
});
