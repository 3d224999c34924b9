import { describe, expect, it } from 'vitest';
import {
  FINAL_ATTRIBUTE,
  SEGMENT_ATTRIBUTE,
  TRACK_ATTRIBUTE,
  type TextReader,
  type TranscriptUpdate,
  createTranscript,
  describeTranscription,
  readTranscription,
} from '../../web/transcript.js';

const update = (overrides: Partial<TranscriptUpdate> & Pick<TranscriptUpdate, 'id' | 'text'>): TranscriptUpdate => ({
  speaker: 'user',
  mode: 'replace',
  final: false,
  ...overrides,
});

/** A text stream reader as livekit-client hands it over: async iteration of deltas, or readAll. */
function reader(chunks: string[]): TextReader {
  return {
    async readAll() {
      return chunks.join('');
    },
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) {
        await Promise.resolve();
        yield chunk;
      }
    },
  };
}

const room = { localIdentity: 'alice', localTrackIds: ['TR_mic'], agentIdentities: ['agent-1'] };

describe('transcript model', () => {
  it('replaces an interim line by segment id and makes it final', () => {
    const transcript = createTranscript();
    transcript.apply(update({ id: 'S1', text: 'what is' }));
    transcript.apply(update({ id: 'S1', text: 'what is the weather' }));
    const final = transcript.apply(update({ id: 'S1', text: 'What is the weather?', final: true }));
    expect(final).toMatchObject({ id: 'S1', speaker: 'user', name: 'You', text: 'What is the weather?', final: true, source: 'speech' });
    expect(transcript.entries()).toHaveLength(1);
  });

  it('ignores an interim update that arrives after its final result', () => {
    const transcript = createTranscript();
    transcript.apply(update({ id: 'S1', text: 'Hello there.', final: true }));
    expect(transcript.apply(update({ id: 'S1', text: 'Hello th' }))).toBeNull();
    expect(transcript.entries()[0]).toMatchObject({ text: 'Hello there.', final: true });
  });

  it('appends agent deltas and keeps lines in order of first appearance', () => {
    const transcript = createTranscript();
    transcript.apply(update({ id: 'A1', speaker: 'agent', text: 'Hi, ', mode: 'append' }));
    transcript.apply(update({ id: 'U1', text: 'hello', final: true }));
    transcript.apply(update({ id: 'A1', speaker: 'agent', text: 'how can I help?', mode: 'append' }));
    transcript.apply(update({ id: 'A1', speaker: 'agent', text: '', mode: 'append', final: true }));
    expect(transcript.entries().map((e) => [e.id, e.speaker, e.name, e.text, e.final])).toEqual([
      ['A1', 'agent', 'Agent', 'Hi, how can I help?', true],
      ['U1', 'user', 'You', 'hello', true],
    ]);
  });

  it('creates no line for an empty update (an empty interim result, a stream closing)', () => {
    const transcript = createTranscript();
    expect(transcript.apply(update({ id: 'S1', text: '' }))).toBeNull();
    expect(transcript.apply(update({ id: 'A1', speaker: 'agent', text: '', mode: 'append', final: true }))).toBeNull();
    expect(transcript.entries()).toEqual([]);
  });

  it('tracks the delivery of typed lines and returns copies, not its own state', () => {
    const transcript = createTranscript();
    const line = transcript.apply(update({ id: 'chat-1', text: 'hi', final: true, source: 'chat', delivery: 'sending' }))!;
    line.text = 'changed outside';
    expect(transcript.setDelivery('chat-1', 'sent')).toMatchObject({ text: 'hi', delivery: 'sent', source: 'chat' });
    expect(transcript.setDelivery('nope', 'sent')).toBeNull();
    expect(transcript.entries()[0]!.delivery).toBe('sent');
  });

  it('starts over after clear()', () => {
    const transcript = createTranscript();
    transcript.apply(update({ id: 'S1', text: 'one', final: true }));
    transcript.clear();
    expect(transcript.entries()).toEqual([]);
    expect(transcript.apply(update({ id: 'S2', text: 'two' }))!.order).toBe(0);
  });
});

describe('describeTranscription', () => {
  const info = (attributes: Record<string, string>) => ({ id: 'stream-1', attributes });

  it("recognises the user's speech by sender identity", () => {
    const stream = describeTranscription(info({ [SEGMENT_ATTRIBUTE]: 'SG_1', [FINAL_ATTRIBUTE]: 'true' }), 'alice', room);
    expect(stream).toEqual({ id: 'SG_1', speaker: 'user', name: 'You', final: true, trackId: null });
  });

  it("recognises the user's speech by the transcribed track even when the agent sends it", () => {
    const stream = describeTranscription(info({ [SEGMENT_ATTRIBUTE]: 'SG_2', [TRACK_ATTRIBUTE]: 'TR_mic' }), 'agent-1', room);
    expect(stream).toMatchObject({ speaker: 'user', trackId: 'TR_mic', final: false });
  });

  it("recognises the agent's reply, and names anyone else by identity", () => {
    const agent = describeTranscription(info({ [SEGMENT_ATTRIBUTE]: 'SG_3', [TRACK_ATTRIBUTE]: 'TR_agent' }), 'agent-1', room);
    expect(agent).toMatchObject({ speaker: 'agent', name: 'Agent' });
    expect(describeTranscription(info({}), 'bob', room)).toMatchObject({ speaker: 'other', name: 'bob' });
  });

  it('falls back to the stream id without a segment id, and to not final without the attribute', () => {
    expect(describeTranscription({ id: 'stream-9' }, 'alice', room)).toMatchObject({ id: 'stream-9', final: false });
  });
});

describe('readTranscription', () => {
  it('merges a conversation as the agent framework streams it', async () => {
    const transcript = createTranscript();
    const apply = (u: TranscriptUpdate) => void transcript.apply(u);
    const stream = (attributes: Record<string, string>, sender: string) => describeTranscription({ id: 'x', attributes }, sender, room);

    // greeting: one delta stream, closed at the end
    await readTranscription(reader(['Hello! ', 'How can I ', 'help?']), stream({ [SEGMENT_ATTRIBUTE]: 'A1', [FINAL_ATTRIBUTE]: 'false' }, 'agent-1'), apply);
    // the user: each update its own stream holding the whole text so far
    await readTranscription(reader(['What is']), stream({ [SEGMENT_ATTRIBUTE]: 'U1', [FINAL_ATTRIBUTE]: 'false' }, 'alice'), apply);
    expect(transcript.entries()[1]).toMatchObject({ text: 'What is', final: false });
    await readTranscription(reader(['What is the time?']), stream({ [SEGMENT_ATTRIBUTE]: 'U1', [FINAL_ATTRIBUTE]: 'true' }, 'alice'), apply);
    await readTranscription(reader(['It is ', 'noon.']), stream({ [SEGMENT_ATTRIBUTE]: 'A2', [FINAL_ATTRIBUTE]: 'false' }, 'agent-1'), apply);
    // a segment whose only text came at flush: one stream, marked final from the start
    await readTranscription(reader(['Anything else?']), stream({ [SEGMENT_ATTRIBUTE]: 'A3', [FINAL_ATTRIBUTE]: 'true' }, 'agent-1'), apply);

    expect(transcript.entries().map((e) => [e.speaker, e.text, e.final])).toEqual([
      ['agent', 'Hello! How can I help?', true],
      ['user', 'What is the time?', true],
      ['agent', 'It is noon.', true],
      ['agent', 'Anything else?', true],
    ]);
  });

  it('shows an agent line as interim while it streams', async () => {
    const transcript = createTranscript();
    const seen: boolean[] = [];
    const stream = describeTranscription({ id: 'x', attributes: { [SEGMENT_ATTRIBUTE]: 'A1' } }, 'agent-1', room);
    await readTranscription(reader(['one ', 'two']), stream, (u) => {
      const entry = transcript.apply(u);
      if (entry) seen.push(entry.final);
    });
    expect(seen).toEqual([false, false, true]);
  });
});
