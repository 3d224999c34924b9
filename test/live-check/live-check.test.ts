/**
 * `npm run live-check` against the local protocol servers (the real services are out of reach
 * here): the report must state what those servers were set to do, a provider without keys is
 * skipped with the variables it needs, a check that cannot run says why, and no key is printed.
 */
import { initializeLogger } from '@livekit/agents';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveCheckOptions, liveCheck } from '../../scripts/live-check/run.js';
import type { CartesiaServer } from '../servers/cartesia-server.js';
import type { ResembleServer } from '../servers/resemble-server.js';
import { CARTESIA_KEY, CARTESIA_KNOBS, FAST_SETTINGS, RESEMBLE_KEY, RESEMBLE_KNOBS, startServers } from './local-servers.js';

initializeLogger({ pretty: false, level: 'error' });

const RESEMBLE_IDS = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'R7', 'R8'];

async function run(env: Record<string, string>, options: Partial<LiveCheckOptions> = {}) {
  let out = '';
  const err: string[] = [];
  const code = await liveCheck(env, { settings: FAST_SETTINGS, ...options }, { out: (t) => (out += t), err: (l) => err.push(l) });
  return { code, out, err: err.join('\n') };
}

/** The report's section for one check, up to the next. */
function section(report: string, id: string): string {
  const start = report.indexOf(`### ${id}. `);
  expect(start, `section ${id}`).toBeGreaterThan(-1);
  const next = report.indexOf('\n### ', start + 1);
  return report.slice(start, next === -1 ? undefined : next);
}

/** Cells of the table row whose first cell is `first`. */
function row(text: string, first: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`| ${first} |`));
  expect(line, `row ${first}`).toBeDefined();
  return line!.split(' | ').map((c) => c.replace(/^\| |\s*\|$/g, ''));
}

let resemble: ResembleServer;
let cartesia: CartesiaServer;
let env: Record<string, string>;
let full: { code: number; out: string; err: string };
let outDir: string;

beforeAll(async () => {
  ({ resemble, cartesia, env } = await startServers());
  outDir = mkdtempSync(join(tmpdir(), 'live-check-'));
  full = await run(env, { outFile: join(outDir, 'report.md') });
});

afterAll(async () => {
  await resemble?.close();
  await cartesia?.close();
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('live-check against the local Resemble server', () => {
  it('reports the echoed rates, the default rate and a per-model refusal verbatim', () => {
    expect(full.code).toBe(0);
    const r1 = section(full.out, 'R1');
    expect(row(r1, "(the voice's own)")[3]).toBe('22050');
    expect(r1).toContain(`Left out, \`sample_rate\` came back as ${RESEMBLE_KNOBS.defaultSampleRate}`);
    const turbo = row(r1, 'chatterbox-turbo');
    expect(turbo[2]).toContain('"error_name":"DBCacheError"');
    expect(turbo[4]).toContain('not retryable');
  });

  it('measures the bursts: holes at 48 kHz, where a burst carries less audio than the gap', () => {
    const r2 = section(full.out, 'R2');
    expect(Number(row(r2, '48000')[5])).toBeGreaterThan(0);
    expect(r2).toMatch(/Playing from the first byte would stutter: .*48000 Hz/);
  });

  it('describes the grapheme timestamps the server sends', () => {
    const r3 = section(full.out, 'R3');
    expect(r3).toContain('Spaces among the graphemes: yes');
    expect(r3).toContain('Frames carry only their own characters (increments); times count from the start of the request');
  });

  it('quotes the error frames and says which lack request_id, and that the socket still serves', () => {
    const r4 = section(full.out, 'R4');
    const unparsable = row(r4, 'unparsable JSON');
    expect(unparsable[1]).toContain('"error_name":"BadJSON"');
    expect(unparsable[3]).toBe('absent');
    expect(unparsable[5]).toContain('error for the whole socket');
    expect(r4).toContain('No `request_id` on: unparsable JSON');
    expect(r4).toContain('still serves: yes');
    const r5 = section(full.out, 'R5');
    expect(r5).toContain('"error_name":"InvalidVoice"');
    expect(r5).toContain('"error_name":"TextTooLong"');
    expect(row(r5, 'sample_rate 12345')[1]).toContain('"error_name":"BadJSON"');
    expect(r5).toContain('`audio_end` never followed an error');
  });

  it('reports pongs, the idle close and the connection limit the server enforces', () => {
    expect(section(full.out, 'R6')).toContain('Pong after');
    expect(section(full.out, 'R7')).toMatch(/closed with code 1000 "idle timeout" after \d+ ms/);
    const r8 = section(full.out, 'R8');
    expect(r8).toContain(`Opened and kept: ${RESEMBLE_KNOBS.maxConnectionsPerKey}.`);
    expect(r8).toContain(`Socket ${RESEMBLE_KNOBS.maxConnectionsPerKey + 1}: refused at the handshake`);
    expect(r8).toContain('HTTP 429');
  });
});

describe('live-check against the local Cartesia server', () => {
  it('finds no expiry of an open context, and the early done it sends while idle', () => {
    const c1 = section(full.out, 'C1');
    const rows = c1.split('\n').filter((l) => /^\| \d+ ms/.test(l));
    expect(rows).toHaveLength(FAST_SETTINGS.expiryDelaysMs.length);
    for (const line of rows) expect(line).toContain('`done` (accepted)');
    // The longest wait is well past the server's earlyDoneIdleMs.
    expect(rows.at(-1)).toMatch(/\| yes, \d+ ms after the last audio \(firstword: drained/);
    expect(c1).toContain('No expiry seen');
  });

  it('quotes the refusal of input on a finished context and how firstword reads it', () => {
    const c2 = section(full.out, 'C2');
    expect(c2).toContain('"error_code":"context_closed"');
    expect(c2).toMatch(/\| lost: /);
    expect(c2).toMatch(/\| open \(`continue: true`\).* \| `done` \(accepted\) \|/);
    const c3 = section(full.out, 'C3');
    expect(c3.match(/"error_code":"transcript_empty"/g)).toHaveLength(2);
    expect(c3).toContain('firstword recognises the refusal and ends the track quietly');
  });

  it('counts the chunks the server still sends after a cancel, and its done', () => {
    const c4 = section(full.out, 'C4');
    const late = Number(/Chunks after the cancel: (\d+)/.exec(c4)?.[1]);
    expect(late).toBeGreaterThanOrEqual(CARTESIA_KNOBS.lateChunksAfterCancel);
    expect(c4).toContain('`done` after a cancel: yes');
  });

  it('reports timestamps, versions, models and error wording as the server has them', () => {
    const c5 = section(full.out, 'C5');
    expect(c5).toContain('the words show the text as sent (the three variants agree for this text)');
    expect(section(full.out, 'C6')).toContain('Times continue across the continuation');
    expect(section(full.out, 'C7')).toContain('Accepted:');
    const c8 = section(full.out, 'C8');
    expect(row(c8, 'empty ``')[1]).toContain('missing_version');
    expect(row(c8, 'older `2024-11-13`')[2]).toMatch(/^legacy `error` string/);
    expect(row(c8, 'configured `2026-03-01`')[2]).toMatch(/^structured/);
    const served = /Served for this voice: (.*?)\. The configured/.exec(section(full.out, 'C9'))?.[1]?.split(', ') ?? [];
    for (const model of CARTESIA_KNOBS.models) expect(served).toContain(model);
    expect(served).not.toContain('sonic-3.6');
    expect(section(full.out, 'C9')).toContain('The configured sonic-3.5 works.');
    const c10 = section(full.out, 'C10');
    expect(c10).toContain('"error_code":"voice_not_found"');
    expect(c10).toContain('"error_code":"context_params_changed"');
    expect(row(c10, 'malformed JSON')[2]).toContain('error for the whole socket');
    expect(section(full.out, 'C11')).toContain('Pong after');
  });
});

describe('live-check output', () => {
  it('never prints a key, even one a provider echoes, and writes the same report to --out', () => {
    expect(section(full.out, 'R1')).toContain('not available for this voice ([redacted])');
    for (const text of [full.out, full.err]) {
      expect(text).not.toContain(RESEMBLE_KEY);
      expect(text).not.toContain(CARTESIA_KEY);
    }
    expect(readFileSync(join(outDir, 'report.md'), 'utf8')).toBe(full.out);
  });

  it('without keys names what each provider needs and exits non-zero', async () => {
    const result = await run({});
    expect(result.code).not.toBe(0);
    expect(result.out).toBe('');
    for (const variable of ['RESEMBLE_API_KEY', 'RESEMBLE_VOICE_UUID', 'CARTESIA_API_KEY', 'CARTESIA_VOICE']) {
      expect(result.err).toContain(variable);
    }
  });

  it('skips a provider without its voice, naming it, and still checks the other', async () => {
    const result = await run(
      { ...env, CARTESIA_VOICE: '' },
      { settings: { ...FAST_SETTINGS, skipIds: RESEMBLE_IDS.filter((id) => id !== 'R6') } },
    );
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/## Cartesia\n\nSkipped: set CARTESIA_API_KEY and CARTESIA_VOICE to check it \(not set: CARTESIA_VOICE;/);
    expect(section(result.out, 'R6')).toContain('Pong after');
    expect(result.out).toContain('- R1 Echoed sample_rate per model, and whether this key streams at all: skipped: left out (--skip)');
  });

  it('reports a check it cannot run as "could not check: <reason>" and goes on', async () => {
    const wrongKey = 'csk-not-a-valid-key-5521';
    const result = await run({ ...env, CARTESIA_API_KEY: wrongKey }, { only: ['cartesia'] });
    expect(result.code).toBe(0);
    for (const id of ['C1', 'C4', 'C8', 'C11']) {
      expect(section(result.out, id)).toContain('**could not check: Cartesia rejected the API key (HTTP 401): check CARTESIA_API_KEY');
    }
    expect(result.out + result.err).not.toContain(wrongKey);
  });
});
