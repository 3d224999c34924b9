/**
 * A suite that needs something from the machine (Chromium, a network interface): in CI its
 * absence is a failing test that names it — a skip there would hide a missing install step —
 * and elsewhere the suite is skipped with one loud line saying what to install.
 */
import { it } from 'vitest';

/** Returns whether the suite can run; call it while the file is collected. */
export function requireForSuite(suite: string, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  if (process.env.CI) {
    it(`has what ${suite} needs (CI)`, () => {
      throw new Error(`[${suite}] ${missing}`);
    });
  } else {
    console.warn(`[${suite}] SKIPPED: ${missing}`);
  }
  return false;
}
