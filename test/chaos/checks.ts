/**
 * Invariants over what a turn played, read from the tagged audio: every sample's magnitude names
 * the text that produced it (test/servers/audio-tag.ts). Each check returns a problem description
 * or undefined, so the test can assert with context and the soak can count.
 */

export interface Run {
  tag: number;
  samples: number;
}

export { heardRuns } from '../servers/audio-tag.js';

/** First occurrence order: a text re-sent by a retry is still one chunk. */
export function distinctInOrder(texts: readonly string[]): string[] {
  return [...new Set(texts)];
}

/**
 * The runs a turn should play: each distinct text once, in order. Adjacent texts that happen to
 * share a tag (1 in 30,000) merge, exactly as they would in the heard audio.
 */
export function expectedRuns(texts: readonly string[], tagOf: (t: string) => number, samplesOf: (t: string) => number): Run[] {
  const runs: Run[] = [];
  for (const text of distinctInOrder(texts)) {
    const tag = tagOf(text);
    const samples = samplesOf(text);
    const last = runs[runs.length - 1];
    if (last && last.tag === tag) last.samples += samples;
    else runs.push({ tag, samples });
  }
  return runs;
}

const show = (runs: Run[]) => runs.map((r) => `${r.tag}×${r.samples}`).join(' ');

/** Every expected run heard whole, once, in order — and nothing else. */
export function checkComplete(heard: Run[], expected: Run[]): string | undefined {
  if (heard.length === expected.length && heard.every((r, i) => r.tag === expected[i]!.tag && r.samples === expected[i]!.samples)) {
    return undefined;
  }
  return `heard [${show(heard)}] but expected [${show(expected)}]`;
}

/**
 * An interrupted or failed turn: what was heard is a prefix of the expected runs — whole runs in
 * order, the last one possibly cut short — never a repeat, a skip or a foreign sample.
 */
export function checkPrefix(heard: Run[], expected: Run[]): string | undefined {
  const bad = () => `heard [${show(heard)}] is not a prefix of [${show(expected)}]`;
  if (heard.length > expected.length) return bad();
  for (let i = 0; i < heard.length; i++) {
    const h = heard[i]!;
    const e = expected[i]!;
    if (h.tag !== e.tag) return bad();
    const last = i === heard.length - 1;
    if (last ? h.samples > e.samples : h.samples !== e.samples) return bad();
  }
  return undefined;
}

/** No sample from any text this turn did not send (stale audio of an earlier turn, or another stream's). */
export function checkOwnOnly(heard: Run[], ownTags: ReadonlySet<number>): string | undefined {
  const foreign = heard.filter((r) => !ownTags.has(r.tag));
  if (!foreign.length) return undefined;
  return `${foreign.reduce((n, r) => n + r.samples, 0)} foreign samples: [${show(foreign)}]`;
}
