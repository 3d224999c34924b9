/**
 * Node loads its fetch (`Headers`, `fetch`: the bundled undici) on first use, 40–50 ms of CPU. The
 * first use in a job process is the OpenAI client's first request, which the framework makes as
 * the session starts (its LLM prewarm): on the call's clock, beside joining the room. Loading it
 * while the process waits for a call takes that off.
 */
export function preloadFetch(): void {
  void globalThis.Headers;
}
