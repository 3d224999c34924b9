// Generated from transcript.js's JSDoc by test/web/page-types.test.ts; do not edit.
// Regenerate: npx vitest run test/web/page-types.test.ts -u
export function speakerName(speaker: Speaker): "You" | "Agent" | "Someone";
export function createTranscript(): Transcript;
export function describeTranscription(info: StreamInfo, senderIdentity: string, room: RoomView): TranscriptionStream;
export function readTranscription(reader: TextReader, stream: TranscriptionStream, apply: (update: TranscriptUpdate) => void): Promise<void>;
export function createTranscriptView(list: HTMLOListElement | HTMLUListElement): {
    show(entry: TranscriptEntry): void;
    clear(): void;
};
export const TRANSCRIPTION_TOPIC: "lk.transcription";
export const SEGMENT_ATTRIBUTE: "lk.segment_id";
export const FINAL_ATTRIBUTE: "lk.transcription_final";
export const TRACK_ATTRIBUTE: "lk.transcribed_track_id";
export type Speaker = "user" | "agent" | "other";
export type Source = "speech" | "chat";
export type Delivery = "sending" | "sent" | "failed";
export type TranscriptEntry = {
    id: string;
    speaker: Speaker;
    name: string;
    text: string;
    final: boolean;
    source: Source;
    delivery: Delivery | null;
    order: number;
};
export type TranscriptUpdate = {
    id: string;
    speaker: Speaker;
    name?: string;
    text: string;
    mode: "replace" | "append";
    final: boolean;
    source?: Source;
    delivery?: Delivery;
};
export type Transcript = {
    apply(update: TranscriptUpdate): TranscriptEntry | null;
    setDelivery(id: string, delivery: Delivery): TranscriptEntry | null;
    entries(): TranscriptEntry[];
    clear(): void;
};
export type StreamInfo = {
    id: string;
    attributes?: Record<string, string>;
};
export type RoomView = {
    localIdentity: string;
    localTrackIds: Iterable<string>;
    agentIdentities: Iterable<string>;
};
export type TranscriptionStream = {
    id: string;
    speaker: Speaker;
    name: string;
    final: boolean;
    trackId: string | null;
};
export type TextReader = AsyncIterable<string> & {
    readAll(): Promise<string>;
};
