import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redactedConfig, shareAckAudioDir, shareJobProcessSettings } from '../src/config/index.js';
import { runWorkerSettings } from '../src/lifecycle/index.js';
import { DEFAULT_TURN_POLICY } from '../src/turn/turn-decision.js';
import { withTimeout } from './helpers/async.js';

const SECRETS = {
  LIVEKIT_API_KEY: 'lk-key-6b1f0c',
  LIVEKIT_API_SECRET: 'lk-secret-9e77d2',
  OPENAI_API_KEY: 'sk-openai-51aa03',
  RESEMBLE_API_KEY: 'rs-key-c0ffee',
  CARTESIA_API_KEY: 'sk_car-beef42',
};

const WORKER_ENV = {
  LIVEKIT_URL: 'wss://example.livekit.cloud',
  LIVEKIT_API_KEY: SECRETS.LIVEKIT_API_KEY,
  LIVEKIT_API_SECRET: SECRETS.LIVEKIT_API_SECRET,
  OPENAI_API_KEY: SECRETS.OPENAI_API_KEY,
};

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function expectNoSecrets(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

describe('loadConfig', () => {
  it('lists every missing worker variable in one error, one line each', () => {
    const error = configError(() => loadConfig({}, { mode: 'worker' }));
    const named = ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET', 'OPENAI_API_KEY'];
    expect(error.problems).toHaveLength(named.length);
    named.forEach((variable, i) => expect(error.problems[i]).toMatch(new RegExp(`^${variable} `)));
    for (const problem of error.problems) expect(error.message).toContain(problem);
  });

  it('reports bad values together with missing ones, naming each variable', () => {
    const error = configError(() =>
      loadConfig(
        { TTS_PROVIDER: 'foo', TTS_SAMPLE_RATE: 'fast', ACK_MODE: 'sometimes', OPENAI_API_KEY: 'x' },
        { mode: 'worker' },
      ),
    );
    const byVariable = (name: string) => error.problems.filter((p) => p.startsWith(`${name} `));
    expect(byVariable('TTS_PROVIDER')[0]).toContain('resemble, cartesia, local, cartesia-livekit');
    expect(byVariable('TTS_PROVIDER')[0]).toContain('"foo"');
    expect(byVariable('TTS_SAMPLE_RATE')[0]).toContain('whole number');
    expect(byVariable('ACK_MODE')).toHaveLength(1);
    expect(byVariable('LIVEKIT_URL')).toHaveLength(1);
    // An unknown provider must not also trigger complaints about some provider's keys.
    expect(error.problems.some((p) => p.startsWith('RESEMBLE_') || p.startsWith('CARTESIA_'))).toBe(
      false,
    );
  });

  it.each([
    ['TTS_SAMPLE_RATE', '24000.5'],
    ['TTS_SAMPLE_RATE', '4000'],
    ['LOCAL_VOICE_PORT', '70000'],
    ['METRICS_PORT', '-1'],
    ['LIVEKIT_URL', 'example.livekit.cloud'],
    ['CARTESIA_BASE_URL', 'ftp://files.example'],
    ['CHUNK_POLICY', 'paragraph'],
    ['LOG_LEVEL', 'loud'],
  ])('rejects %s=%s', (variable, value) => {
    const error = configError(() => loadConfig({ ...WORKER_ENV, [variable]: value }));
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatch(new RegExp(`^${variable} `));
  });

  it('reads a valid worker environment with defaults filled in', () => {
    const config = loadConfig(
      { ...WORKER_ENV, AGENT_NAME: 'firstword', TTS_SAMPLE_RATE: '16000', ACK_MODE: 'SLOW' },
      { mode: 'worker' },
    );
    expect(config.livekit).toEqual({
      url: 'wss://example.livekit.cloud',
      apiKey: SECRETS.LIVEKIT_API_KEY,
      apiSecret: SECRETS.LIVEKIT_API_SECRET,
    });
    expect(config.agentName).toBe('firstword');
    expect(config.openai).toEqual({
      apiKey: SECRETS.OPENAI_API_KEY,
      llmModel: 'gpt-4.1-mini',
      sttModel: 'gpt-realtime-whisper',
    });
    expect(config.tts.provider).toBe('local');
    expect(config.tts.sampleRate).toBe(16000);
    expect(config.tts.localPort).toBe(0);
    expect(config.tts.cartesia.model).toBe('sonic-3.5');
    expect(config.tts.cartesia.wordTimestamps).toBe(true);
    expect(config.tts.cartesia.apiVersion).toBeUndefined(); // the plugin's 2026-03-01
    expect(config.chunking.policy).toBe('asymmetric');
    expect(config.ack).toEqual({ mode: 'slow', slowMs: 600, sharedDir: undefined });
    expect(config.metrics).toEqual({ port: undefined, host: '127.0.0.1' });
    expect(config.logLevel).toBeUndefined();
    expect(runWorkerSettings(config).logLevel).toBe('info');
  });

  it('reads how a live model\'s words commit the turn: settled words on by default, their lag in whole ms', () => {
    expect(loadConfig(WORKER_ENV).turn).toMatchObject({ earlyFinal: true, wordLagMs: 300 });
    expect(loadConfig({ ...WORKER_ENV, TURN_EARLY_FINAL: 'off', TURN_WORD_LAG_MS: '450' }).turn).toMatchObject({ earlyFinal: false, wordLagMs: 450 });
    const error = configError(() => loadConfig({ ...WORKER_ENV, TURN_EARLY_FINAL: 'sometimes', TURN_WORD_LAG_MS: '5000' }));
    expect(error.problems).toEqual([expect.stringMatching(/^TURN_WORD_LAG_MS /), expect.stringMatching(/^TURN_EARLY_FINAL /)]);
  });

  it('starts the combined turn decision from its own floor and bound, the other detectors from the endpointing defaults; set delays win', () => {
    const turn = (env: Record<string, string>) => loadConfig(env, { mode: 'demo' }).turn;
    expect(turn({})).toMatchObject({ detector: 'transcript', minDelayMs: 300, maxDelayMs: 1500 });
    expect(turn({ TURN_DETECTOR: 'combined' })).toMatchObject({ minDelayMs: DEFAULT_TURN_POLICY.minSilenceMs, maxDelayMs: DEFAULT_TURN_POLICY.maxSilenceMs });
    expect(turn({ TURN_DETECTOR: 'combined', TURN_MIN_DELAY_MS: '300', TURN_MAX_DELAY_MS: '2000' })).toMatchObject({ minDelayMs: 300, maxDelayMs: 2000 });
  });

  it('treats blank values as unset', () => {
    const error = configError(() => loadConfig({ ...WORKER_ENV, LIVEKIT_API_SECRET: '  ' }));
    expect(error.problems).toEqual([expect.stringMatching(/^LIVEKIT_API_SECRET is not set/)]);
    expect(loadConfig({ TTS_SAMPLE_RATE: '' }, { mode: 'demo' }).tts.sampleRate).toBeUndefined();
  });

  it('needs no LiveKit or OpenAI credentials in demo mode', () => {
    const config = loadConfig({}, { mode: 'demo' });
    expect(config.tts.provider).toBe('local');
    expect(config.openai.apiKey).toBeUndefined();
  });

  describe('choosing the TTS provider', () => {
    it('follows the provider key that is set when TTS_PROVIDER is not', () => {
      const resemble = { RESEMBLE_API_KEY: SECRETS.RESEMBLE_API_KEY, RESEMBLE_VOICE_UUID: 'v-1' };
      expect(loadConfig(resemble, { mode: 'demo' }).tts.provider).toBe('resemble');
      const cartesia = { CARTESIA_API_KEY: SECRETS.CARTESIA_API_KEY, CARTESIA_VOICE: 'voice-1' };
      expect(loadConfig(cartesia, { mode: 'demo' }).tts.provider).toBe('cartesia');
      expect(loadConfig({ ...resemble, ...cartesia }, { mode: 'demo' }).tts.provider).toBe(
        'resemble',
      );
    });

    it('lets TTS_PROVIDER override the keys', () => {
      const env = { TTS_PROVIDER: 'local', RESEMBLE_API_KEY: SECRETS.RESEMBLE_API_KEY };
      expect(loadConfig(env, { mode: 'demo' }).tts.provider).toBe('local');
    });

    it("requires the chosen provider's keys in every mode", () => {
      const resemble = configError(() => loadConfig({ TTS_PROVIDER: 'resemble' }, { mode: 'demo' }));
      expect(resemble.problems.map((p) => p.split(' ')[0])).toEqual([
        'RESEMBLE_API_KEY',
        'RESEMBLE_VOICE_UUID',
      ]);
      const cartesia = configError(() =>
        loadConfig({ ...WORKER_ENV, TTS_PROVIDER: 'cartesia' }, { mode: 'worker' }),
      );
      expect(cartesia.problems.map((p) => p.split(' ')[0])).toEqual(['CARTESIA_API_KEY', 'CARTESIA_VOICE']);
    });

    it("checks TTS_SAMPLE_RATE against the chosen provider's rates", () => {
      const resemble = { RESEMBLE_API_KEY: SECRETS.RESEMBLE_API_KEY, RESEMBLE_VOICE_UUID: 'v-1' };
      const bad = configError(() => loadConfig({ ...resemble, TTS_SAMPLE_RATE: '24000' }, { mode: 'demo' }));
      expect(bad.problems).toHaveLength(1);
      expect(bad.problems[0]).toMatch(/^TTS_SAMPLE_RATE must be one of 8000, 16000, 22050, 32000, 44100, 48000 for resemble/);
      const cartesia = { CARTESIA_API_KEY: SECRETS.CARTESIA_API_KEY, CARTESIA_VOICE: 'v', TTS_SAMPLE_RATE: '24000' };
      expect(loadConfig(cartesia, { mode: 'demo' }).tts.sampleRate).toBe(24000);
    });

    it('reads CHUNK_POLICY (asymmetric by default)', () => {
      expect(loadConfig({}, { mode: 'demo' }).chunking).toEqual({ policy: 'asymmetric' });
      expect(loadConfig({ CHUNK_POLICY: 'Sentence' }, { mode: 'demo' }).chunking).toEqual({ policy: 'sentence' });
    });

    it('reads TTS_NORMALIZE and RESEMBLE_SSML as on/off switches', () => {
      expect(loadConfig({}, { mode: 'demo' }).tts).toMatchObject({ normalize: true, resembleSsml: false });
      expect(loadConfig({ TTS_NORMALIZE: 'off', RESEMBLE_SSML: 'ON' }, { mode: 'demo' }).tts).toMatchObject({
        normalize: false,
        resembleSsml: true,
      });
      const bad = configError(() => loadConfig({ TTS_NORMALIZE: 'maybe' }, { mode: 'demo' }));
      expect(bad.problems[0]).toMatch(/^TTS_NORMALIZE must be one of on, off/);
    });

    it('takes a Cartesia model id or a dated snapshot, and CARTESIA_WORD_TIMESTAMPS as on/off', () => {
      for (const model of ['sonic-3.5', 'sonic-3.5-2026-05-01', 'sonic-3-2026-01-12', 'sonic-latest']) {
        expect(loadConfig({ CARTESIA_MODEL: model }, { mode: 'demo' }).tts.cartesia.model).toBe(model);
      }
      for (const model of ['sonic 3.5', 'Sonic-3.5', '"sonic-3.5"']) {
        const bad = configError(() => loadConfig({ CARTESIA_MODEL: model }, { mode: 'demo' }));
        expect(bad.problems[0]).toMatch(/^CARTESIA_MODEL must be a Cartesia model id such as sonic-3.5/);
      }
      expect(loadConfig({ CARTESIA_WORD_TIMESTAMPS: 'off' }, { mode: 'demo' }).tts.cartesia.wordTimestamps).toBe(false);
      const bad = configError(() => loadConfig({ CARTESIA_WORD_TIMESTAMPS: 'yes' }, { mode: 'demo' }));
      expect(bad.problems[0]).toMatch(/^CARTESIA_WORD_TIMESTAMPS must be one of on, off/);
    });

    it("reads the connection budget: Resemble's documented 20 per key unless TTS_MAX_SOCKETS_PER_KEY says otherwise", () => {
      expect(loadConfig({}, { mode: 'demo' }).tts.connections).toEqual({ maxPerKey: 20, leaseSocket: undefined });
      expect(loadConfig({ TTS_MAX_SOCKETS_PER_KEY: '8', TTS_LEASE_SOCKET: '/tmp/x/budget.sock' }, { mode: 'demo' }).tts.connections).toEqual({
        maxPerKey: 8,
        leaseSocket: '/tmp/x/budget.sock',
      });
      for (const value of ['0', '2.5', 'many']) {
        const bad = configError(() => loadConfig({ TTS_MAX_SOCKETS_PER_KEY: value }, { mode: 'demo' }));
        expect(bad.problems[0]).toMatch(/^TTS_MAX_SOCKETS_PER_KEY must be a whole number of sockets from 1 to 1000/);
      }
    });
  });

  describe('one configuration for every command', () => {
    it('lists the problems of every group in one error', () => {
      const error = configError(() =>
        loadConfig({ SIP_SAMPLE_RATE: '44100', WEB_PORT: 'eighty', SHUTDOWN_DRAIN_TIMEOUT_S: '0', METRICS_HOST: '10.0.0.1' }),
      );
      const named = error.problems.map((p) => p.split(' ')[0]);
      for (const variable of ['SIP_SAMPLE_RATE', 'WEB_PORT', 'SHUTDOWN_DRAIN_TIMEOUT_S', 'METRICS_HOST', 'LIVEKIT_URL', 'OPENAI_API_KEY']) {
        expect(named).toContain(variable);
      }
    });

    it('requires only what each command needs', () => {
      expect(() => loadConfig({}, { mode: 'demo' })).not.toThrow();
      const web = configError(() => loadConfig({}, { mode: 'web' }));
      expect(web.problems.map((p) => p.split(' ')[0])).toEqual(['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET']);
      const sip = configError(() => loadConfig({ ...WORKER_ENV }, { mode: 'sip-setup' }));
      expect(sip.problems.map((p) => p.split(' ')[0])).toEqual(['AGENT_NAME', 'SIP_NUMBERS']);
      // The web page and SIP setup do not speak, so a TTS provider without keys is not their problem.
      expect(() => loadConfig({ ...WORKER_ENV, TTS_PROVIDER: 'cartesia' }, { mode: 'web' })).not.toThrow();
    });

    it('reads the OpenAI endpoint and the worker HTTP port', () => {
      const config = loadConfig({ ...WORKER_ENV, OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1', AGENT_HTTP_PORT: '8099' });
      expect(config.openai.baseURL).toBe('http://127.0.0.1:4010/v1');
      expect(config.worker.httpPort).toBe(8099);
      expect(config.worker.processStartTimeoutMs).toBe(120_000);
      expect(loadConfig({ ...WORKER_ENV, AGENT_MAX_CALLS: '4' }).worker.maxCalls).toBe(4);
      expect(loadConfig({ ...WORKER_ENV, AGENT_PROCESS_START_TIMEOUT_S: '45' }).worker.processStartTimeoutMs).toBe(45_000);
      expect(() => loadConfig({ ...WORKER_ENV, AGENT_PROCESS_START_TIMEOUT_S: '0' })).toThrow(/AGENT_PROCESS_START_TIMEOUT_S/);
      expect(() => loadConfig({ ...WORKER_ENV, AGENT_MAX_CALLS: '0' })).toThrow(/AGENT_MAX_CALLS/);
      const bad = configError(() => loadConfig({ ...WORKER_ENV, OPENAI_BASE_URL: 'ws://x', AGENT_HTTP_PORT: '0' }));
      expect(bad.problems.map((p) => p.split(' ')[0])).toEqual(['AGENT_HTTP_PORT', 'OPENAI_BASE_URL']);
    });

    it('hands the job processes the directory where they share acknowledgement audio', () => {
      const before = process.env.ACK_AUDIO_DIR;
      try {
        shareAckAudioDir('/tmp/firstword-acks-x');
        expect(loadConfig({ ...WORKER_ENV, ACK_AUDIO_DIR: process.env.ACK_AUDIO_DIR }).ack.sharedDir).toBe('/tmp/firstword-acks-x');
      } finally {
        if (before === undefined) delete process.env.ACK_AUDIO_DIR;
        else process.env.ACK_AUDIO_DIR = before;
      }
      expect(loadConfig({ ...WORKER_ENV }).ack.sharedDir).toBeUndefined();
    });

    it('hands the job processes two malloc arenas and a 250 ms stall report unless the operator set their own', async () => {
      const keys = ['MALLOC_ARENA_MAX', 'LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS'] as const;
      const before = keys.map((k) => process.env[k]);
      try {
        shareJobProcessSettings(loadConfig({ ...WORKER_ENV }));
        expect([process.env.MALLOC_ARENA_MAX, process.env.LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS]).toEqual(['2', '250']);
        // What the framework makes of it, in each process that starts its loop monitor.
        const { loopMonitor } = (await import('@livekit/agents')).telemetry;
        expect(loopMonitor.LoopMonitorThresholds.fromEnv()).toMatchObject({ warn: 250, error: 500 });
        shareJobProcessSettings(loadConfig({ ...WORKER_ENV, MALLOC_ARENA_MAX: '4', LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS: '0' }));
        expect([process.env.MALLOC_ARENA_MAX, process.env.LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS]).toEqual(['4', '0']);
        expect(loopMonitor.LoopMonitorThresholds.fromEnv()).toBeUndefined();
      } finally {
        keys.forEach((k, i) => {
          if (before[i] === undefined) delete process.env[k];
          else process.env[k] = before[i];
        });
      }
      expect(() => loadConfig({ ...WORKER_ENV, MALLOC_ARENA_MAX: '0' })).toThrow(/MALLOC_ARENA_MAX/);
      expect(() => loadConfig({ ...WORKER_ENV, MALLOC_ARENA_MAX: 'two' })).toThrow(/MALLOC_ARENA_MAX/);
      expect(() => loadConfig({ ...WORKER_ENV, LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS: '-1' })).toThrow(/LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS/);
      expect(() => loadConfig({ ...WORKER_ENV, LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS: '0.1s' })).toThrow(/LIVEKIT_AGENTS_LOOP_BLOCK_WARN_MS/);
    });

    it('derives the call cap from the cores and the measured cost of a call when AGENT_MAX_CALLS is unset', () => {
      const worker = (cores: number, env: Record<string, string> = {}) => loadConfig({ ...WORKER_ENV, ...env }, { mode: 'worker', cpuCores: cores }).worker;
      // cores x 70 % / 0.37 core per call, rounded down, at least one.
      expect([1, 2, 4, 16, 3.7].map((cores) => worker(cores).maxCalls)).toEqual([1, 3, 7, 30, 7]);
      expect(worker(0.25).maxCalls).toBe(1);
      expect(worker(2)).toEqual(expect.objectContaining({ maxCalls: 3, maxCallsFrom: 'cpu cores', cpuCores: 2, cpuBudget: 0.7 }));
      // A set cap wins whatever the cores; a different budget moves the derived cap with it.
      expect(worker(16, { AGENT_MAX_CALLS: '2' })).toEqual(expect.objectContaining({ maxCalls: 2, maxCallsFrom: 'AGENT_MAX_CALLS' }));
      expect(worker(4, { AGENT_CPU_BUDGET: '84' })).toEqual(expect.objectContaining({ maxCalls: 9, cpuBudget: 0.84 }));
      // off: the count alone reports the load; the derived cap keeps the default budget.
      expect(worker(4, { AGENT_CPU_BUDGET: 'OFF' })).toEqual(expect.objectContaining({ maxCalls: 7, cpuBudget: undefined }));
      // Without an explicit count, the host's own cores.
      expect(loadConfig(WORKER_ENV).worker.maxCalls).toBeGreaterThanOrEqual(1);
    });

    it('refuses a call cap or CPU budget that is not a whole number in range, saying what it takes', () => {
      const problems = (env: Record<string, string>) => configError(() => loadConfig({ ...WORKER_ENV, ...env })).problems;
      for (const bad of ['0', '-1', '2.5', 'four', '10001']) {
        expect(problems({ AGENT_MAX_CALLS: bad })).toEqual([`AGENT_MAX_CALLS must be a whole number of calls from 1 to 10000 (got ${JSON.stringify(bad)})`]);
      }
      for (const bad of ['0', '9', '101', '70%', '0.7', 'none']) {
        expect(problems({ AGENT_CPU_BUDGET: bad })).toEqual([`AGENT_CPU_BUDGET must be a whole number of percent from 10 to 100, or off (got ${JSON.stringify(bad)})`]);
      }
    });

    it('hands browsers WEB_LIVEKIT_URL when set, else LIVEKIT_URL', () => {
      expect(loadConfig(WORKER_ENV).web.livekitUrl).toBe('wss://example.livekit.cloud');
      expect(loadConfig({ ...WORKER_ENV, WEB_LIVEKIT_URL: 'wss://public.example' }).web.livekitUrl).toBe('wss://public.example');
    });

    it('reads one auth hook for /token, rate limits and trusted proxies, with safe defaults', () => {
      const web = loadConfig(WORKER_ENV, { mode: 'web' }).web;
      expect(web).toMatchObject({ auth: { kind: 'none' }, rate: { perAddressPerMinute: 10, perUserPerMinute: 10 }, trustedProxyHops: 0, tokenTtlSeconds: 120 });
      expect(loadConfig({ ...WORKER_ENV, WEB_AUTH_SHARED_SECRET: 'shh-backend' }).web.auth).toEqual({ kind: 'shared-secret', secret: 'shh-backend' });
      const jwt = loadConfig({ ...WORKER_ENV, WEB_AUTH_JWKS_URL: 'https://app.example/jwks.json', WEB_AUTH_JWT_AUDIENCE: 'firstword' }).web.auth;
      expect(jwt).toMatchObject({ kind: 'jwt', jwksUrl: 'https://app.example/jwks.json', audience: 'firstword' });
      const tuned = loadConfig({ ...WORKER_ENV, WEB_RATE_PER_ADDRESS: '30', WEB_RATE_PER_USER: '5', WEB_TRUSTED_PROXY_HOPS: '1' }).web;
      expect(tuned).toMatchObject({ rate: { perAddressPerMinute: 30, perUserPerMinute: 5 }, trustedProxyHops: 1 });
    });

    it('refuses two auth hooks at once, JWT claims without a JWT check, and a short HS256 secret, never echoing them', () => {
      const both = configError(() => loadConfig({ ...WORKER_ENV, WEB_AUTH_SHARED_SECRET: 'secret-one-value', WEB_AUTH_JWT_SECRET: 'x'.repeat(40) }));
      expect(both.problems).toEqual(['WEB_AUTH_SHARED_SECRET and WEB_AUTH_JWT_SECRET are both set: choose one way to authenticate /token']);
      expect(both.message).not.toContain('secret-one-value');
      expect(configError(() => loadConfig({ ...WORKER_ENV, WEB_AUTH_JWT_ISSUER: 'https://app' })).problems[0]).toMatch(/^WEB_AUTH_JWT_ISSUER is set without/);
      const short = configError(() => loadConfig({ ...WORKER_ENV, WEB_AUTH_JWT_SECRET: 'short-secret' }));
      expect(short.problems[0]).toMatch(/^WEB_AUTH_JWT_SECRET must be at least 32 characters/);
      expect(short.message).not.toContain('short-secret');
      expect(JSON.stringify(redactedConfig(loadConfig({ ...WORKER_ENV, WEB_AUTH_SHARED_SECRET: 'secret-one-value' })))).not.toContain('secret-one-value');
    });
  });

  describe('keeping secrets out of messages and logs', () => {
    it('never echoes a secret, even when the value around it is wrong', () => {
      const error = configError(() =>
        loadConfig({
          ...SECRETS,
          LIVEKIT_URL: 'not a url',
          TTS_PROVIDER: 'resemble',
          TTS_SAMPLE_RATE: 'abc',
        }),
      );
      // RESEMBLE_VOICE_UUID missing, plus the two bad values.
      expect(error.problems).toHaveLength(3);
      expectNoSecrets(error.message);
    });

    it('masks every key and any credentials inside URLs', () => {
      const config = loadConfig({
        ...SECRETS,
        LIVEKIT_URL: `wss://user:${SECRETS.LIVEKIT_API_SECRET}@example.livekit.cloud`,
        RESEMBLE_VOICE_UUID: 'voice-1',
        CARTESIA_BASE_URL: `https://api.example?token=${SECRETS.CARTESIA_API_KEY}`,
        SIP_AUTH_USERNAME: 'carrier',
        SIP_AUTH_PASSWORD: 'sip-pass-77ab',
      });
      const redacted = redactedConfig(config);
      const serialized = JSON.stringify(redacted);
      expectNoSecrets(serialized);
      expect(serialized).not.toContain('sip-pass-77ab');
      expect(redacted).toMatchObject({
        livekit: { apiKey: '***', apiSecret: '***', url: expect.stringContaining('example.livekit.cloud') },
        openai: { apiKey: '***', llmModel: 'gpt-4.1-mini' },
        tts: {
          provider: 'resemble',
          resemble: { apiKey: '***', voiceUuid: 'voice-1' },
          cartesia: { apiKey: '***', baseURL: expect.stringContaining('api.example') },
        },
      });
    });
  });
});

describe('starting the worker', () => {
  it('with no environment, prints one configuration error and exits non-zero', async () => {
    const root = resolve(import.meta.dirname, '..');
    const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
    // An empty directory, so that no developer's .env is picked up.
    const cwd = mkdtempSync(join(tmpdir(), 'firstword-noenv-'));
    try {
      const child = spawn(process.execPath, [tsxCli, join(root, 'src/agent.ts'), 'start'], {
        cwd,
        env: {},
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await withTimeout(
        new Promise<number | null>((resolveExit) => child.on('close', resolveExit)),
        30_000,
        'the worker to exit',
      ).finally(() => child.kill('SIGKILL'));

      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      expect(stderr.match(/Invalid configuration/g)).toHaveLength(1);
      for (const variable of ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET', 'OPENAI_API_KEY']) {
        expect(stderr).toContain(variable);
      }
      // A config problem is a message, not a crash.
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stdout).toBe('');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 40_000);
});
