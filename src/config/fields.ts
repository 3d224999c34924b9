/**
 * Builders for environment variables: each turns the raw string (or its absence) into a typed
 * value or a message that completes the sentence "<VARIABLE> …". Blank counts as unset everywhere
 * (`KEY=` in a .env file means "use the default", not "set to nothing").
 */
import { z } from 'zod';

function blankToUndefined(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export const text = () => z.preprocess(blankToUndefined, z.string().optional());

/** Free text with an upper bound (a greeting spoken to callers). */
export const boundedText = (max: number, why: string) =>
  z.preprocess(blankToUndefined, z.string().max(max, { error: why }).optional());

export const pattern = (re: RegExp, why: string) =>
  z.preprocess(blankToUndefined, z.string().regex(re, { error: why }).optional());

/** Case-insensitive choice among fixed values. */
export const choice = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess(
    (value) => {
      const cleaned = blankToUndefined(value);
      return typeof cleaned === 'string' ? cleaned.toLowerCase() : cleaned;
    },
    z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional(),
  );

export const onOff = () => choice(['on', 'off'] as const);

export const wholeNumber = (min: number, max: number, unit: string) => {
  const why = `must be a whole number of ${unit} from ${min} to ${max}`;
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+$/, { error: why })
      .transform(Number)
      .refine((n) => n >= min && n <= max, { error: why })
      .optional(),
  );
};

/** A whole number in a range, or `off` (any case): `'off'` or the number. */
export const wholeNumberOrOff = (min: number, max: number, unit: string) => {
  const why = `must be a whole number of ${unit} from ${min} to ${max}, or off`;
  return z.preprocess(
    (value) => {
      const cleaned = blankToUndefined(value);
      return typeof cleaned === 'string' ? cleaned.toLowerCase() : cleaned;
    },
    z
      .string()
      .regex(/^(\d+|off)$/, { error: why })
      .transform((v) => (v === 'off' ? ('off' as const) : Number(v)))
      .refine((v) => v === 'off' || (v >= min && v <= max), { error: why })
      .optional(),
  );
};

/** A whole number from a fixed list (sample rates). */
export const oneOfNumbers = <T extends number>(values: readonly T[], unit: string) => {
  const why = `must be one of ${values.join(', ')} (${unit})`;
  return z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^\d+$/, { error: why })
      .transform(Number)
      .refine((n): n is T => (values as readonly number[]).includes(n), { error: why })
      .optional(),
  );
};

export const url = (schemes: readonly string[]) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .refine(
        (value) => {
          try {
            return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
          } catch {
            return false;
          }
        },
        { error: `must be a URL starting with ${schemes.map((s) => `${s}://`).join(', ')}` },
      )
      .optional(),
  );

/** `a, b ,c` → `['a','b','c']`; empty entries dropped. */
function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** A comma-separated list whose every item matches `re`. */
export const list = (re: RegExp, why: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .transform(splitList)
      .pipe(z.array(z.string().regex(re, { error: why })).min(1, { error: 'list at least one entry' }))
      .optional(),
  );
