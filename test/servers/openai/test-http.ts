/** Raw HTTP for wire-level tests of the local OpenAI server: bounded fetches and an SSE reader. */
import { withTimeout } from '../../helpers/async.js';

export function postChat(
  baseUrl: string,
  body: unknown,
  { key = 'test-key', signal, raw }: { key?: string | null; signal?: AbortSignal; raw?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  return withTimeout(fetch(`${baseUrl}/chat/completions`, { method: 'POST', headers, body: raw ?? JSON.stringify(body), signal }), 5000, 'chat response headers');
}

/** The `data:` payloads of an SSE body, read to its end (bounded). */
export async function readSse(res: Response, timeoutMs = 5000): Promise<string[]> {
  const text = await withTimeout(res.text(), timeoutMs, 'SSE body');
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      if (!block.startsWith('data: ')) throw new Error(`not an SSE data event: ${JSON.stringify(block)}`);
      return block.slice('data: '.length);
    });
}

export async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await withTimeout(fetch(url, init), 5000, `${init.method ?? 'GET'} ${url}`);
  return { status: res.status, body: await withTimeout(res.json(), 5000, 'JSON body') };
}

export function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  return getJson(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
