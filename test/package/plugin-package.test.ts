/**
 * The TTS plugin as other agents get it: built to dist/, packed with `npm pack`, installed from
 * the tarball into a fresh project next to @livekit/agents, and used there — by its public names
 * only — for a room-less AgentSession turn against a local Resemble-protocol server.
 */
import { type SpawnOptions, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heardRuns, samplesForText, tagForText } from '../servers/audio-tag.js';
import { type ResembleServer, startResembleServer } from '../servers/resemble-server.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE_DIR = join(ROOT, 'packages', 'agents-plugin-tts');
const NAME = '@firstword/agents-plugin-tts';
const MS_PER_CHAR = 4;

/** One package's entry in `npm publish --dry-run --json`. */
interface Published {
  name: string;
  version: string;
  files: { path: string }[];
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], options: SpawnOptions & { timeoutMs: number }): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not finish within ${options.timeoutMs} ms:\n${stderr.slice(-2000)}`));
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

async function ok(cmd: string, args: string[], options: SpawnOptions & { timeoutMs: number }): Promise<string> {
  const result = await run(cmd, args, options);
  if (result.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${result.code}:\n${result.stderr.slice(-3000)}`);
  return result.stdout;
}

/** The consumer: plain ESM in the fresh project, importing nothing of ours but the package. */
const CONSUMER = `
import { writeFileSync } from 'node:fs';
import { initializeLogger, stt, voice } from '@livekit/agents';
import { ResembleTTS, RESEMBLE_SAMPLE_RATES } from '${NAME}';
import { createChunker } from '${NAME}/chunking';

initializeLogger({ pretty: false, level: 'error' });
const REPLY = 'Sure, the store opens at nine. On weekends it opens an hour later, at ten.';

class Recorder extends voice.AudioOutput {
  samples = [];
  constructor() { super(16000); }
  async captureFrame(frame) {
    await super.captureFrame(frame);
    if (this.samples.length === 0) this.onPlaybackStarted(Date.now());
    this.samples.push(...frame.data);
  }
  flush() { super.flush(); this.onPlaybackFinished({ playbackPosition: this.samples.length / 16000, interrupted: false }); }
  clearBuffer() {}
}

const tts = new ResembleTTS({ apiKey: 'test-key', voiceUuid: 'voice-1', baseURL: process.env.RESEMBLE_URL, sampleRate: 16000, speech: false });
await tts.prewarm();
const session = new voice.AgentSession({
  stt: new stt.testing.FakeSTT(),
  llm: new voice.testing.FakeLLM([{ input: 'When do you open?', content: REPLY, ttft: 0.05, duration: 0.3 }]),
  tts,
  turnHandling: { turnDetection: 'stt', interruption: { mode: 'vad' } },
});
const output = new Recorder();
session.output.audio = output;
await session.start({ agent: new voice.Agent({ instructions: 'be brief' }) });
const firstFrames = [];
tts.onStream((_, timeline) => timeline.on('first_frame', (ev) => firstFrames.push(ev.streamId)));
const handle = session.generateReply({ userInput: 'When do you open?' });
await handle.waitForPlayout();
await session.close();
await tts.close();
writeFileSync('heard.pcm', Buffer.from(Int16Array.from(output.samples).buffer));
const chunks = [...createChunker().push(REPLY), ...createChunker().end()];
console.log(JSON.stringify({ e2e: 'consumer', samples: output.samples.length, rates: RESEMBLE_SAMPLE_RATES, firstFrames: firstFrames.length, chunkerWorks: chunks.length >= 0 }));
process.exit(0);
`;

describe(`the packed plugin (${NAME}) in a project that is not this one`, () => {
  let work: string;
  let tarball: string;
  let packed: { files: { path: string }[] };
  let published: Published;
  let server: ResembleServer;
  let result: Record<string, unknown>;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'firstword-package-'));
    // No dist/ to start from: `npm pack` must build it itself (prepack), as `npm publish` would.
    await rm(join(PACKAGE_DIR, 'dist'), { recursive: true, force: true });
    const packJson = await ok('npm', ['pack', '--json', '--pack-destination', work], { cwd: PACKAGE_DIR, timeoutMs: 180_000 });
    [packed] = JSON.parse(packJson) as [{ filename: string; files: { path: string }[] }];
    tarball = join(work, (packed as unknown as { filename: string }).filename);
    // What `npm publish` would upload, checked without uploading; its prepack switches the manifest to dist/ as a real publish does.
    const publishJson = await ok('npm', ['publish', '--dry-run', '--json'], { cwd: PACKAGE_DIR, timeoutMs: 180_000 });
    published = (JSON.parse(publishJson) as Record<string, Published>)[NAME]!;

    const project = join(work, 'consumer');
    await ok('mkdir', ['-p', project], { timeoutMs: 5000 });
    const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; allowScripts: unknown };
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'consumer',
        private: true,
        type: 'module',
        dependencies: {
          '@livekit/agents': root.dependencies['@livekit/agents'],
          '@livekit/rtc-node': root.dependencies['@livekit/rtc-node'],
          [NAME]: `file:${tarball}`,
        },
        // As in this repository: no dependency install script runs (onnxruntime-node's would download CUDA files).
        allowScripts: root.allowScripts,
      }),
    );
    await ok('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, timeoutMs: 240_000 });
    await writeFile(join(project, 'consumer.mjs'), CONSUMER);

    server = await startResembleServer({ msPerChar: MS_PER_CHAR });
    const out = await ok(process.execPath, ['consumer.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', RESEMBLE_URL: server.url },
      timeoutMs: 60_000,
    });
    result = JSON.parse(out.trim().split('\n').filter((l) => l.startsWith('{"e2e"')).at(-1)!) as Record<string, unknown>;
  }, 420_000);

  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('packs compiled JavaScript and declarations only: no sources, tests or worker code', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toContain('package.json');
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files).toContain('dist/chunking/index.js');
    expect(files).toContain('LICENSE');
    for (const file of files) expect(file).toMatch(/^(package\.json|README\.md|LICENSE|dist\/.+\.(js|d\.ts))$/);
    // Only what the plugin imports is compiled: not the worker, the demo, the embedded voice or the factory.
    expect(files.filter((f) => /dist\/(agent|session|config|demo|local-voice|heard|ack|sip|web|lifecycle)\b|factory/.test(f))).toEqual([]);
  });

  it('is publishable: public, Apache-2.0, a semver version, and `npm publish --dry-run` uploads what `npm pack` packed', async () => {
    const manifest = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
    expect(manifest.publishConfig).toEqual({ access: 'public' });
    expect(await readFile(join(PACKAGE_DIR, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(published.name).toBe(NAME);
    expect(published.version).toBe(manifest.version);
    expect(published.files.map((f) => f.path).sort()).toEqual(packed.files.map((f) => f.path).sort());
  });

  it('declares every package its code imports, at versions this repository is tested with', async () => {
    const manifest = JSON.parse(await readFile(join(PACKAGE_DIR, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
    };
    const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const file of packed.files.filter((f) => f.path.endsWith('.js'))) {
      const code = await readFile(join(PACKAGE_DIR, file.path), 'utf8');
      for (const m of code.matchAll(/\bfrom '([^'.][^']*)'|import\('([^'.][^']*)'\)/g)) {
        const spec = m[1] ?? m[2]!;
        if (spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
    expect([...imported].sort()).toEqual(Object.keys(declared).sort());
    // The range each declares admits the exact version the repository pins.
    for (const [name, range] of Object.entries(declared)) expect(range).toBe(`^${root.dependencies[name]}`);
  });

  it('speaks a room-less AgentSession turn through the installed package', async () => {
    expect(result.samples as number).toBeGreaterThan(0);
    expect(result.firstFrames).toBe(1);
    expect(result.rates).toEqual([8000, 16000, 22050, 32000, 44100, 48000]);
    // Every chunk the server was sent was heard, whole and in order.
    const heard = heardRuns(new Int16Array((await readFile(join(work, 'consumer', 'heard.pcm'))).buffer.slice(0)));
    const texts = server.received.map((r) => r.payload.data as string);
    expect(texts.join(' ')).toBe('Sure, the store opens at nine. On weekends it opens an hour later, at ten.');
    expect(heard).toEqual(texts.map((t) => ({ tag: tagForText(t), samples: samplesForText(t, 16000, MS_PER_CHAR) })));
  });

  it('exposes the public names and nothing internal', async () => {
    const project = join(work, 'consumer');
    const probe = `
      const main = await import('${NAME}');
      const chunking = await import('${NAME}/chunking');
      const budget = await import('${NAME}/budget');
      const protocol = await import('${NAME}/protocol');
      const providers = await import('${NAME}/providers');
      const pcm = await import('${NAME}/pcm');
      let internal = 'reachable';
      try { await import('${NAME}/dist/driver/synthesis.js'); } catch (e) { internal = e.code; }
      console.log(JSON.stringify({ main: Object.keys(main).sort(), chunking: Object.keys(chunking).sort(), budget: Object.keys(budget).sort(), protocol: Object.keys(protocol).sort(), providers: Object.keys(providers).sort(), pcm: Object.keys(pcm).sort(), internal }));
    `;
    const out = JSON.parse(await ok(process.execPath, ['--input-type=module', '-e', probe], { cwd: project, timeoutMs: 30_000 })) as Record<string, unknown>;
    expect(out.main).toEqual([
      'CARTESIA_DEFAULTS',
      'CARTESIA_SAMPLE_RATES',
      'CartesiaTTS',
      'DEFAULT_PACING_OPTIONS',
      'FirstwordTTS',
      'RESEMBLE_DEFAULTS',
      'RESEMBLE_SAMPLE_RATES',
      'ResembleTTS',
      'StreamTimeline',
    ]);
    expect(out.pcm).toEqual(expect.arrayContaining(['PcmFramer', 'PcmResampler', 'resampleClip']));
    expect(out.budget).toEqual(['budgetKey', 'leaseServiceBudget', 'startLeaseService']);
    expect(out.protocol).toEqual(expect.arrayContaining(['CartesiaCodec', 'ResembleCodec', 'providerUrl', 'rawBytes']));
    expect(out.chunking).toEqual(expect.arrayContaining(['createChunker', 'normalizeForSpeech', 'toSsml', 'CHUNK_POLICIES']));
    expect(out.providers).toEqual(['CARTESIA', 'MAX_START_BUFFER_MS', 'PROVIDERS', 'RESEMBLE']);
    expect(out.internal).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });
});
