/**
 * Whatever a stranger sends the page server — malformed or oversized bodies, wrong methods,
 * traversal on static files in plain or encoded forms, junk, oversized or repeated headers — gets
 * a 4xx and changes nothing: no room is made, no token or cookie is handed out, and no file
 * outside the page's table is read. Requests go over raw sockets, so nothing is normalised first.
 */
import fc from 'fast-check';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticFiles } from '../../src/web/static-files.js';
import { type RunningWebServer, startWebServer } from './helpers.js';

let web: RunningWebServer;
let port: number;
const SERVED = new Set(staticFiles().keys());

beforeAll(async () => {
  web = await startWebServer({ rate: { perAddressPerMinute: 10_000, perUserPerMinute: 10_000 } });
  port = Number(new URL(web.base).port);
});
afterAll(() => web.close());

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

/** Sends bytes as they are and reads the answer until the server closes the connection. */
function raw(request: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
    socket.on('data', (chunk) => chunks.push(chunk));
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      if (status === 0) return reject(new Error(`no HTTP answer to ${JSON.stringify(String(request).slice(0, 200))}: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status, head: text.slice(0, split), body: text.slice(split + 4) });
    };
    socket.on('close', done);
    // The server may answer and close before a large body is written: that is an answer too.
    socket.on('error', () => {});
    socket.write(request);
  });
}

const request = (method: string, target: string, headers: string[] = [], body = '') =>
  [`${method} ${target} HTTP/1.1`, 'Host: localhost', 'Connection: close', ...headers, ...(body ? [`Content-Length: ${Buffer.byteLength(body)}`] : []), '', body].join('\r\n');

const nothingChanged = (response: RawResponse) => {
  expect(response.head.toLowerCase()).not.toContain('set-cookie');
  expect(response.body).not.toContain('"token"');
  expect(web.rooms.made).toEqual([]);
};

const TRAVERSAL = fc.constantFrom(
  '..', '%2e%2e', '%2E%2E', '.%2e', '%252e%252e', '..%2f', '..%5c', '..\\', '%c0%ae%c0%ae', '%00', '.', '', 'vendor', 'web', 'src',
  'package.json', 'etc', 'passwd', '.env', 'index.html', 'app.js', 'node_modules', 'livekit-client', '%2f', '//', '?', '#', ';', '%', '%zz',
);
const PATH = fc.array(TRAVERSAL, { minLength: 1, maxLength: 8 }).map((parts) => `/${parts.join('/')}`);
const JUNK_TARGET = fc.oneof(PATH, fc.string({ maxLength: 64 }).map((s) => `/${encodeURIComponent(s)}`), fc.constantFrom('*', 'http://evil.example/token', '//evil/x', 'index.html'));

describe('bad input on the page server', () => {
  it('serves only files from its table, whatever the path (plain, encoded, doubly encoded, backslashes, NUL)', async () => {
    await fc.assert(
      fc.asyncProperty(JUNK_TARGET, fc.constantFrom('GET', 'HEAD'), async (target, method) => {
        if (/[\s]/.test(target)) return; // not a request line at all; covered by the malformed-lines case
        const response = await raw(request(method, target));
        const path = target.startsWith('/') && !target.startsWith('//') ? new URL(target, 'http://localhost').pathname : undefined;
        if (path !== undefined && SERVED.has(path)) expect(response.status).toBe(200);
        else expect([400, 404]).toContain(response.status);
        expect(response.body).not.toMatch(/"dependencies"|root:x:0:0|LIVEKIT_API_SECRET=/);
        nothingChanged(response);
      }),
      { numRuns: 150 },
    );
  });

  it('answers any other method with 405 (or 400 for a method Node cannot parse)', async () => {
    const METHOD = fc.oneof(fc.constantFrom('PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'Post'), fc.stringMatching(/^[A-Z]{1,12}$/));
    await fc.assert(
      fc.asyncProperty(METHOD, fc.constantFrom('/token', '/', '/app.js', '/nope'), async (method, target) => {
        const response = await raw(request(method, target, ['Content-Type: application/json'], '{}'));
        const allowed = target === '/token' ? method === 'POST' : method === 'GET' || method === 'HEAD';
        if (allowed) return;
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        if (target === '/token' && response.status === 405) expect(response.head.toLowerCase()).toMatch(/allow: (get, head, )?post/);
        nothingChanged(response);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses every body that is not a JSON object holding at most a short display name', async () => {
    const BODY = fc.oneof(
      fc.json().filter((text) => !/^\{\s*\}$/.test(text)),
      fc.string({ maxLength: 300 }),
      fc.record({ room: fc.string(), identity: fc.string() }).map((value) => JSON.stringify(value)),
      fc.record({ name: fc.string({ minLength: 65, maxLength: 200 }) }).map((value) => JSON.stringify(value)),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
      fc.integer({ min: 4097, max: 20_000 }).map((n) => JSON.stringify({ name: 'x'.repeat(n) })),
    );
    const TYPE = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', '');
    await fc.assert(
      fc.asyncProperty(BODY, TYPE, async (body, type) => {
        let valid = false;
        try {
          const parsed = JSON.parse(body) as unknown;
          valid =
            type.startsWith('application/json') &&
            typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) &&
            Object.keys(parsed).every((key) => key === 'name') &&
            (typeof (parsed as { name?: unknown }).name === 'string' ? /^[^\p{Cc}]{0,64}$/u.test((parsed as { name: string }).name) : !('name' in parsed));
        } catch {
          valid = false;
        }
        if (valid) return;
        const response = await raw(request('POST', '/token', type ? [`Content-Type: ${type}`] : [], body));
        expect([400, 413, 415]).toContain(response.status);
        expect(response.head).toMatch(/content-type: application\/json/i);
        nothingChanged(response);
      }),
      { numRuns: 200 },
    );
  });

  it('refuses header abuse: oversized, endless, malformed, conflicting lengths, junk forwarding and cookies', async () => {
    const cases: [string, string | Buffer, number[]][] = [
      ['one huge header', request('GET', '/', [`X-Pad: ${'a'.repeat(9000)}`]), [431]],
      ['many headers', request('GET', '/', Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'v'.repeat(30)}`)), [431]],
      ['a huge cookie on /token', request('POST', '/token', ['Content-Type: application/json', `Cookie: firstword_session=${'x'.repeat(9000)}`], '{}'), [431]],
      ['a header without a colon', 'GET / HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n', [400]],
      ['a control character in a header', 'GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n', [400]],
      ['two different content lengths', 'POST /token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', [400]],
      ['chunked with content length', 'POST /token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', [400]],
      ['a huge declared length', request('POST', '/token', ['Content-Type: application/json', 'Content-Length: 999999999']), [413]],
      ['a malformed request line', 'GARBAGE\r\n\r\n', [400]],
      ['a traversal request line', 'GET /../../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', [404]],
      ['an absolute-form target', request('GET', 'http://localhost/token'), [400]],
      ['an asterisk target', request('OPTIONS', '*'), [400]],
      ['a websocket upgrade', request('GET', '/token', ['Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']), [400]],
      ['CONNECT', 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n', [405]],
      ['a junk bearer token, no auth configured', request('POST', '/token', ['Content-Type: application/json', 'Authorization: Bearer ' + 'x'.repeat(100)], '{"room":"a"}'), [400]],
    ];
    for (const [what, bytes, statuses] of cases) {
      const response = await raw(bytes);
      expect(statuses, what).toContain(response.status);
      nothingChanged(response);
    }
  });

  it('still serves a well-formed request afterwards, with junk X-Forwarded-For and cookies ignored', async () => {
    const response = await raw(request('POST', '/token', ['Content-Type: application/json', 'X-Forwarded-For: <script>, ::::, 999.1.1.1', 'Cookie: firstword_session=junk; other=1'], '{}'));
    expect(response.status).toBe(200);
    expect(web.rooms.made).toHaveLength(1);
  });
});
