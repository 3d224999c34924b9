import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { guardLogOutput } from '../../src/log-output/guard.js';
import { RepeatLimiter } from '../../src/log-output/repeat-limiter.js';
import { maskPhoneNumbersIn } from '../../src/sip/log-privacy.js';

const FRAMEWORK_LINE =
  '{"level":30,"time":1796130224307,"pid":10828,"lk.pii.participant_identity":"sip_+15557654321","msg":"closing agent session"}';
const SLOW_VAD = (delay: number) =>
  `{"level":40,"time":${1796130224307 + delay},"pid":10828,"delay":${delay},"msg":"VAD inference is slower than realtime"}\n`;

function sink() {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callback();
    },
  }) as unknown as NodeJS.WriteStream;
  return { stream, written };
}

describe('guardLogOutput', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('masks strings and buffers written to the stream, once however often it is installed', () => {
    const { stream, written } = sink();
    guardLogOutput(stream);
    guardLogOutput(stream);
    stream.write(`${FRAMEWORK_LINE}\n`);
    stream.write(Buffer.from('caller sip_+15557654321\n'));
    expect(written.join('')).not.toContain('5557654321');
    expect(written).toEqual([maskPhoneNumbersIn(`${FRAMEWORK_LINE}\n`), 'caller sip_+*******4321\n']);
  });

  it('cuts a flood of VAD warnings to the first line and one summary per window, counting every line held back', () => {
    const { stream, written } = sink();
    guardLogOutput(stream, { windowMs: 10_000 });
    const FLOOD = 33_301;
    // 32 ms windows, as the VAD warns: the flood lasts ~1066 s, so ~107 windows.
    for (let i = 1; i <= FLOOD; i += 1) {
      stream.write(SLOW_VAD(i));
      if (i % 25 === 0) stream.write('{"level":30,"msg":"turn report"}\n');
      vi.advanceTimersByTime(32);
    }
    vi.advanceTimersByTime(20_000);
    const warnings = written.filter((line) => line.includes('VAD inference is slower than realtime'));
    const summaries = warnings.slice(1).map((line) => JSON.parse(line) as { repeated: number; repeatedWithinS: number; delay: number; msg: string });
    expect(warnings[0]).toBe(SLOW_VAD(1));
    // One line per 10 s of flood: the first, then a summary at the end of each window.
    expect(warnings.length).toBe(1 + Math.ceil((FLOOD * 32) / 10_000));
    expect(summaries.every((s) => s.msg === 'VAD inference is slower than realtime' && s.repeatedWithinS === 10)).toBe(true);
    expect(summaries.reduce((n, s) => n + s.repeated, 0)).toBe(FLOOD - 1);
    // Each summary carries the last line it held (its delay), and the last one the flood's last.
    expect(summaries.at(-1)!.delay).toBe(FLOOD);
    // Other lines pass untouched, in order.
    expect(written.filter((line) => line.includes('turn report'))).toHaveLength(Math.floor(FLOOD / 25));
  });

  it('lets the next warning through at once after a quiet window, and sums up what it held when the window ends', () => {
    const { stream, written } = sink();
    guardLogOutput(stream, { windowMs: 1000 });
    stream.write(SLOW_VAD(1));
    vi.advanceTimersByTime(5000);
    stream.write(SLOW_VAD(2));
    stream.write(SLOW_VAD(3));
    expect(written).toEqual([SLOW_VAD(1), SLOW_VAD(2)]);
    vi.advanceTimersByTime(1000);
    expect(JSON.parse(written[2]!)).toMatchObject({ delay: 3, repeated: 1, repeatedWithinS: 1 });
  });

  it('holds back only the flooding lines of a chunk of several, and calls a held write\'s callback', async () => {
    const { stream, written } = sink();
    guardLogOutput(stream);
    stream.write(SLOW_VAD(1));
    stream.write(`{"msg":"a"}\n${SLOW_VAD(2)}{"msg":"b"}\n`);
    expect(written).toEqual([SLOW_VAD(1), '{"msg":"a"}\n{"msg":"b"}\n']);
    const done = vi.fn();
    expect(stream.write(SLOW_VAD(3), done)).toBe(true);
    await new Promise<void>((resolve) => process.nextTick(resolve));
    expect(done).toHaveBeenCalledOnce();
  });

  it('keeps a pretty (non-JSON) line readable in its summary', () => {
    const { stream, written } = sink();
    guardLogOutput(stream, { windowMs: 1000 });
    for (let i = 0; i < 5; i += 1) stream.write('WARN: VAD inference is slower than realtime\n');
    vi.advanceTimersByTime(1000);
    expect(written).toEqual(['WARN: VAD inference is slower than realtime\n', 'WARN: VAD inference is slower than realtime (repeated 4 times within 1 s)\n']);
  });
});

describe('RepeatLimiter.flush', () => {
  it('writes the summary of what it holds (at exit) and nothing more when the window ends', () => {
    vi.useFakeTimers();
    try {
      const emitted: string[] = [];
      const limiter = new RepeatLimiter({ windowMs: 1000, emit: (line) => emitted.push(line) });
      expect([1, 2, 3].map((i) => limiter.admit(SLOW_VAD(i)))).toEqual([true, false, false]);
      limiter.flush();
      vi.advanceTimersByTime(5000);
      expect(emitted.map((line) => JSON.parse(line) as unknown)).toEqual([{ ...JSON.parse(SLOW_VAD(3)), repeated: 2, repeatedWithinS: 1 }]);
      expect(limiter.admit(SLOW_VAD(4))).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
