/**
 * The metadata of a dispatch that resumes a call its agent could not carry on (its job process
 * died, or it lost the room): which job it takes over from, why, the dispatch metadata that job was
 * started with (the web page's `{"caller": identity}`, say), and the history recovered from it
 * (./history.ts).
 *
 *   {"resumeOf": "<job id>", "why": "<what ended it>", "original": "<its dispatch metadata>", "history": [...]}
 *
 * `resumeOf` marks a resumption: whatever screens dispatches (one agent per room, say) must let
 * it through, and {@link isResumeDispatch} is how to tell.
 */
import { z } from 'zod';
import { type HistoryTurn, boundHistory, historySchema } from './history.js';

/** The new job's log line when it takes over a call (the previous job's id and `why` are its fields). */
export const RESUMING_CALL = 'resuming a call its previous agent could not carry on';

const resumeSchema = z.object({
  resumeOf: z.string().min(1),
  why: z.string().max(200).optional(),
  original: z.string().optional(),
  history: historySchema,
});
export type ResumeMetadata = z.infer<typeof resumeSchema>;

/** What a job reads from its dispatch: the metadata as first given, and the resumption if any. */
export interface DispatchInfo {
  /** The metadata the call was first dispatched with (what `dispatchedCaller` reads). */
  original: string | undefined;
  resume?: ResumeMetadata;
  /** Set when the metadata claims a resumption but cannot be read: the call goes on without history. */
  error?: string;
}

function parsed(metadata: string | undefined): Record<string, unknown> | undefined {
  if (!metadata) return undefined;
  try {
    const value: unknown = JSON.parse(metadata);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The resumption's metadata. A dead job that was itself resuming passes on its own original
 * metadata, so a second death still names the call's first dispatch.
 */
export function encodeResumeMetadata(deadJob: { id: string; metadata: string | undefined }, history: readonly HistoryTurn[], why?: string): string {
  const { original } = readDispatchMetadata(deadJob.metadata);
  const value: ResumeMetadata = { resumeOf: deadJob.id, ...(why ? { why } : {}), ...(original ? { original } : {}), history: boundHistory(history) };
  return JSON.stringify(value);
}

export function isResumeDispatch(metadata: string | undefined): boolean {
  return typeof parsed(metadata)?.resumeOf === 'string';
}

export function readDispatchMetadata(metadata: string | undefined): DispatchInfo {
  const object = parsed(metadata);
  if (!object || !('resumeOf' in object)) return { original: metadata || undefined };
  const checked = resumeSchema.safeParse(object);
  if (checked.success) return { original: checked.data.original, resume: checked.data };
  // Readable in part: still a resumption (the greeting says so), with no history.
  const original = typeof object.original === 'string' ? object.original : undefined;
  const resumeOf = typeof object.resumeOf === 'string' && object.resumeOf ? object.resumeOf : 'unknown';
  return { original, resume: { resumeOf, ...(original ? { original } : {}), history: [] }, error: `resume metadata is malformed: ${z.prettifyError(checked.error).replace(/\s+/g, ' ')}` };
}
