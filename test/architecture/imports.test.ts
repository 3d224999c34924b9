/**
 * The plugin's boundary and the absence of import cycles, read from the source (import-graph.ts):
 * the plugin's source imports nothing of the app and only the packages its manifest declares; the
 * app reaches the plugin by its package name only; no file imports itself back through others,
 * whether by static, type-only or dynamic import; the plugin's folders form layers.
 */
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Edge, ROOT, cycles, folderOf, importsOf, sourceFiles } from './import-graph.js';

const PLUGIN = 'packages/agents-plugin-tts';
const PLUGIN_SRC = `${PLUGIN}/src/`;
const pluginFiles = sourceFiles(`${PLUGIN}/src`);
const appFiles = ['src', 'test', 'bench', 'scripts'].flatMap((dir) => sourceFiles(dir));
const edgesOf = (files: string[]): Edge[] => files.flatMap((file) => importsOf(file));

describe('the plugin package boundary', () => {
  it('the plugin source imports only its own files, Node built-ins and the packages its manifest declares', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, PLUGIN, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)]);
    const builtins = new Set(builtinModules);
    const outside = edgesOf(pluginFiles).filter((e) =>
      e.external ? !(e.to.startsWith('node:') || builtins.has(e.to) || declared.has(e.to)) : !e.to.startsWith(PLUGIN_SRC),
    );
    expect(outside.map((e) => `${e.from} -> ${e.specifier}`)).toEqual([]);
  });

  it("the plugin's tests never import the app's source", () => {
    const intoApp = edgesOf(sourceFiles(`${PLUGIN}/test`)).filter((e) => !e.external && e.to.startsWith('src/'));
    expect(intoApp.map((e) => `${e.from} -> ${e.specifier}`)).toEqual([]);
  });

  it('the app, its tests, benches and scripts reach the plugin source by the package name only', () => {
    const byPath = edgesOf(appFiles).filter((e) => !e.external && e.to.startsWith(PLUGIN_SRC) && e.specifier.startsWith('.'));
    expect(byPath.map((e) => `${e.from} -> ${e.specifier}`)).toEqual([]);
  });
});

describe('import cycles', () => {
  it('no file of the app or the plugin imports itself back, counting type-only and dynamic imports', () => {
    const files = [...sourceFiles('src'), ...pluginFiles];
    expect(cycles(files, edgesOf(files))).toEqual([]);
  });

  it("the plugin's folders form layers: no folder imports itself back through another", () => {
    const folders = [...new Set(pluginFiles.map(folderOf))];
    const edges = edgesOf(pluginFiles)
      .filter((e) => !e.external)
      .map((e) => ({ ...e, from: folderOf(e.from), to: folderOf(e.to) }))
      .filter((e) => e.from !== e.to);
    expect(cycles(folders, edges)).toEqual([]);
  });

  it('finds a cycle hidden behind a dynamic import (the checker itself)', () => {
    const edges: Edge[] = [
      { from: 'a.ts', to: 'b.ts', specifier: './b.js', external: false, typeOnly: false },
      { from: 'b.ts', to: 'a.ts', specifier: './a.js', external: false, typeOnly: false },
    ];
    expect(cycles(['a.ts', 'b.ts', 'c.ts'], edges)).toEqual([['a.ts', 'b.ts']]);
    const dynamic = importsOf('src/tts/factory.ts').filter((e) => /local-voice/.test(e.specifier));
    expect(dynamic.map((e) => e.to)).toEqual(['src/local-voice/index.ts']);
  });
});
