/**
 * Which reply a chat request gets: the first script entry whose `match` fits the last user
 * message, else the default reply in the user's language. Also the JSON form of a script, for
 * `POST /_control/script` and `--script file.json` (a RegExp travels as `{regex, flags}`).
 */
import { z } from 'zod';
import { containsHangul } from '@firstword/agents-plugin-tts/chunking';
import { type ReplyTrace, plainTrace, traceProblem } from './tokenize.js';

export interface ScriptEntry {
  /** A string matches as a case-insensitive substring; a RegExp is tested as it is. */
  match: string | RegExp;
  /** Plain text (tokenized and paced by the timing options) or an exact token trace. */
  reply: string | ReplyTrace;
}

export interface DefaultReplies {
  /** When the last user message contains Hangul. */
  ko: string;
  en: string;
}

export const DEFAULT_REPLIES: DefaultReplies = {
  ko: '네, 말씀하신 내용을 확인했어요. 더 궁금한 점이 있으면 편하게 물어봐 주세요.',
  en: 'Sure, I can help with that. Let me know if there is anything else you would like to ask.',
};

export function matches(match: string | RegExp, text: string): boolean {
  if (typeof match === 'string') return text.toLowerCase().includes(match.toLowerCase());
  match.lastIndex = 0; // a /g or /y RegExp keeps state between tests
  return match.test(text);
}

export interface SelectedReply {
  trace: ReplyTrace;
  /** Index of the script entry used, or -1 for the default reply. */
  scriptIndex: number;
}

export function selectReply(
  lastUserText: string,
  script: readonly ScriptEntry[],
  defaults: DefaultReplies,
  timing: { firstTokenDelayMs: number; tokensPerSecond: number },
): SelectedReply {
  const scriptIndex = script.findIndex((entry) => matches(entry.match, lastUserText));
  const reply = scriptIndex >= 0 ? script[scriptIndex]!.reply : containsHangul(lastUserText) ? defaults.ko : defaults.en;
  return { trace: typeof reply === 'string' ? plainTrace(reply, timing) : reply, scriptIndex };
}

/** The text of the last `user` message: string content, or its text parts joined. */
export function lastUserText(messages: readonly { role: string; content?: unknown }[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (Array.isArray(message.content)) {
      return message.content
        .map((part: unknown) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
        .join('');
    }
    return '';
  }
  return '';
}

const traceSchema = z.strictObject({
  tokens: z.array(z.strictObject({ text: z.string(), atMs: z.number().finite().nonnegative() })),
});

const entrySchema = z.strictObject({
  match: z.union([z.string(), z.strictObject({ regex: z.string(), flags: z.string().optional() })]),
  reply: z.union([z.string(), traceSchema]),
});

/** `[entries]` or `{script:[entries]}`, as JSON. */
const scriptJsonSchema = z.union([z.array(entrySchema), z.strictObject({ script: z.array(entrySchema) })]);

export type ParseResult = { ok: true; script: ScriptEntry[] } | { ok: false; message: string };

/** Validates a script in its JSON form and builds the RegExps. */
export function parseScriptJson(value: unknown): ParseResult {
  const parsed = scriptJsonSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `invalid script: ${parsed.error.issues[0]?.message ?? 'bad shape'} at ${parsed.error.issues[0]?.path.join('.')}` };
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.script;
  const script: ScriptEntry[] = [];
  for (const [i, entry] of entries.entries()) {
    let match: string | RegExp;
    if (typeof entry.match === 'string') match = entry.match;
    else {
      try {
        match = new RegExp(entry.match.regex, entry.match.flags);
      } catch (error) {
        return { ok: false, message: `invalid script: entry ${i}: ${(error as Error).message}` };
      }
    }
    const problem = typeof entry.reply === 'string' ? undefined : traceProblem(entry.reply);
    if (problem) return { ok: false, message: `invalid script: entry ${i}: ${problem}` };
    script.push({ match, reply: entry.reply });
  }
  return { ok: true, script };
}

/** Throws on a trace that cannot be replayed (the in-process API's validation). */
export function assertScript(script: readonly ScriptEntry[]): void {
  for (const [i, entry] of script.entries()) {
    const problem = typeof entry.reply === 'string' ? undefined : traceProblem(entry.reply);
    if (problem) throw new Error(`script entry ${i}: ${problem}`);
  }
}
