import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_MODULES, livekitClientModulePath } from '../../src/web/static-files.js';
import { type RunningWebServer, startWebServer } from './helpers.js';

let web: RunningWebServer;
beforeAll(async () => {
  web = await startWebServer();
});
afterAll(async () => {
  await web.close();
});

const get = (path: string, init: RequestInit = {}) => fetch(`${web.base}${path}`, { ...init, signal: AbortSignal.timeout(5000) });

describe('page server', () => {
  it('serves the page, which loads our module script', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/app.js"></script>');
    expect(html).toContain('id="status"');
  });

  it('serves the app, which imports livekit-client from the vendored path', async () => {
    const response = await get('/app.js');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await response.text()).toContain("from './livekit.js'");
    expect(await (await get('/livekit.js')).text()).toContain("from '/vendor/livekit-client.esm.mjs'");
  });

  it('serves every page module, and every module the page imports', async () => {
    const WEB = resolve(import.meta.dirname, '../../web');
    const onDisk = readdirSync(WEB).filter((name) => name.endsWith('.js')).map((name) => name.slice(0, -3));
    expect([...PAGE_MODULES].sort()).toEqual(onDisk.sort());

    const served = new Set<string>();
    const pending = ['/app.js'];
    while (pending.length > 0) {
      const path = pending.pop()!;
      if (served.has(path)) continue;
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toBe('text/javascript; charset=utf-8');
      served.add(path);
      if (path.startsWith('/vendor/')) continue;
      for (const [, specifier] of (await response.text()).matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)) {
        pending.push(new URL(specifier!, `http://page${path}`).pathname);
      }
    }
    expect([...served].sort()).toEqual([...PAGE_MODULES.map((name) => `/${name}.js`), '/vendor/livekit-client.esm.mjs'].sort());
    expect(readFileSync(join(WEB, 'app.js'), 'utf8')).not.toMatch(/from '\/(?!vendor\/)/); // relative imports between modules
  });

  it('keeps the page free of inline scripts and styles (the CSP allows neither)', async () => {
    const html = await (await get('/')).text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style[\s>]/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
  });

  it("serves livekit-client's ESM build byte for byte from node_modules", async () => {
    const response = await get('/vendor/livekit-client.esm.mjs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(readFileSync(livekitClientModulePath()))).toBe(true);
    // self-contained: a browser can load it without a bundler resolving bare imports
    expect(body.toString('utf8')).not.toMatch(/^\s*import\s.+from\s+['"][^./]/m);
    expect(body.toString('utf8')).toMatch(/export\s*\{[^}]*\bRoom\b/);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('/style.css', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const post = await get('/app.js', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('serves nothing outside its file table', async () => {
    for (const path of ['/package.json', '/../package.json', '/%2e%2e/package.json', '/web/app.js', '/.env', '/src/web/server.ts', '/tsconfig.json', '/transcript.d.ts']) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: string }).error).toBe('not_found');
    }
  });
});
