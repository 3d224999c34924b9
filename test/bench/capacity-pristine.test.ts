/**
 * The stock worker's framework (bench/capacity/pristine-framework.ts): the packages patches/
 * changes come back as npm ships them in the copy, the project's own install keeps its fixes,
 * and everything else is the project's install itself.
 */
import { lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { patchedPackages, pristineFramework } from '../../bench/capacity/pristine-framework.js';

const repoModules = join(process.cwd(), 'node_modules');
const SPREAD = 'data = new Int16Array([...data, ...frame.data]);';
const HALF_COUNT = 'Math.trunc(data.length / 2)';

describe('the stock worker’s framework, as npm ships it', () => {
  let dir: string;
  beforeAll(() => {
    dir = pristineFramework(mkdtempSync(join(tmpdir(), 'fw-pristine-')));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reverses every patch on the copies and leaves the project’s install patched', () => {
    const utils = (root: string) => readFileSync(join(root, '@livekit/agents/dist/utils.js'), 'utf8');
    const vad = (root: string) => readFileSync(join(root, '@livekit/agents-plugin-silero/dist/vad.js'), 'utf8');
    const input = (root: string) => readFileSync(join(root, '@livekit/agents/dist/voice/room_io/_input.js'), 'utf8');
    const modules = join(dir, 'node_modules');
    expect(utils(modules)).toContain(SPREAD);
    expect(vad(modules)).toContain(HALF_COUNT);
    expect(input(modules)).not.toContain('frameSizeMs');
    expect(utils(repoModules)).not.toContain(SPREAD);
    expect(vad(repoModules)).not.toContain(HALF_COUNT);
    expect(input(repoModules)).toContain('frameSizeMs: this.frameSizeMs');
  });

  it('copies the framework and its plugins, and links every other package to the project’s install', () => {
    const modules = join(dir, 'node_modules');
    for (const name of readdirSync(join(modules, '@livekit'))) {
      const copied = name === 'agents' || name.startsWith('agents-plugin-');
      expect([name, lstatSync(join(modules, '@livekit', name)).isSymbolicLink()]).toEqual([name, !copied]);
    }
    expect(lstatSync(join(modules, 'zod')).isSymbolicLink()).toBe(true);
  });

  it('reads which packages a patch changes', () => {
    const patch = ['diff --git a/node_modules/@livekit/agents/dist/a.js b/node_modules/@livekit/agents/dist/a.js', 'diff --git a/node_modules/zod/x.js b/node_modules/zod/x.js', ' diff --git a/node_modules/not/this.js'].join('\n');
    expect(patchedPackages(patch)).toEqual(['@livekit/agents', 'zod']);
  });
});
