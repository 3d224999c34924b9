/** The pieces of the local OpenAI server that carry rules: tokenizer, script, VAD buffer, WAV. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputAudioBuffer } from './openai/input-buffer.js';
import { parseWav } from './openai/pcm.js';
import { earlierTexts, lastUserText, parseScriptJson, selectReply } from './openai/script.js';
import { plainTrace, tokenize } from './openai/tokenize.js';
import { transcriptDeltas } from './openai/transcripts.js';
import { silence, tone } from './openai/raw-realtime-client.js';

describe('tokenize', () => {
  it('cuts like a BPE tokenizer: leading spaces, Korean pairs, digit triples, punctuation alone', () => {
    expect(tokenize('Hello, world.')).toEqual(['Hello', ',', ' world', '.']);
    expect(tokenize('Understanding it')).toEqual(['Unde', 'rsta', 'ndin', 'g', ' it']);
    expect(tokenize('안녕하세요. 반가워요!')).toEqual(['안녕', '하세', '요', '.', ' 반가', '워요', '!']);
    expect(tokenize('It costs 1500 won')).toEqual(['It', ' costs', ' 150', '0', ' won']);
    expect(tokenize("Don't\n\nstop ")).toEqual(["Don't", '\n\n', 'stop', ' ']);
    expect(tokenize('AI를 써요')).toEqual(['AI', '를', ' 써요']);
  });

  it('always joins back to the input', () => {
    // A block body: fast-check fails a property whose predicate returns anything but a boolean or nothing.
    const joinsBack = (text: string): void => {
      expect(tokenize(text).join('')).toBe(text);
    };
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), joinsBack));
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('가', '나', ' ', '.', 'a', '1', '\n', '!', '\u{1F600}') }), joinsBack));
  });

  it('paces a plain trace from firstTokenDelayMs at tokensPerSecond', () => {
    expect(plainTrace('Hi there.', { firstTokenDelayMs: 300, tokensPerSecond: 40 }).tokens).toEqual([
      { text: 'Hi', atMs: 300 },
      { text: ' there', atMs: 325 },
      { text: '.', atMs: 350 },
    ]);
  });
});

describe('script', () => {
  const timing = { firstTokenDelayMs: 0, tokensPerSecond: 10 };
  const defaults = { ko: '한국어', en: 'English' };

  it('chooses the default by Hangul in the last user message', () => {
    expect(selectReply('안녕', [], defaults, timing).trace.tokens.map((t) => t.text).join('')).toBe('한국어');
    expect(selectReply('hello 123', [], defaults, timing).scriptIndex).toBe(-1);
  });

  it('reads the last user message from string or text-part content', () => {
    expect(lastUserText([{ role: 'user', content: 'old' }, { role: 'assistant', content: 'x' }, { role: 'user', content: [{ type: 'text', text: 'new' }] }])).toBe('new');
    expect(lastUserText([{ role: 'system', content: 'only system' }])).toBe('');
  });

  it('resets a global RegExp between tests', () => {
    const script = [{ match: /a/g, reply: 'hit' }];
    expect(selectReply('a', script, defaults, timing).scriptIndex).toBe(0);
    expect(selectReply('a', script, defaults, timing).scriptIndex).toBe(0);
  });

  it('answers an `earlier` entry only when the conversation before the last user message has it', () => {
    const script = [
      { match: 'open', earlier: /at nine/i, reply: 'As I said.' },
      { match: 'open', reply: 'At nine.' },
    ];
    const first = [{ role: 'system', content: 'at nine' }, { role: 'user', content: 'When do you open?' }];
    const again = [...first, { role: 'assistant', content: 'At nine.' }, { role: 'user', content: [{ type: 'text', text: 'When do you open?' }] }];
    expect(earlierTexts(first)).toEqual([]);
    expect(earlierTexts(again)).toEqual(['When do you open?', 'At nine.']);
    expect(selectReply(lastUserText(first), script, defaults, timing, earlierTexts(first)).scriptIndex).toBe(1);
    expect(selectReply(lastUserText(again), script, defaults, timing, earlierTexts(again)).scriptIndex).toBe(0);
    const parsed = parseScriptJson([{ match: 'open', earlier: { regex: 'nine$', flags: 'i' }, reply: 'r' }]);
    expect(parsed).toEqual({ ok: true, script: [{ match: 'open', earlier: /nine$/i, reply: 'r' }] });
    expect(parseScriptJson([{ match: 'open', earlier: { regex: '(' }, reply: 'r' }]).ok).toBe(false);
  });

  it('parses the JSON form and refuses unknown fields', () => {
    const parsed = parseScriptJson({ script: [{ match: { regex: 'x+', flags: 'u' }, reply: 'r' }] });
    expect(parsed).toEqual({ ok: true, script: [{ match: /x+/u, reply: 'r' }] });
    expect(parseScriptJson([{ match: 'a', reply: 'b', extra: true }]).ok).toBe(false);
  });
});

describe('transcriptDeltas', () => {
  it('splits along tokens into at most `count` pieces that join back', () => {
    expect(transcriptDeltas('Two people at seven.', 2)).toEqual(['Two people', ' at seven.']);
    expect(transcriptDeltas('Hi', 3)).toEqual(['Hi']);
    expect(transcriptDeltas('', 2)).toEqual([]);
    expect(transcriptDeltas('Hi there', 0)).toEqual([]);
  });
});

describe('InputAudioBuffer', () => {
  const vad = { prefixPaddingMs: 300, silenceDurationMs: 500 };

  it('keeps only the prefix padding while idle, so long silence holds no memory', () => {
    const buffer = new InputAudioBuffer();
    for (let i = 0; i < 600; i++) expect(buffer.append(silence(100), vad, 0.02)).toEqual([]);
    expect(buffer.bufferedMs).toBeLessThanOrEqual(300 + 100 + 10);
  });

  it('reports speech start/stop on the session clock and hands over the speech', () => {
    const buffer = new InputAudioBuffer();
    buffer.append(silence(1000), vad, 0.02);
    const events = [...buffer.append(tone(600), vad, 0.02), ...buffer.append(silence(600), vad, 0.02)];
    expect(events.map((e) => e.type)).toEqual(['speech_started', 'speech_stopped']);
    expect(events[0]).toEqual({ type: 'speech_started', audioStartMs: 700 });
    const stopped = events[1] as { audioEndMs: number; samples: Int16Array };
    expect(stopped.audioEndMs).toBe(2100);
    expect(stopped.samples.length).toBe(24 * (2100 - 700));
    expect(buffer.speaking).toBe(false);
  });

  it('holds everything with turn detection off until commit', () => {
    const buffer = new InputAudioBuffer();
    expect(buffer.append(tone(400), null, 0.02)).toEqual([]);
    buffer.append(silence(2000), null, 0.02);
    expect(buffer.commit().length).toBe(24 * 2400);
    expect(buffer.bufferedMs).toBe(0);
  });
});

describe('parseWav', () => {
  it('skips extra chunks and reads the first channel of 16-bit PCM', () => {
    const fmt = Buffer.alloc(24);
    fmt.write('fmt ', 0);
    fmt.writeUInt32LE(16, 4);
    fmt.writeUInt16LE(1, 8);
    fmt.writeUInt16LE(2, 10);
    fmt.writeUInt32LE(16000, 12);
    fmt.writeUInt32LE(64000, 16);
    fmt.writeUInt16LE(4, 20);
    fmt.writeUInt16LE(16, 22);
    const list = Buffer.concat([Buffer.from('LIST'), Buffer.from([3, 0, 0, 0]), Buffer.from('abc'), Buffer.from([0])]);
    const data = Buffer.alloc(16);
    data.write('data', 0);
    data.writeUInt32LE(8, 4);
    data.writeInt16LE(1000, 8);
    data.writeInt16LE(-5, 10);
    data.writeInt16LE(-1000, 12);
    data.writeInt16LE(7, 14);
    const file = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE'), fmt, list, data]);
    const wav = parseWav(file)!;
    expect(wav).toMatchObject({ sampleRate: 16000, channels: 2 });
    expect([...wav.samples]).toEqual([1000, -1000]);
    expect(parseWav(Buffer.from('not a wav file at all'))).toBeUndefined();
  });
});
