import { log } from '@livekit/agents';
import type { z } from 'zod';

/** A changed message shape is worth one line per interval, not one per frame. */
const REPORT_INTERVAL_MS = 10_000;

/**
 * Validates decoded provider JSON against the codec's schema. A message that is valid JSON but
 * not a shape we know is reported (rate-limited per message type) and skipped: without the line,
 * a provider changing a field shows up only as seconds of silence. The report names the message
 * type and which fields failed, never their values (payloads carry customer text and audio).
 */
export function createMessageParser<S extends z.ZodType>(provider: string, schema: S): (value: unknown) => z.output<S> | undefined {
  const reports = new Map<string, { at: number; suppressed: number }>();
  return (value) => {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const type = messageType(value);
    const now = Date.now();
    const last = reports.get(type);
    if (last && now - last.at < REPORT_INTERVAL_MS) {
      last.suppressed++;
      return undefined;
    }
    const issues = result.error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(message)'}: ${issue.code}`);
    log().warn(
      { provider, messageType: type, issues, alsoSkippedSinceLastReport: last?.suppressed ?? 0 },
      'provider message does not match its schema; skipped',
    );
    reports.set(type, { at: now, suppressed: 0 });
    return undefined;
  };
}

function messageType(value: unknown): string {
  if (typeof value !== 'object' || value === null || !('type' in value)) return '(no type)';
  const type = (value as { type: unknown }).type;
  return typeof type === 'string' && /^[\w.-]{1,40}$/.test(type) ? type : '(unusual type)';
}
