/**
 * OpenAI's error shapes: `{error:{message,type,param,code}}` over HTTP, the same object inside a
 * realtime `error` event. Messages follow the wording OpenAI uses for these cases; clients only
 * rely on the status, `type` and `code`, so the exact prose is not part of the contract.
 */
import type { z } from 'zod';

export interface OpenAIError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export interface HttpError {
  status: number;
  error: OpenAIError;
}

function invalidRequest(status: number, message: string, param: string | null = null, code: string | null = null): HttpError {
  return { status, error: { message, type: 'invalid_request_error', param, code } };
}

/** Masks a key the way OpenAI echoes it back: first and last two characters. */
function maskKey(key: string): string {
  return key.length <= 4 ? '*'.repeat(key.length) : `${key.slice(0, 2)}${'*'.repeat(Math.min(key.length - 4, 20))}${key.slice(-2)}`;
}

export const httpErrors = {
  missingKey: () =>
    invalidRequest(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    ),
  invalidKey: (key: string) =>
    invalidRequest(401, `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key'),
  badJson: () =>
    invalidRequest(
      400,
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
    ),
  notFound: (method: string, path: string) => invalidRequest(404, `Invalid URL (${method} ${path})`),
  tooLarge: (limit: number) => invalidRequest(413, `Request body too large: the limit of this server is ${limit} bytes.`),
  invalid: (message: string, param: string | null, code: string | null = 'invalid_value') => invalidRequest(400, message, param, code),
};

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : type === 'number' && Number.isInteger(value) ? 'an integer' : `a ${type}`;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** `messages[0].content`, `session.audio.input.format.rate`: how OpenAI names a parameter. */
function paramName(path: PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${String(key)}` : String(key)), '');
}

/** The first zod issue, worded and coded as OpenAI words and codes the same mistake. */
export function describeIssue(error: z.ZodError, input: unknown, prefix: PropertyKey[] = []): { message: string; param: string; code: string } {
  const issue = error.issues[0]!;
  const path = [...prefix, ...(issue.path as PropertyKey[])];
  const param = paramName(path);
  const value = valueAt(input, issue.path as PropertyKey[]);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const unknown = paramName([...path, issue.keys[0]!]);
      return { message: `Unknown parameter: '${unknown}'.`, param: unknown, code: 'unknown_parameter' };
    }
    case 'invalid_type':
      if (value === undefined) return { message: `Missing required parameter: '${param}'.`, param, code: 'missing_required_parameter' };
      return {
        message: `Invalid type for '${param}': expected ${issue.expected === 'array' ? 'an array' : `a ${issue.expected}`}, but got ${typeName(value)} instead.`,
        param,
        code: 'invalid_type',
      };
    case 'invalid_value':
      return {
        message: `Invalid value: ${JSON.stringify(value)}. Supported values are: ${issue.values.map((v) => `'${String(v)}'`).join(', ')}.`,
        param,
        code: 'invalid_value',
      };
    default:
      return { message: `Invalid '${param}': ${issue.message}.`, param, code: 'invalid_value' };
  }
}
