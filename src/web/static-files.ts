import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/** A file the page server may send: nothing outside this table is reachable by URL. */
export interface StaticFile {
  path: string;
  contentType: string;
}

const PROJECT_ROOT = resolve(import.meta.dirname, '../..');

/** livekit-client's self-contained ESM build (no imports of its own, so no bundler needed). */
export function livekitClientModulePath(): string {
  const umd = createRequire(import.meta.url).resolve('livekit-client');
  return join(dirname(umd), 'livekit-client.esm.mjs');
}

export const LIVEKIT_CLIENT_URL = '/vendor/livekit-client.esm.mjs';

/** The page's ES modules: `web/<name>.js`, each served at `/<name>.js`. Add new ones here. */
export const PAGE_MODULES = [
  'app',
  'agent-state',
  'chat',
  'connection',
  'debug',
  'devices',
  'level-meter',
  'livekit',
  'transcript',
  'turn-timer',
] as const;

export function staticFiles(webRoot = join(PROJECT_ROOT, 'web')): ReadonlyMap<string, StaticFile> {
  const js = 'text/javascript; charset=utf-8';
  const client = livekitClientModulePath();
  return new Map<string, StaticFile>([
    ['/', { path: join(webRoot, 'index.html'), contentType: 'text/html; charset=utf-8' }],
    ['/index.html', { path: join(webRoot, 'index.html'), contentType: 'text/html; charset=utf-8' }],
    ['/style.css', { path: join(webRoot, 'style.css'), contentType: 'text/css; charset=utf-8' }],
    ...PAGE_MODULES.map((name): [string, StaticFile] => [`/${name}.js`, { path: join(webRoot, `${name}.js`), contentType: js }]),
    [LIVEKIT_CLIENT_URL, { path: client, contentType: js }],
    [`${LIVEKIT_CLIENT_URL}.map`, { path: `${client}.map`, contentType: 'application/json' }],
  ]);
}

/** Reads through a small cache: the files do not change while the server runs. */
export function createFileReader(): (file: StaticFile) => Promise<Buffer> {
  const cache = new Map<string, Promise<Buffer>>();
  return (file) => {
    let body = cache.get(file.path);
    if (!body) {
      body = readFile(file.path);
      body.catch(() => cache.delete(file.path));
      cache.set(file.path, body);
    }
    return body;
  };
}
