import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dispatchedCaller } from '../../src/agent.js';
import { encodeResumeMetadata, isResumeDispatch, readDispatchMetadata } from '../../src/recovery/dispatch-metadata.js';
import { dispatchMetadata } from '../../src/web/rooms.js';

const history = [
  { role: 'user' as const, text: '내일 약국 몇 시에 열어요?' },
  { role: 'assistant' as const, text: '아홉 시에 열어요.' },
];

describe('a resumption dispatch\'s metadata', () => {
  it('keeps the first dispatch\'s metadata, so the resumed job waits for the same caller', () => {
    const metadata = encodeResumeMetadata({ id: 'AJ_dead', metadata: dispatchMetadata('caller-7') }, history);
    expect(isResumeDispatch(metadata)).toBe(true);
    const read = readDispatchMetadata(metadata);
    expect(read).toEqual({ original: '{"caller":"caller-7"}', resume: { resumeOf: 'AJ_dead', original: '{"caller":"caller-7"}', history } });
    expect(dispatchedCaller(read.original)).toBe('caller-7');
  });

  it('names the call\'s first dispatch after a second death', () => {
    const first = encodeResumeMetadata({ id: 'AJ_one', metadata: dispatchMetadata('caller-7') }, history);
    const second = readDispatchMetadata(encodeResumeMetadata({ id: 'AJ_two', metadata: first }, []));
    expect(second.original).toBe('{"caller":"caller-7"}');
    expect(second.resume?.resumeOf).toBe('AJ_two');
  });

  it('works for a dispatch that had no metadata', () => {
    const read = readDispatchMetadata(encodeResumeMetadata({ id: 'AJ_dead', metadata: '' }, []));
    expect(read.original).toBeUndefined();
    expect(read.resume?.history).toEqual([]);
    expect(dispatchedCaller(read.original)).toBeUndefined();
  });

  it('leaves every other metadata as it was, not a resumption', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json().filter((j) => !j.includes('resumeOf'))), (metadata) => {
        expect(isResumeDispatch(metadata)).toBe(false);
        expect(readDispatchMetadata(metadata)).toEqual({ original: metadata === '' ? undefined : metadata });
      }),
    );
    expect(readDispatchMetadata(undefined)).toEqual({ original: undefined });
  });

  it('reads a malformed resumption as a resumption without history, and says what was wrong', () => {
    const bad = readDispatchMetadata(JSON.stringify({ resumeOf: 'AJ_dead', original: '{"caller":"c"}', history: [{ role: 'user', text: 42 }] }));
    expect(bad.resume).toEqual({ resumeOf: 'AJ_dead', original: '{"caller":"c"}', history: [] });
    expect(bad.original).toBe('{"caller":"c"}');
    expect(bad.error).toMatch(/resume metadata is malformed.*history/);
    const noId = readDispatchMetadata(JSON.stringify({ resumeOf: 7 }));
    expect(noId.resume?.resumeOf).toBe('unknown');
    expect(noId.error).toMatch(/resumeOf/);
    expect(isResumeDispatch(JSON.stringify({ resumeOf: 7 }))).toBe(false);
  });
});
