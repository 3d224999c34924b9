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
  /**
   * Also required: a message before the last user message (the conversation so far) matches
   * this, as `match` does. A reply can so tell whether the model was sent the history.
   */
  earlier?: string | RegExp;
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
  earlierTexts: readonly string[] = [],
): SelectedReply {
  const fits = (entry: ScriptEntry) =>
    matches(entry.match, lastUserText) && (entry.earlier === undefined || earlierTexts.some((text) => matches(entry.earlier!, text)));
  const scriptIndex = script.findIndex(fits);
  const reply = scriptIndex >= 0 ? script[scriptIndex]!.reply : containsHangul(lastUserText) ? defaults.ko : defaults.en;
  return { trace: typeof reply === 'string' ? plainTrace(reply, timing) : reply, scriptIndex };
}

type Message = { role: string; content?: unknown };

/** A message's text: string content, or its text parts joined. */
function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) {
    return message.content
      .map((part: unknown) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
      .join('');
  }
  return '';
}

const lastUserIndex = (messages: readonly Message[]) => messages.findLastIndex((message) => message.role === 'user');

/** The text of the last `user` message: string content, or its text parts joined. */
export function lastUserText(messages: readonly Message[]): string {
  const i = lastUserIndex(messages);
  return i < 0 ? '' : textOf(messages[i]!);
}

/** The texts of the user and assistant messages before the last user message. */
export function earlierTexts(messages: readonly Message[]): string[] {
  return messages.slice(0, Math.max(0, lastUserIndex(messages))).filter((m) => m.role === 'user' || m.role === 'assistant').map(textOf);
}

const traceSchema = z.strictObject({
  tokens: z.array(z.strictObject({ text: z.string(), atMs: z.number().finite().nonnegative() })),
});

const matchSchema = z.union([z.string(), z.strictObject({ regex: z.string(), flags: z.string().optional() })]);

const entrySchema = z.strictObject({
  match: matchSchema,
  reply: z.union([z.string(), traceSchema]),
  earlier: matchSchema.optional(),
});

/** `[entries]` or `{script:[entries]}`, as JSON. */
const scriptJsonSchema = z.union([z.array(entrySchema), z.strictObject({ script: z.array(entrySchema) })]);

export type ParseResult = { ok: true; script: ScriptEntry[] } | { ok: false; message: string };

const toMatch = (match: z.infer<typeof matchSchema>): string | RegExp => (typeof match === 'string' ? match : new RegExp(match.regex, match.flags));

/** Validates a script in its JSON form and builds the RegExps. */
export function parseScriptJson(value: unknown): ParseResult {
  const parsed = scriptJsonSchema.safeParse(value);
  if (!parsed.success) return { ok: false, message: `invalid script: ${parsed.error.issues[0]?.message ?? 'bad shape'} at ${parsed.error.issues[0]?.path.join('.')}` };
  const entries = Array.isArray(parsed.data) ? parsed.data : parsed.data.script;
  const script: ScriptEntry[] = [];
  for (const [i, entry] of entries.entries()) {
    let match: string | RegExp;
    let earlier: string | RegExp | undefined;
    try {
      match = toMatch(entry.match);
      earlier = entry.earlier === undefined ? undefined : toMatch(entry.earlier);
    } catch (error) {
      return { ok: false, message: `invalid script: entry ${i}: ${(error as Error).message}` };
    }
    const problem = typeof entry.reply === 'string' ? undefined : traceProblem(entry.reply);
    if (problem) return { ok: false, message: `invalid script: entry ${i}: ${problem}` };
    script.push({ match, reply: entry.reply, ...(earlier === undefined ? {} : { earlier }) });
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
