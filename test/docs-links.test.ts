/**
 * The docs point at things that exist. In README.md, CHANGELOG.md, docs/**\/*.md and each
 * packages/*\/README.md, outside fenced code blocks (examples and commands, not references):
 * - every relative Markdown link resolves to a file or folder, from the document's own folder; an
 *   anchor (`file.md#heading`, `#heading`) names a heading of that Markdown file (GitHub's slugs);
 * - every inline-code span that is a repository path — it starts with src/, test/, scripts/,
 *   bench/, docs/, packages/ or patches/ and has no glob or placeholder character (`*`, `?`, `<`,
 *   `{`, `$`, spaces) — exists, from the repository root (in a package's README also from the
 *   package's folder). `:line` and `#symbol` tails are ignored. A path that is gone, for history,
 *   is written without backticks.
 * The rule is in docs/testing.md.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const REPO_PATH = /^(?:src|test|scripts|bench|docs|packages|patches)\//;
const NOT_A_PATH = /[*?<>{}$\s|]/;

interface Reference {
  /** doc:line, for the failure list. */
  where: string;
  target: string;
}

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return markdownUnder(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

function documents(): string[] {
  const packages = readdirSync(join(ROOT, 'packages')).map((name) => join('packages', name, 'README.md'));
  return ['README.md', 'CHANGELOG.md', ...markdownUnder('docs'), ...packages.filter((path) => existsSync(join(ROOT, path)))];
}

/** The lines of a Markdown text that are prose: fenced code blocks blanked out (line numbers kept). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || marker.startsWith(fence))) {
      fence = fence === undefined ? marker : undefined;
      return '';
    }
    return fence === undefined ? line : '';
  });
}

/** Inline-code spans of a prose line, without double-backtick spans' padding. */
function codeSpans(line: string): string[] {
  return [...line.matchAll(/(`+)(.+?)\1/g)].map((m) => m[2]!.trim());
}

function links(line: string): string[] {
  // Code spans may hold `[x](y)`-looking text: links are read from the rest.
  const prose = line.replace(/(`+).+?\1/g, '');
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

function repoPaths(line: string): string[] {
  return codeSpans(line)
    .filter((span) => REPO_PATH.test(span) && !NOT_A_PATH.test(span))
    .map((span) => span.replace(/[:#].*$/, '').replace(/[.,;]$/, ''));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

function collect(): { links: Reference[]; paths: Reference[] } {
  const found = { links: [] as Reference[], paths: [] as Reference[] };
  for (const doc of documents()) {
    proseLines(readFileSync(join(ROOT, doc), 'utf8')).forEach((line, i) => {
      const where = `${doc}:${i + 1}`;
      for (const target of links(line)) found.links.push({ where, target });
      for (const target of repoPaths(line)) found.paths.push({ where, target });
    });
  }
  return found;
}

function brokenLink(doc: string, target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  const file = path === '' ? join(ROOT, doc) : resolve(ROOT, dirname(doc), decodeURI(path));
  if (!existsSync(file)) return 'no such file or folder';
  if (anchor === undefined || anchor === '' || !file.endsWith('.md')) return undefined;
  return anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor).toLowerCase()) ? undefined : `no heading #${anchor} in ${relative(ROOT, file)}`;
}

function pathExists(doc: string, path: string): boolean {
  if (existsSync(join(ROOT, path))) return true;
  return doc.startsWith('packages/') && existsSync(join(ROOT, dirname(doc), path));
}

describe('the docs', () => {
  const found = collect();

  it('are all read: every document, and the references in them', () => {
    expect(documents()).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/architecture.md', 'docs/testing.md', 'packages/agents-plugin-tts/README.md']));
    // A parser that finds nothing would pass everything.
    expect(found.links.length).toBeGreaterThan(50);
    expect(found.paths.length).toBeGreaterThan(100);
  });

  it('link only to files, folders and headings that exist', () => {
    const broken = found.links.flatMap(({ where, target }) => {
      const why = brokenLink(where.slice(0, where.lastIndexOf(':')), target);
      return why ? [`${where} ${target}: ${why}`] : [];
    });
    expect(broken).toEqual([]);
  });

  it('name only repository paths that exist', () => {
    const missing = found.paths.filter(({ where, target }) => !pathExists(where.slice(0, where.lastIndexOf(':')), target)).map(({ where, target }) => `${where} ${target}`);
    expect(missing).toEqual([]);
  });
});

describe('what counts as a reference', () => {
  it('reads links and repository paths from prose, not from code blocks, globs or placeholders', () => {
    const text = [
      'See [the flow](docs/architecture.md#the-turn-flow), [web](https://example.com) and `src/stt/shared-vad.ts:12`.',
      '```sh',
      'npx vitest run test/not/here.test.ts [x](missing.md)',
      '```',
      'Globs and placeholders: `test/e2e/*`, `src/<module>/index.ts`, `docs/{a,b}.md`; a command: `npx vitest run test/x`.',
      '`[not](a-link.md)` and `packages/agents-plugin-tts/src/pcm/`.',
    ].join('\n');
    const lines = proseLines(text);
    expect(lines.flatMap(links)).toEqual(['docs/architecture.md#the-turn-flow']);
    expect(lines.flatMap(repoPaths)).toEqual(['src/stt/shared-vad.ts', 'packages/agents-plugin-tts/src/pcm/']);
  });

  it('makes GitHub anchors of headings, numbering repeats', () => {
    const headings = anchors('# Latency: the caller\'s clock\n## `bench:turn` sweep (2026-12-02)\n## Notes\n## Notes\n```\n# not a heading\n```');
    expect([...headings]).toEqual(['latency-the-callers-clock', 'benchturn-sweep-2026-12-02', 'notes', 'notes-1']);
  });
});
