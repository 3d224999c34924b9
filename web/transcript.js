// @ts-check
/**
 * The conversation as the page shows it, built from the agent's `lk.transcription` text
 * streams and from what the user types.
 *
 * How the agent framework sends them (@livekit/agents room_io):
 * - the user's speech: one short stream per update, each carrying the whole text so far, with
 *   `lk.transcription_final` "false" for interim results and "true" for the final one; sent on
 *   behalf of the user (sender identity = the user, `lk.transcribed_track_id` = the user's
 *   microphone track);
 * - the agent's reply: one stream per segment carrying deltas as they are spoken; closing the
 *   stream ends the segment.
 * Both carry `lk.segment_id`; lines are merged by it and kept in order of first appearance.
 *
 * `createTranscript` and `describeTranscription` are pure; `readTranscription` takes any reader
 * with `readAll()` and async iteration; `createTranscriptView` renders into an `<ol>`.
 */

export const TRANSCRIPTION_TOPIC = 'lk.transcription';
export const SEGMENT_ATTRIBUTE = 'lk.segment_id';
export const FINAL_ATTRIBUTE = 'lk.transcription_final';
export const TRACK_ATTRIBUTE = 'lk.transcribed_track_id';

/**
 * @typedef {'user' | 'agent' | 'other'} Speaker
 * @typedef {'speech' | 'chat'} Source
 * @typedef {'sending' | 'sent' | 'failed'} Delivery
 * @typedef {{
 *   id: string,
 *   speaker: Speaker,
 *   name: string,
 *   text: string,
 *   final: boolean,
 *   source: Source,
 *   delivery: Delivery | null,
 *   order: number,
 * }} TranscriptEntry
 * @typedef {{
 *   id: string,
 *   speaker: Speaker,
 *   name?: string,
 *   text: string,
 *   mode: 'replace' | 'append',
 *   final: boolean,
 *   source?: Source,
 *   delivery?: Delivery,
 * }} TranscriptUpdate
 * @typedef {{
 *   apply(update: TranscriptUpdate): TranscriptEntry | null,
 *   setDelivery(id: string, delivery: Delivery): TranscriptEntry | null,
 *   entries(): TranscriptEntry[],
 *   clear(): void,
 * }} Transcript
 */

/** @param {Speaker} speaker */
export function speakerName(speaker) {
  return speaker === 'user' ? 'You' : speaker === 'agent' ? 'Agent' : 'Someone';
}

/**
 * The transcript model: lines keyed by segment id, in order of first appearance.
 *
 * - a new id starts a line; `append` adds to its text, `replace` sets it;
 * - a line is final once any update for it was final; a later interim update for a final line is
 *   stale (it arrived after the result it was a draft of) and is ignored, returning null;
 * - an update that would leave a new line empty (an agent stream's closing) creates no line.
 *
 * @returns {Transcript}
 */
export function createTranscript() {
  /** @type {Map<string, TranscriptEntry>} */
  const lines = new Map();
  let order = 0;

  return {
    apply(update) {
      const existing = lines.get(update.id);
      if (!existing) {
        if (update.text === '') return null;
        /** @type {TranscriptEntry} */
        const entry = {
          id: update.id,
          speaker: update.speaker,
          name: update.name ?? speakerName(update.speaker),
          text: update.text,
          final: update.final,
          source: update.source ?? 'speech',
          delivery: update.delivery ?? null,
          order: order++,
        };
        lines.set(entry.id, entry);
        return { ...entry };
      }
      if (existing.final && !update.final) return null;
      existing.text = update.mode === 'append' ? existing.text + update.text : update.text;
      existing.final = existing.final || update.final;
      if (update.delivery) existing.delivery = update.delivery;
      return { ...existing };
    },

    setDelivery(id, delivery) {
      const existing = lines.get(id);
      if (!existing) return null;
      existing.delivery = delivery;
      return { ...existing };
    },

    entries() {
      return [...lines.values()].sort((a, b) => a.order - b.order).map((entry) => ({ ...entry }));
    },

    clear() {
      lines.clear();
      order = 0;
    },
  };
}

/**
 * @typedef {{ id: string, attributes?: Record<string, string> }} StreamInfo
 * @typedef {{
 *   localIdentity: string,
 *   localTrackIds: Iterable<string>,
 *   agentIdentities: Iterable<string>,
 * }} RoomView
 * @typedef {{ id: string, speaker: Speaker, name: string, final: boolean, trackId: string | null }} TranscriptionStream
 */

/**
 * Whose words a `lk.transcription` stream carries. The transcribed track decides first (the
 * framework sends the user's transcript on the user's behalf, but should a server not honour
 * that, the track id still says it is the user's microphone); then the sender identity.
 *
 * @param {StreamInfo} info `reader.info`
 * @param {string} senderIdentity `participantInfo.identity` of the stream handler
 * @param {RoomView} room
 * @returns {TranscriptionStream}
 */
export function describeTranscription(info, senderIdentity, room) {
  const attributes = info.attributes ?? {};
  const trackId = attributes[TRACK_ATTRIBUTE] || null;
  const localTracks = new Set(room.localTrackIds);
  const agents = new Set(room.agentIdentities);
  /** @type {Speaker} */
  let speaker;
  if (trackId !== null && localTracks.has(trackId)) speaker = 'user';
  else if (senderIdentity === room.localIdentity) speaker = 'user';
  else if (agents.has(senderIdentity)) speaker = 'agent';
  else speaker = 'other';
  return {
    id: attributes[SEGMENT_ATTRIBUTE] || info.id,
    speaker,
    name: speaker === 'other' ? senderIdentity : speakerName(speaker),
    final: attributes[FINAL_ATTRIBUTE] === 'true',
    trackId,
  };
}

/**
 * @typedef {AsyncIterable<string> & { readAll(): Promise<string> }} TextReader
 */

/**
 * Feeds one stream into the transcript: the user's streams hold the whole text (replace); the
 * agent's stream holds deltas (append) and its end makes the line final. Resolves when the
 * stream ends.
 *
 * @param {TextReader} reader
 * @param {TranscriptionStream} stream
 * @param {(update: TranscriptUpdate) => void} apply
 */
export async function readTranscription(reader, stream, apply) {
  const base = { id: stream.id, speaker: stream.speaker, name: stream.name, source: /** @type {const} */ ('speech') };
  if (stream.speaker === 'user') {
    apply({ ...base, text: await reader.readAll(), mode: 'replace', final: stream.final });
    return;
  }
  // a stream opened at flush time is marked final from the start
  for await (const chunk of reader) apply({ ...base, text: chunk, mode: 'append', final: stream.final });
  apply({ ...base, text: '', mode: 'append', final: true });
}

/**
 * Renders entries into a list: one `<li>` per line with `data-speaker`, `data-segment-id`,
 * `data-final`, `data-source` (and `data-delivery` for typed lines) for tests to read.
 *
 * @param {HTMLOListElement | HTMLUListElement} list
 * @returns {{ show(entry: TranscriptEntry): void, clear(): void }}
 */
export function createTranscriptView(list) {
  /** @type {Map<string, HTMLLIElement>} */
  const items = new Map();
  const doc = list.ownerDocument;
  return {
    show(entry) {
      // follow the conversation unless the reader has scrolled up to read back
      const following = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
      let item = items.get(entry.id);
      if (!item) {
        item = doc.createElement('li');
        const who = doc.createElement('span');
        who.className = 'speaker';
        const text = doc.createElement('span');
        text.className = 'text';
        item.append(who, text);
        items.set(entry.id, item);
        list.append(item);
      }
      item.className = entry.speaker;
      item.classList.toggle('interim', !entry.final);
      item.dataset.speaker = entry.speaker;
      item.dataset.segmentId = entry.id;
      item.dataset.final = String(entry.final);
      item.dataset.source = entry.source;
      if (entry.delivery) item.dataset.delivery = entry.delivery;
      else delete item.dataset.delivery;
      /** @type {HTMLElement} */ (item.firstElementChild).textContent = `${entry.name}:`;
      /** @type {HTMLElement} */ (item.lastElementChild).textContent =
        entry.delivery === 'failed' ? `${entry.text} (not sent)` : entry.text;
      if (following) list.scrollTop = list.scrollHeight;
    },
    clear() {
      items.clear();
      list.replaceChildren();
    },
  };
}
