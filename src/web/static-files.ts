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

export function staticFiles(webRoot = join(PROJECT_ROOT, 'web')): ReadonlyMap<string, StaticFile> {
  const js = 'text/javascript; charset=utf-8';
  const client = livekitClientModulePath();
  return new Map<string, StaticFile>([
    ['/', { path: join(webRoot, 'index.html'), contentType: 'text/html; charset=utf-8' }],
    ['/index.html', { path: join(webRoot, 'index.html'), contentType: 'text/html; charset=utf-8' }],
    ['/style.css', { path: join(webRoot, 'style.css'), contentType: 'text/css; charset=utf-8' }],
    ['/app.js', { path: join(webRoot, 'app.js'), contentType: js }],
    ['/turn-timer.js', { path: join(webRoot, 'turn-timer.js'), contentType: js }],
    ['/agent-state.js', { path: join(webRoot, 'agent-state.js'), contentType: js }],
    ['/chat.js', { path: join(webRoot, 'chat.js'), contentType: js }],
    ['/connection.js', { path: join(webRoot, 'connection.js'), contentType: js }],
    ['/debug.js', { path: join(webRoot, 'debug.js'), contentType: js }],
    ['/devices.js', { path: join(webRoot, 'devices.js'), contentType: js }],
    ['/level-meter.js', { path: join(webRoot, 'level-meter.js'), contentType: js }],
    ['/livekit.js', { path: join(webRoot, 'livekit.js'), contentType: js }],
    ['/transcript.js', { path: join(webRoot, 'transcript.js'), contentType: js }],
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
