/**
 * The fakes' `/_control/*` routes, called from inside the namespace (they bind its 127.0.0.1).
 * Bounded: a fake that does not answer in 5 s fails the turn rather than hanging the run.
 */
export interface OpenAIStats {
  chatRequests: number;
  /** Each chat request's reply text, in order of arrival. */
  chatReplies: string[];
  transcriptsQueued: number;
  utterances: Array<{ source: string; durationMs: number; rms: number; transcript: string }>;
}

async function call(url: string, body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

export class Control {
  readonly #openai: string;
  readonly #cartesia: string;

  /** `openaiUrl` as the stack reports it (`…/v1`); `cartesiaUrl` its base. */
  constructor(openaiUrl: string, cartesiaUrl: string) {
    this.#openai = openaiUrl.replace(/\/v1\/?$/, '');
    this.#cartesia = cartesiaUrl.replace(/\/$/, '');
  }

  /**
   * The next committed utterance's transcript. Also the default for an unexpected extra commit
   * (an utterance split in two), so a split never answers with another scenario's reply.
   */
  async expect(transcript: string): Promise<void> {
    await call(`${this.#openai}/_control/options`, { defaultTranscript: transcript });
    await call(`${this.#openai}/_control/transcripts`, [transcript]);
  }

  openaiStats(): Promise<OpenAIStats> {
    return call(`${this.#openai}/_control/stats`) as Promise<OpenAIStats>;
  }

  /** How many pieces the Cartesia fake has voiced so far (its audible voice logs each with its tone). */
  async cartesiaVoicedCount(): Promise<number> {
    const stats = (await call(`${this.#cartesia}/_control/stats`)) as { voiced: number };
    return stats.voiced;
  }

  /** The pieces voiced after the first `since`, with their tones. */
  async cartesiaVoicedSince(since: number): Promise<Array<{ transcript: string; hz: number }>> {
    const body = (await call(`${this.#cartesia}/_control/voiced?since=${since}`)) as { voiced: Array<{ transcript: string; hz: number }> };
    return body.voiced;
  }

  async cartesiaOptions(patch: Record<string, unknown>): Promise<void> {
    await call(`${this.#cartesia}/_control/options`, patch);
  }
}
