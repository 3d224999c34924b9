/**
 * `POST /v1/chat/completions`. Streamed: headers at once, then the role chunk together with the
 * first token at its `atMs`, one content chunk per token, the `finish_reason: 'stop'` chunk right
 * after the last token, the usage chunk when asked for, `data: [DONE]`. Not streamed: one
 * `chat.completion` when the last token would have been generated.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { ChunkFactory, completion, sse, usageOf } from './chat-chunks.js';
import { type ChatRequest, parseChatRequest } from './chat-request.js';
import { httpErrors } from './errors.js';
import { BodyTooLarge, newRequestId, parseJson, readBody, sendError, sendJson } from './http.js';
import type { ChatRequestRecord, OpenAIServerOptions } from './options.js';
import { type Replay, replayTrace } from './replay.js';
import { earlierTexts, lastUserText, selectReply } from './script.js';
import { type ReplyTrace, tokenize, traceText } from './tokenize.js';

const BODY_LIMIT = 8 * 1024 * 1024;

export interface ChatHooks {
  options(): OpenAIServerOptions;
  record(request: ChatRequestRecord): void;
  /** Registers a running reply so `close()` can cancel it; returns the unregister function. */
  track(replay: Replay): () => void;
}

function promptTokens(messages: ChatRequest['messages']): number {
  let count = 0;
  for (const message of messages) {
    count += 4; // per-message framing, as OpenAI counts it
    if (typeof message.content === 'string') count += tokenize(message.content).length;
    else if (Array.isArray(message.content)) {
      for (const part of message.content as { text?: unknown }[]) if (typeof part?.text === 'string') count += tokenize(part.text).length;
    }
  }
  return count;
}

export async function serveChat(req: IncomingMessage, res: ServerResponse, hooks: ChatHooks): Promise<void> {
  const arrivedAt = performance.now();
  const receivedAt = Date.now();
  const requestId = newRequestId();
  let body: Buffer;
  try {
    body = await readBody(req, BODY_LIMIT);
  } catch (error) {
    if (error instanceof BodyTooLarge) return sendError(res, httpErrors.tooLarge(BODY_LIMIT), requestId);
    res.destroy();
    return;
  }
  const json = parseJson(body);
  if (!json.ok) return sendError(res, httpErrors.badJson(), requestId);
  const parsed = parseChatRequest(json.value);
  if (!parsed.ok) return sendError(res, parsed.error, requestId);
  const request = parsed.request;

  const options = hooks.options();
  const userText = lastUserText(request.messages);
  const { trace, scriptIndex } = selectReply(userText, options.script, options.defaultReplies, options, earlierTexts(request.messages));
  const record: ChatRequestRecord = {
    model: request.model,
    messages: request.messages,
    stream: request.stream,
    lastUserText: userText,
    reply: traceText(trace),
    scriptIndex,
    receivedAt,
    aborted: false,
  };
  hooks.record(record);
  const usage = usageOf(promptTokens(request.messages), trace.tokens.length);

  let finished = false;
  let replay: Replay | undefined;
  let untrack = (): void => {};
  res.on('close', () => {
    if (finished) return;
    record.aborted = true;
    replay?.cancel();
    untrack();
  });
  const finish = (): void => {
    finished = true;
    untrack();
  };

  if (!request.stream) {
    replay = replayTrace(trace, arrivedAt, () => {}, () => {
      finish();
      sendJson(res, 200, completion(request.model, record.reply, usage), requestId);
    });
    if (!finished) untrack = hooks.track(replay);
    return;
  }

  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': requestId,
    'openai-version': '2020-10-01',
    'openai-processing-ms': String(Math.round(performance.now() - arrivedAt)),
  });
  res.flushHeaders();
  streamTrace(res, trace, arrivedAt, new ChunkFactory(request.model, request.includeUsage, request.includeObfuscation && options.obfuscation), {
    usage: request.includeUsage ? usage : undefined,
    onStart: (started) => {
      replay = started;
      untrack = hooks.track(started);
    },
    onDone: finish,
  });
}

function streamTrace(
  res: ServerResponse,
  trace: ReplyTrace,
  arrivedAt: number,
  chunks: ChunkFactory,
  hooks: { usage?: ReturnType<typeof usageOf>; onStart(replay: Replay): void; onDone(): void },
): void {
  let roleSent = false;
  const sendRole = (): string => {
    if (roleSent) return '';
    roleSent = true;
    return sse(chunks.role());
  };
  let done = false;
  const replay = replayTrace(
    trace,
    arrivedAt,
    (tokens) => {
      res.write(sendRole() + tokens.map((token) => sse(chunks.content(token.text))).join(''));
    },
    () => {
      done = true;
      hooks.onDone();
      res.end(sendRole() + sse(chunks.stop()) + (hooks.usage ? sse(chunks.usage(hooks.usage)) : '') + sse('[DONE]'));
    },
  );
  if (!done) hooks.onStart(replay);
}
