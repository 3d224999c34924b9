/**
 * The recent conversation a job keeps where it outlives the job's process: its agent
 * participant's attributes on the LiveKit server. When the process dies, the worker reads it from
 * the dead agent (./recover.ts) and hands it to the agent that resumes the call.
 *
 * Bounded so that one attribute stays small next to LiveKit's limits: the last
 * {@link HISTORY_MAX_TURNS} messages, each cut to {@link HISTORY_MAX_CHARS} characters, and the
 * whole encoding under {@link HISTORY_MAX_BYTES} bytes (oldest dropped first). What is lost:
 * older turns, the tail of long messages, tool calls, and whatever was said after the last
 * message was committed (a reply cut off by the death itself).
 */
import { llm } from '@livekit/agents';
import { z } from 'zod';

/** The agent participant's attribute that holds the history. */
export const HISTORY_ATTRIBUTE = 'firstword.history';
export const HISTORY_MAX_TURNS = 8;
export const HISTORY_MAX_CHARS = 400;
export const HISTORY_MAX_BYTES = 4096;

export const historyTurnSchema = z.object({
  role: z.enum(['user', 'assistant']),
  text: z.string().min(1).max(HISTORY_MAX_CHARS),
});
export type HistoryTurn = z.infer<typeof historyTurnSchema>;
export const historySchema = z.array(historyTurnSchema).max(HISTORY_MAX_TURNS);

/** Cut by code points, never through a surrogate pair (Korean, emoji). */
function cut(text: string, max: number): string {
  const chars = [...text.trim()];
  return chars.length <= max ? chars.join('') : chars.slice(0, max).join('');
}

/** The newest turns that fit every bound; empty texts are dropped. */
export function boundHistory(turns: readonly HistoryTurn[]): HistoryTurn[] {
  const kept = turns
    .map((t) => ({ role: t.role, text: cut(t.text, HISTORY_MAX_CHARS) }))
    .filter((t) => t.text.length > 0)
    .slice(-HISTORY_MAX_TURNS);
  while (kept.length > 0 && Buffer.byteLength(JSON.stringify(kept)) > HISTORY_MAX_BYTES) kept.shift();
  return kept;
}

export function encodeHistory(turns: readonly HistoryTurn[]): string {
  return JSON.stringify(boundHistory(turns));
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

/** A stored history, checked; the error says what was wrong (never the text itself). */
export function decodeHistory(raw: string | undefined): Decoded<HistoryTurn[]> {
  if (raw === undefined || raw === '') return { ok: true, value: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return { ok: false, error: `history is not JSON (${raw.length} characters)` };
  }
  const checked = historySchema.safeParse(parsed);
  if (!checked.success) return { ok: false, error: `history is malformed: ${z.prettifyError(checked.error).replace(/\s+/g, ' ')}` };
  return { ok: true, value: checked.data };
}

/** A chat message worth keeping as a turn: the caller's or the agent's words, not system text. */
export function turnOf(item: { type?: string; role?: string; textContent?: string }): HistoryTurn | undefined {
  if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) return undefined;
  const text = item.textContent?.trim();
  return text ? { role: item.role, text } : undefined;
}

/** The chat context a resumed agent starts with. */
export function chatContextOf(turns: readonly HistoryTurn[]): llm.ChatContext {
  const ctx = llm.ChatContext.empty();
  for (const turn of turns) ctx.addMessage({ role: turn.role, content: turn.text });
  return ctx;
}
