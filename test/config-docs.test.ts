/**
 * `.env.example` documents exactly what the code reads: the one schema in src/config, plus the
 * few direct `process.env` reads left in src/ and the plugin package's source (the TTS plugin's
 * API-key fallback). A variable
 * added to the code without a line in `.env.example`, or a line left behind for a variable
 * nothing reads any more, fails here.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '@firstword/agents-plugin-tts/providers';
import { ENV_VARIABLES } from '../src/config/index.js';

const ROOT = resolve(import.meta.dirname, '..');
/** The plugin's key fallback reads `process.env[keyVariable]` of each provider's descriptor, here. */
const KEY_FALLBACK = join('packages', 'agents-plugin-tts', 'src', 'driver', 'options.ts');
const KEY_VARIABLES = Object.values(PROVIDERS).map((p) => p.keyVariable);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

function documented(): string[] {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  return [...text.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!);
}

/** `process.env.NAME` / `process.env['NAME']` outside the config module, by file. */
function directReads(): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  for (const file of [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'packages', 'agents-plugin-tts', 'src'))]) {
    const rel = relative(ROOT, file);
    if (rel.startsWith(join('src', 'config'))) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\]|\[)/g)) {
      const named = m[1] ?? m[2];
      const names = named ? [named] : rel === KEY_FALLBACK ? KEY_VARIABLES : [`<computed key in ${rel}>`];
      for (const name of names) reads.set(name, [...new Set([...(reads.get(name) ?? []), rel])]);
    }
  }
  return reads;
}

describe('.env.example and the code', () => {
  it('documents every variable the configuration reads, and nothing else', () => {
    const docs = new Set(documented());
    const read = new Set<string>([...ENV_VARIABLES, ...directReads().keys()]);
    expect([...read].filter((name) => !docs.has(name)), 'read but not in .env.example').toEqual([]);
    expect([...docs].filter((name) => !read.has(name)), 'in .env.example but read by nothing').toEqual([]);
  });

  it('documents each variable once', () => {
    const names = documented();
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });

  it('reads the environment only through src/config, except the plugin key fallback', () => {
    const outside = Object.fromEntries(directReads());
    expect(outside).toEqual({
      RESEMBLE_API_KEY: ['packages/agents-plugin-tts/src/driver/options.ts'],
      CARTESIA_API_KEY: ['packages/agents-plugin-tts/src/driver/options.ts'],
    });
  });
});
