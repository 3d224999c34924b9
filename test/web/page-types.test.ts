import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The page is plain JavaScript with JSDoc types (`// @ts-check`). The project's tsc does not read
 * it (no allowJs); it sees each module through the `.d.ts` beside it when a test imports it.
 * This test type-checks the page with the DOM library (web/tsconfig.json, the same check as
 * `npx tsc -p web`) and keeps those `.d.ts` files equal to the declarations of the JSDoc, so the
 * types tests compile against are the types the page is checked with.
 *
 * After changing a module's JSDoc: `npx vitest run test/web/page-types.test.ts -u`.
 */

const WEB = resolve(import.meta.dirname, '../../web');
/** Modules whose .d.ts is generated; turn-timer.d.ts and livekit.d.ts are written by hand. */
const GENERATED = ['agent-state', 'chat', 'connection', 'debug', 'devices', 'level-meter', 'transcript'];
const header = (name: string) =>
  `// Generated from ${name}.js's JSDoc by test/web/page-types.test.ts; do not edit.\n` +
  '// Regenerate: npx vitest run test/web/page-types.test.ts -u\n';

function compilePage() {
  const configPath = join(WEB, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath));
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    removeComments: true,
    outDir: join(WEB, '.types'),
  };
  // hide the generated .d.ts files, so modules importing each other are checked against the JS
  const hidden = new Set(GENERATED.map((name) => join(WEB, `${name}.d.ts`)));
  const host = ts.createCompilerHost(options);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (path) => !hidden.has(resolve(path)) && fileExists(path);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options, host });

  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.formatDiagnostic(d, {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => WEB,
    getNewLine: () => '\n',
  }));
  const declarations = new Map<string, string>();
  program.emit(undefined, (path, text) => {
    const name = /([^/\\]+)\.d\.ts$/.exec(path)?.[1];
    if (name) declarations.set(name, text);
  });
  return { diagnostics, declarations };
}

describe('the page modules (JSDoc types)', () => {
  const compiled = compilePage();

  it('type-check with the DOM library and livekit-client types', () => {
    expect(compiled.diagnostics).toEqual([]);
  });

  it.each(GENERATED)("%s.d.ts matches its module's JSDoc", async (name) => {
    const declaration = compiled.declarations.get(name);
    expect(declaration, `no declarations emitted for ${name}.js`).toBeDefined();
    await expect(header(name) + declaration).toMatchFileSnapshot(join(WEB, `${name}.d.ts`));
  });
});
