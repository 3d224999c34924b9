/** bench:turn --human's table: per language and pause band, replies / acks / any sound inside a pause. */
import { describe, expect, it } from 'vitest';
import { type PlayedTurn, bandFigures, bandTable, playedTurn } from '../../bench/turn/pause-bands.js';
import type { SpokenTurn } from '../../src/spoken/spoken-session.js';

/** A turn whose pauses are `[ms, from]` (judged until 1,000 ms after they begin), with no words heard before them. */
function turn(language: string, pauses: Array<[number, number]>, sounds: { replies?: number[]; acks?: number[]; firstSoundMs?: number; firstContentMs?: number } = {}): PlayedTurn {
  return {
    language,
    pauses: pauses.map(([ms, from]) => ({ ms, from, until: from + 1000, words: 'none' as const })),
    replyStarts: sounds.replies ?? [],
    ackStarts: sounds.acks ?? [],
    ...(sounds.firstSoundMs === undefined ? {} : { firstSoundMs: sounds.firstSoundMs }),
    ...(sounds.firstContentMs === undefined ? {} : { firstContentMs: sounds.firstContentMs }),
  };
}

describe('pause bands', () => {
  it('puts each pause in its band by lower-inclusive, upper-exclusive bounds; under 250 ms in none', () => {
    const [en] = bandFigures([turn('en', [[249, 0], [250, 2000], [499, 4000], [500, 6000], [1199, 8000], [1200, 10_000], [5000, 12_000]])]);
    expect(en!.bands.map((b) => [b.band, b.pauses])).toEqual([
      ['250–500 ms', 2],
      ['500–800 ms', 1],
      ['800–1200 ms', 1],
      ['≥ 1200 ms', 2],
    ]);
  });

  it('counts replies and acks apart, a pause with both once in "any"; a sound from the pause start until (not at) its end', () => {
    const played = turn('ko', [[300, 0], [300, 2000], [300, 4000], [300, 6000]], { replies: [0, 4500, 7000], acks: [2999, 4100] });
    const [ko] = bandFigures([played]);
    // Pause 1: reply at its start. Pause 2: ack just before its end. Pause 3: both. Pause 4: reply exactly at its end — outside.
    expect(ko!.bands[0]).toEqual({ band: '250–500 ms', pauses: 4, replyInside: 0.5, ackInside: 0.5, anyInside: 0.75 });
  });

  it('per language: turns, first sound / content p50 at the real end, unanswered', () => {
    const figures = bandFigures([
      turn('en', [[600, 0]], { firstSoundMs: 300, firstContentMs: 900 }),
      turn('en', [[600, 0]], { firstSoundMs: 500, firstContentMs: 1100 }),
      turn('en', [[600, 0]], { firstSoundMs: 700 }),
      turn('ko', [[900, 0]], { replies: [10], firstSoundMs: 200, firstContentMs: 800 }),
    ]);
    expect(figures.map((f) => f.language)).toEqual(['en', 'ko']);
    // Nearest-rank medians, as everywhere in the bench (bench/playout.ts).
    expect(figures[0]).toMatchObject({ turns: 3, firstSoundP50Ms: 500, firstContentP50Ms: 900, unanswered: 1 });
    expect(figures[1]).toMatchObject({ turns: 1, unanswered: 0 });
    expect(figures[1]!.bands[2]).toMatchObject({ pauses: 1, replyInside: 1, ackInside: 0, anyInside: 1 });
    expect(figures[0]!.bands[1]).toMatchObject({ pauses: 3, anyInside: 0 });
  });

  it('from a spoken turn: ack segments apart from the rest, each pause judged until the next stretch ends', () => {
    const reply = { startedAt: 1500 };
    const ack = { startedAt: 1250 };
    const late = { startedAt: 2600 };
    const spoken = {
      utterance: { pieces: [{ lastVoicedAt: 1000 }, { lastVoicedAt: 2000 }, { lastVoicedAt: 3000 }] },
      segments: [ack, reply, late],
      ackSegments: [ack],
      firstSoundMs: 400,
    } as unknown as SpokenTurn;
    const played = playedTurn(spoken, 'en', [300, 700]);
    expect(played.pauses).toEqual([
      { ms: 300, from: 1000, until: 2000, words: 'none' },
      { ms: 700, from: 2000, until: 3000, words: 'none' },
    ]);
    expect(playedTurn(spoken, 'en', [300, 700], ['unfinished', 'finished']).pauses.map((p) => p.words)).toEqual(['unfinished', 'finished']);
    expect(played.replyStarts).toEqual([1500, 2600]);
    expect(played.ackStarts).toEqual([1250]);
    expect(played.firstContentMs).toBeUndefined();
    const [en] = bandFigures([played]);
    expect(en!.bands[0]).toMatchObject({ pauses: 1, replyInside: 1, ackInside: 1 });
    expect(en!.bands[1]).toMatchObject({ pauses: 1, replyInside: 1, ackInside: 0 });
    expect(en!.unanswered).toBe(1);
  });

  it('by the words: the same pauses of 250 ms or more split by what their words read as', () => {
    const played: PlayedTurn = {
      language: 'ko',
      pauses: [
        { ms: 300, from: 0, until: 1000, words: 'finished' },
        { ms: 900, from: 2000, until: 3000, words: 'finished' },
        { ms: 400, from: 4000, until: 5000, words: 'unfinished' },
        { ms: 200, from: 6000, until: 7000, words: 'unfinished' },
      ],
      replyStarts: [500, 4100],
      ackStarts: [2500],
    };
    const [ko] = bandFigures([played]);
    expect(ko!.byWords).toEqual([
      { band: 'words read finished', pauses: 2, replyInside: 0.5, ackInside: 0.5, anyInside: 1 },
      { band: 'words read unfinished', pauses: 1, replyInside: 1, ackInside: 0, anyInside: 1 },
      { band: 'no words', pauses: 0, replyInside: 0, ackInside: 0, anyInside: 0 },
    ]);
    const rows = bandTable([{ setting: 'firstword', stt: 'live:300/150', figures: [ko!] }], 'words').split('\n');
    expect(rows[0]).toContain('pauses ≥ 250 ms');
    const [fromShorter] = bandFigures([played], [{ label: '100–5000 ms', fromMs: 100, toMs: 5000 }]);
    expect(fromShorter!.byWords.map((b) => b.pauses)).toEqual([2, 2, 0]);
    expect(bandTable([{ setting: 'firstword', stt: 'live:300/150', figures: [fromShorter!] }], 'words').split('\n')[0]).toContain('pauses ≥ 100 ms');
    expect(rows[2]).toMatch(/\| words read finished +\| 2 +\| 50 % +\| 50 % +\| 100 % +\|/);
  });

  it('the table shows "–" for an empty band and the end-of-turn figures once per language', () => {
    const table = bandTable([{ setting: 'firstword', stt: 'live:300/150', figures: bandFigures([turn('en', [[300, 0]], { acks: [5], firstSoundMs: 250, firstContentMs: 900 })]) }]);
    const rows = table.split('\n').slice(2);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/\| 250–500 ms +\| 1 +\| 0 % +\| 100 % +\| 100 % +\| 250 ms +\| 900 ms +\| 0 of 1 +\|/);
    expect(rows[1]).toMatch(/\| 500–800 ms +\| 0 +\| – +\| – +\| – +\| +\| +\| +\|/);
  });
});
