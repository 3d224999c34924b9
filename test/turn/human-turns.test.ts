/** bench:turn --human's reader: recordings, labels and transcripts as the turns the session plays. */
import { initializeLogger } from '@livekit/agents';
import { getFfmpegPath } from '@livekit/av';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  FRAME_MS,
  LEAD_MS,
  NO_TRANSCRIPT,
  SESSION_RATE,
  TAIL_MS,
  findPauses,
  humanUtterance,
  loadHumanTurn,
  loadHumanTurns,
  parseScv,
  pieceTexts,
} from '../../bench/turn/human-turns.js';
import { parseHumanArgs, pauseWords } from '../../bench/turn/human-run.js';
import { encodeWav, wavHeader } from '../../src/local-voice/wav.js';
import { predictTurnComplete, turnUnlikelyThreshold } from '../../src/turn/transcript-detector.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'human-turns-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let made = 0;

/** Tones (ms) with silences between them: `[tone, gap, tone, gap, tone]`, 200 ms of silence around. */
function speechLike(layout: number[], rate = SESSION_RATE): Int16Array {
  const total = 400 + layout.reduce((a, b) => a + b, 0);
  const samples = new Int16Array(Math.round((total * rate) / 1000));
  let at = 200;
  layout.forEach((ms, i) => {
    if (i % 2 === 0) {
      const from = Math.round((at * rate) / 1000);
      const to = Math.round(((at + ms) * rate) / 1000);
      for (let s = from; s < to; s++) samples[s] = Math.round(8000 * Math.sin((2 * Math.PI * 220 * s) / rate));
    }
    at += ms;
  });
  // A quiet room, not digital silence: the rule measures against the file's own floor.
  for (let s = 0; s < samples.length; s++) samples[s] = samples[s]! + ((s * 7919) % 21) - 10;
  return samples;
}

function dirWith(files: Record<string, Buffer | string>): string {
  const dir = path.join(scratch, `d${made++}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  for (const [name, body] of Object.entries(files)) writeFileSync(path.join(dir, name), body);
  return dir;
}

describe('the pause rule (no labels)', () => {
  it('finds each silence of 250 ms or more between voice, and takes a shorter one for speech', async () => {
    const dir = dirWith({ 'a.wav': encodeWav(speechLike([600, 300, 500, 150, 400, 1000, 700]), SESSION_RATE) });
    const [turn] = await loadHumanTurns(dir, 'en');
    expect(turn!.pausesFrom).toBe('rule');
    expect(turn!.pausesMs).toHaveLength(2);
    expect(Math.abs(turn!.pausesMs[0]! - 300)).toBeLessThanOrEqual(FRAME_MS);
    expect(Math.abs(turn!.pausesMs[1]! - 1000)).toBeLessThanOrEqual(FRAME_MS);
    expect(turn!.stretches).toHaveLength(3);
    // Cut to LEAD_MS before the first voice and TAIL_MS after the last (200 ms of each were there).
    const ms = (n: number) => (n * 1000) / SESSION_RATE;
    expect(Math.abs(ms(turn!.stretches[0]!.first) - 200)).toBeLessThanOrEqual(FRAME_MS);
    expect(Math.abs(ms(turn!.samples.length) - (ms(turn!.stretches.at(-1)!.last) + 200))).toBeLessThanOrEqual(FRAME_MS);
    expect(LEAD_MS).toBeGreaterThanOrEqual(200);
    expect(TAIL_MS).toBeGreaterThanOrEqual(200);
  });

  it('property: silences of ≥ 300 ms are found (to within the two frames they may share with voice), ≤ 240 ms never', () => {
    const gap = fc.oneof(fc.integer({ min: 40, max: 240 }), fc.integer({ min: 300, max: 1600 }));
    const layout = fc.array(fc.tuple(fc.integer({ min: 100, max: 600 }), gap), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(layout, fc.integer({ min: 100, max: 600 }), (parts, lastTone) => {
        const pauses = findPauses(speechLike([...parts.flat(), lastTone]));
        const expected = parts.map(([, g]) => g).filter((g) => g >= 300);
        expect(pauses).toHaveLength(expected.length);
        pauses.forEach((p, i) => {
          const found = p.endMs - p.startMs;
          expect(found).toBeLessThanOrEqual(expected[i]!);
          expect(found).toBeGreaterThan(expected[i]! - 2 * FRAME_MS);
        });
      }),
      { numRuns: 40 },
    );
  });

  it('resamples another rate to the session rate, through the same pauses', async () => {
    const dir = dirWith({ 'b.wav': encodeWav(speechLike([500, 600, 500], 8000), 8000) });
    const [turn] = await loadHumanTurns(dir, 'ko');
    expect(turn!.language).toBe('ko');
    expect(Math.abs(turn!.pausesMs[0]! - 600)).toBeLessThanOrEqual(FRAME_MS);
    const utterance = humanUtterance(turn!);
    expect(utterance.sampleRate).toBe(SESSION_RATE);
    // 200 ms lead + 1,600 ms + 200 ms tail at 16 kHz.
    expect(Math.abs(utterance.samples.length - SESSION_RATE * 2)).toBeLessThan(SESSION_RATE * 0.04);
  });

  it('reads FLAC (any channels, its own rate) through the framework\'s decoder', async () => {
    // The framework decodes with the ffmpeg it ships (@livekit/av); the same binary writes the file.
    initializeLogger({ pretty: false, level: 'error' });
    const ffmpeg = getFfmpegPath();
    expect(ffmpeg, 'the framework ships no ffmpeg for this platform: FLAC cannot be read here').toBeDefined();
    const dir = dirWith({ 'p.wav': encodeWav(speechLike([500, 700, 500]), SESSION_RATE) });
    const made = spawnSync(ffmpeg!, ['-loglevel', 'error', '-y', '-i', path.join(dir, 'p.wav'), '-ar', '22050', '-ac', '2', path.join(dir, 'p.flac')]);
    expect(made.status, made.stderr?.toString()).toBe(0);
    rmSync(path.join(dir, 'p.wav'));
    const [turn] = await loadHumanTurns(dir, 'en');
    expect(turn!.file).toMatch(/p\.flac$/);
    expect(turn!.pausesMs).toHaveLength(1);
    expect(Math.abs(turn!.pausesMs[0]! - 700)).toBeLessThanOrEqual(2 * FRAME_MS);
  });
});

describe('labels', () => {
  it('a NAME.pauses.json sidecar replaces the rule; labelled pauses under 250 ms are speech', async () => {
    const dir = dirWith({
      'c.wav': encodeWav(speechLike([2000]), SESSION_RATE),
      'c.pauses.json': JSON.stringify([[700, 1100], [1500, 1600]]),
    });
    const [turn] = await loadHumanTurns(dir, 'en');
    expect(turn!.pausesFrom).toBe('labels');
    expect(turn!.pausesMs).toEqual([400]);
    expect(turn!.stretches).toHaveLength(2);
    // The pause begins 500 ms into the tone: stretch 1 ends there (the tone starts at 200 ms, kept with 200 ms lead).
    expect(turn!.stretches[1]!.first - turn!.stretches[0]!.last - 1).toBe(Math.round(0.4 * SESSION_RATE));
  });

  it('labelled pauses that touch are one pause (no speech between them)', async () => {
    const dir = dirWith({ 'o.wav': encodeWav(speechLike([2000]), SESSION_RATE), 'o.pauses.json': JSON.stringify([[700, 900], [900, 1100]]) });
    const [turn] = await loadHumanTurns(dir, 'en');
    expect(turn!.pausesMs).toEqual([400]);
    expect(turn!.stretches).toHaveLength(2);
  });

  it('TEN-VAD .scv: pauses are the no-speech stretches between speech, the speech bounds the turn', () => {
    const labels = parseScv('x.scv', 'x,0.000,0.400,0,0.400,1.200,1,1.200,1.500,0,1.500,2.000,1,2.000,2.600,0\n');
    expect(labels.pauses).toEqual([{ startMs: 1200, endMs: 1500 }]);
    expect(labels.speech).toEqual({ startMs: 400, endMs: 2000 });
  });
});

describe('transcripts', () => {
  it('a NAME.txt sidecar is shared out over the stretches by voiced length; none gives the neutral placeholder', async () => {
    const dir = dirWith({ 'd.wav': encodeWav(speechLike([1000, 400, 1000]), SESSION_RATE), 'd.txt': 'one two three\nfour five six\n' });
    const [turn] = await loadHumanTurns(dir, 'en');
    expect(turn!.transcript).toBe('one two three four five six');
    expect(pieceTexts(turn!)).toEqual(['one two three', 'four five six']);
    expect(pieceTexts({ stretches: turn!.stretches })).toEqual([NO_TRANSCRIPT, NO_TRANSCRIPT]);
    expect(pieceTexts({ stretches: [{ first: 0, last: 9 }, { first: 20, last: 49 }], transcript: 'yes' })).toEqual([NO_TRANSCRIPT, 'yes']);
  });

  it('a NAME.words.json sidecar wins over NAME.txt: each stretch gets the words said in it, times from the file\'s start', async () => {
    // Tones at 200-1200 and 1600-2600 ms of the file; "the" is said into the pause, nearer its start.
    const words = [['I', 300, 500], ['went', 600, 1100], ['the', 1150, 1300], ['to', 1650, 1800], ['town', 1900, 2500]];
    const dir = dirWith({ 'w.wav': encodeWav(speechLike([1000, 400, 1000]), SESSION_RATE), 'w.words.json': JSON.stringify(words), 'w.txt': 'other words entirely' });
    const [turn] = await loadHumanTurns(dir, 'en');
    expect(turn!.transcript).toBe('I went the to town');
    expect(pieceTexts(turn!)).toEqual(['I went the', 'to town']);
    await expect(loadHumanTurns(dirWith({ 'v.wav': encodeWav(speechLike([500]), SESSION_RATE), 'v.words.json': '[["a", 3, 1]]' }), 'en')).rejects.toThrow(/v\.words\.json: must be/);
  });

  it('a cut moves to the nearest clause end within two words, never past the words already taken', () => {
    const stretches = (...voiced: number[]) => {
      let at = 0;
      return voiced.map((n) => {
        const s = { first: at, last: at + n - 1 };
        at += n + 100;
        return s;
      });
    };
    // Proportional: 3 of 6 words before the pause; the clause ends after word 2.
    expect(pieceTexts({ stretches: stretches(500, 500), transcript: '아, 저기요. 삼계탕만 파는 식당인데 많아요.' })).toEqual(['아, 저기요.', '삼계탕만 파는 식당인데 많아요.']);
    // No clause end within reach: the proportional cut stands.
    expect(pieceTexts({ stretches: stretches(500, 500), transcript: 'one. two three four five six seven eight nine ten' })).toEqual(['one. two three four five', 'six seven eight nine ten']);
    // Equally near ends: the earlier one.
    expect(pieceTexts({ stretches: stretches(500, 500), transcript: 'a b, c d, e f' })).toEqual(['a b,', 'c d, e f']);
  });

  it('property: the pieces always give back the transcript, in order, one piece per stretch', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.stringMatching(/^[a-z가-힣]{1,4}[,.?!]?$/), { minLength: 1, maxLength: 30 }),
        (voiced, words) => {
          let at = 0;
          const stretches = voiced.map((n) => {
            const s = { first: at, last: at + n - 1 };
            at += n + 10;
            return s;
          });
          const pieces = pieceTexts({ stretches, transcript: words.join(' ') });
          expect(pieces).toHaveLength(stretches.length);
          expect(pieces.filter((p) => p !== NO_TRANSCRIPT).join(' ')).toBe(words.join(' '));
        },
      ),
    );
  });

  it('each pause is classed by what the transcript rules say of the words heard up to it', async () => {
    const words = (list: Array<[string, number, number]>) => JSON.stringify(list);
    const dir = dirWith({
      'p.wav': encodeWav(speechLike([600, 400, 600, 400, 600]), SESSION_RATE),
      'p.words.json': words([['I', 250, 400], ['need', 450, 750], ['a', 760, 790], ['table', 1250, 1700], ['please', 2250, 2700]]),
      'q.wav': encodeWav(speechLike([600, 400, 600]), SESSION_RATE),
      'q.txt': '저기요. 예약하고 싶어요.',
      'r.wav': encodeWav(speechLike([600, 400, 600]), SESSION_RATE),
    });
    const [p, q, r] = await loadHumanTurns(dir, 'en');
    expect(pauseWords(p!)).toEqual(['unfinished', 'finished']);
    expect(pauseWords({ ...q!, language: 'ko' })).toEqual(['finished']);
    expect(pauseWords(r!)).toEqual(['none']);
  });

  it('the placeholder reads as neither finished nor unfinished to the transcript detector', () => {
    for (const language of ['en', 'ko'] as const) {
      expect(predictTurnComplete(NO_TRANSCRIPT, language)).toBe(turnUnlikelyThreshold(language));
      expect(predictTurnComplete(`${NO_TRANSCRIPT} ${NO_TRANSCRIPT}`, language)).toBe(turnUnlikelyThreshold(language));
    }
  });
});

describe('bad input names the file', () => {
  const wav = encodeWav(speechLike([500, 400, 500]), SESSION_RATE);
  const stereo = Buffer.from(wav);
  stereo.writeUInt16LE(2, 22);

  it.each([
    ['a missing directory', () => loadHumanTurns(path.join(scratch, 'nowhere'), 'en'), /nowhere: no such directory/],
    ['a directory without recordings', () => loadHumanTurns(dirWith({ 'notes.txt': 'hi' }), 'en'), /holds no \.wav or \.flac/],
    ['a file that is not WAV', () => loadHumanTurns(dirWith({ 'e.wav': 'not audio at all' }), 'en'), /e\.wav: not a RIFF\/WAVE file/],
    ['stereo', () => loadHumanTurns(dirWith({ 'f.wav': stereo }), 'en'), /f\.wav: only 16-bit mono PCM/],
    ['a rate the session cannot use', () => loadHumanTurns(dirWith({ 'g.wav': encodeWav(speechLike([500], 4000), 4000) }), 'en'), /g\.wav: sample rate 4000 Hz/],
    ['silence', () => loadHumanTurns(dirWith({ 'h.wav': encodeWav(new Int16Array(16000), SESSION_RATE) }), 'en'), /h: no voiced frame/],
    ['an empty data chunk', () => loadHumanTurns(dirWith({ 'i.wav': wavHeader(SESSION_RATE, 0) }), 'en'), /i\.wav: holds no audio/],
    ['a FLAC that is not', () => loadHumanTurns(dirWith({ 'j.flac': 'RIFF....' }), 'en'), /j\.flac: not a FLAC file/],
    ['pause labels that are not pairs', () => loadHumanTurns(dirWith({ 'k.wav': wav, 'k.pauses.json': '[[5]]' }), 'en'), /k\.pauses\.json: must be \[\[startMs, endMs\]/],
    ['pause labels that overlap', () => loadHumanTurns(dirWith({ 'l.wav': wav, 'l.pauses.json': '[[300,700],[600,900]]' }), 'en'), /l\.pauses\.json: pauses overlap/],
    ['broken .scv', () => loadHumanTurns(dirWith({ 'm.wav': wav, 'm.scv': 'm,0.1,0.2' }), 'en'), /m\.scv: must be NAME followed by/],
    ['labels past the end', () => loadHumanTurns(dirWith({ 'n.wav': wav, 'n.scv': 'n,0,0.3,1,0.3,0.5,0,0.5,9.0,1' }), 'en'), /n: labels run past the recording's end/],
  ])('%s', async (_what, load, message) => {
    await expect(load()).rejects.toThrow(message);
  });

  it('an unreadable file', async () => {
    await expect(loadHumanTurn(path.join(scratch, 'gone.wav'), 'en')).rejects.toThrow(/gone\.wav: cannot be read/);
  });

  it('--human / --language / --limit', () => {
    expect(parseHumanArgs('a,b', 'en,ko', undefined)).toEqual([
      { dir: 'a', language: 'en', limit: 20 },
      { dir: 'b', language: 'ko', limit: 20 },
    ]);
    expect(parseHumanArgs('a,b', 'ko', '5').map((d) => d.language)).toEqual(['ko', 'ko']);
    expect(() => parseHumanArgs('a', undefined, undefined)).toThrow(/needs --language/);
    expect(() => parseHumanArgs('a,b,c', 'en,ko', undefined)).toThrow(/2 languages for 3 directories/);
    expect(() => parseHumanArgs('a', 'ja', undefined)).toThrow(/"ja" is not ko or en/);
    expect(() => parseHumanArgs('a', 'en', '0')).toThrow(/--limit/);
  });
});
