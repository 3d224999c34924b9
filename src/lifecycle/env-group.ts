import type { z } from 'zod';

/** A group of environment variables failed validation; the message names every one. */
export class EnvGroupError extends Error {
  readonly problems: readonly string[];

  constructor(group: string, problems: readonly string[]) {
    super(`Invalid ${group} configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnvGroupError';
    this.problems = problems;
  }
}

/**
 * Parses the variables one module owns. Empty strings count as unset (a blank line in
 * `.env` must mean "use the default"), and every problem is reported at once, each
 * under its variable name, so an operator fixes the file in one pass.
 */
export function parseEnvGroup<Schema extends z.ZodObject>(
  group: string,
  schema: Schema,
  env: Readonly<Record<string, string | undefined>>,
  /** Rules spanning several variables; run even when single-variable checks fail. */
  crossChecks: (input: Readonly<Record<string, string | undefined>>) => string[] = () => [],
): z.output<Schema> {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = env[key];
    input[key] = value === undefined || value.trim() === '' ? undefined : value.trim();
  }
  const result = schema.safeParse(input);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => {
        const variable = issue.path.length > 0 ? String(issue.path[0]) : group;
        return `${variable}: ${issue.message}`;
      });
  problems.push(...crossChecks(input));
  if (result.success && problems.length === 0) return result.data;
  throw new EnvGroupError(group, problems);
}

/** `a, b ,c` → `['a','b','c']`; empty entries dropped. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}
