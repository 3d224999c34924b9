/**
 * A suite that needs something from the machine (Chromium, livekit-server, the peers' venv, a
 * network interface): its absence is a failing test that names it and says how to install it,
 * never a skip. A skip would turn a run that did not test what CI tests into a green one.
 * `npm test` installs these first (scripts/ensure-test-components.sh).
 */
import { it } from 'vitest';

/** Returns whether the suite can run; call it while the file is collected. */
export function requireForSuite(suite: string, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  it(`has what ${suite} needs`, () => {
    throw new Error(`[${suite}] ${missing}`);
  });
  return false;
}
