/** Reading `--flag value` command lines for the benchmark scripts: one reader, plain errors. */

/** A mistake on the command line: printed as is, with a pointer to --help. */
export class ArgsError extends Error {}

export interface FlagReader {
  /** The flag being read. */
  readonly flag: string;
  /** Its value (the next argument). */
  value(): string;
  /** Its value as a number in [min, max]. */
  num(min: number, max: number, integer?: boolean): number;
  /** Its value as scenario names: each given name, or a prefix of names (`ko` → every `ko-…`). */
  scenarios(known: readonly string[]): string[];
}

/** Calls `onFlag` for each flag of `argv`; stops early when it returns 'help'. */
export function readFlags(argv: readonly string[], onFlag: (read: FlagReader) => 'help' | void): 'help' | undefined {
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new ArgsError(`${flag} needs a value`);
      return v;
    };
    const reader: FlagReader = {
      flag,
      value,
      num(min, max, integer = false) {
        const raw = value();
        const n = Number(raw);
        if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
          throw new ArgsError(`${flag} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got ${JSON.stringify(raw)}`);
        }
        return n;
      },
      scenarios(known) {
        const wanted = value().split(',').map((s) => s.trim());
        const matches = (name: string, w: string) => name === w || name.startsWith(`${w}-`);
        const unknown = wanted.filter((w) => !known.some((n) => matches(n, w)));
        if (unknown.length) throw new ArgsError(`${flag}: unknown ${unknown.join(', ')} (known: ${known.join(', ')})`);
        return known.filter((n) => wanted.some((w) => matches(n, w)));
      },
    };
    if (onFlag(reader) === 'help') return 'help';
  }
  return undefined;
}
