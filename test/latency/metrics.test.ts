import { initializeLogger } from '@livekit/agents';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { LatencyMetrics, type TurnSample, toTurnSample, turnSampleSchema } from '../../src/latency/metrics.js';
import { type MetricsServer, createTurnPusher, startMetricsServer } from '../../src/latency/metrics-server.js';
import { buildTurnReport } from '../../src/latency/stamps.js';
import { withTimeout } from '../helpers/async.js';
import { requireForSuite } from '../helpers/requires.js';

const SAMPLE: TurnSample = {
  stages: { llm_first_token: 300, tts_first_byte: 42, turn_to_llm: -120 },
  firstContentMs: 450,
  firstSoundMs: 30,
  ack: 'played',
  interrupted: false,
};

/** The value of one exposition line, e.g. `name{labels} 3`. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

interface HttpResult {
  status: number;
  body: string;
  contentType?: string;
}

function http(url: string, method: string, body?: string, host?: string): Promise<HttpResult> {
  return withTimeout(
    new Promise<HttpResult>((resolve, reject) => {
      const target = new URL(url);
      const req = request(
        { host: host ?? target.hostname.replace(/^\[|\]$/g, ''), port: target.port, path: target.pathname, method },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, contentType: res.headers['content-type'] }));
        },
      );
      req.on('error', reject);
      req.end(body);
    }),
    5_000,
    `${method} ${url}`,
  );
}

describe('LatencyMetrics', () => {
  it('puts each stage and the time to first audio into their buckets, skipping negative leads', async () => {
    const metrics = new LatencyMetrics();
    metrics.observe(SAMPLE);
    const text = await metrics.text();
    const stage = (name: string, le: string) => valueOf(text, `firstword_turn_stage_seconds_bucket{le="${le}",stage="${name}"}`);
    expect(stage('llm_first_token', '0.2')).toBe(0);
    expect(stage('llm_first_token', '0.3')).toBe(1);
    expect(stage('tts_first_byte', '0.025')).toBe(0);
    expect(stage('tts_first_byte', '0.05')).toBe(1);
    expect(valueOf(text, 'firstword_turn_stage_seconds_count{stage="turn_to_llm"}')).toBeUndefined();
    expect(valueOf(text, 'firstword_caller_wait_seconds_bucket{le="0.4",until="first_content"}')).toBe(0);
    expect(valueOf(text, 'firstword_caller_wait_seconds_bucket{le="0.5",until="first_content"}')).toBe(1);
    expect(valueOf(text, 'firstword_caller_wait_seconds_bucket{le="0.05",until="first_sound"}')).toBe(1);
    expect(valueOf(text, 'firstword_turns_total{ack="played",interrupted="false"}')).toBe(1);
  });

  it('registers in its own registry, so two instances never clash', async () => {
    const a = new LatencyMetrics();
    const b = new LatencyMetrics();
    a.observe(SAMPLE);
    expect(valueOf(await b.text(), 'firstword_turns_total{ack="played",interrupted="false"}')).toBeUndefined();
  });

  it('turns a report into a sample the push schema accepts, and refuses anything carrying text', () => {
    const report = buildTurnReport({
      turn: 1,
      stamps: { userStoppedSpeaking: 0, turnDecided: 500, llmRequest: 510, llmFirstToken: 800, ttsFirstFrame: 900 },
      ack: { outcome: 'skipped', reason: 'llm_ready' },
    });
    const sample = toTurnSample(report);
    expect(turnSampleSchema.parse(JSON.parse(JSON.stringify(sample)))).toEqual({
      stages: { end_of_turn: 500, turn_to_llm: 10, llm_first_token: 290 },
      firstSoundMs: 900,
      firstContentMs: 900,
      ack: 'skipped',
      interrupted: false,
    });
    expect(turnSampleSchema.safeParse({ ...sample, transcript: '서울 날씨' }).success).toBe(false);
    expect(turnSampleSchema.safeParse({ ...sample, stages: { 'user said hi': 1 } }).success).toBe(false);
  });
});

describe('metrics endpoint', () => {
  beforeAll(() => initializeLogger({ pretty: false, level: 'error' }));
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('binds loopback unless told otherwise, and only to loopback or every interface', () => {
    const metricsHost = (env: Record<string, string>) => loadConfig(env, { mode: 'demo' }).metrics.host;
    expect(metricsHost({})).toBe('127.0.0.1');
    expect(metricsHost({ METRICS_HOST: ' 0.0.0.0 ' })).toBe('0.0.0.0');
    expect(() => metricsHost({ METRICS_HOST: '10.1.2.3' })).toThrow(ConfigError);
  });

  it('serves /metrics, takes pushed turns, and refuses what is not a turn sample', async () => {
    const metrics = new LatencyMetrics();
    server = await startMetricsServer({ port: 0, metrics });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);

    expect((await http(`${server.url}/turns`, 'POST', JSON.stringify(SAMPLE))).status).toBe(204);
    expect((await http(`${server.url}/turns`, 'POST', '{not json')).status).toBe(400);
    expect((await http(`${server.url}/turns`, 'POST', JSON.stringify({ ...SAMPLE, transcript: 'hi' }))).status).toBe(400);
    expect((await http(`${server.url}/turns`, 'POST', 'x'.repeat(20_000))).status).toBe(413);
    expect((await http(`${server.url}/turns`, 'GET')).status).toBe(405);
    expect((await http(`${server.url}/metrics`, 'POST')).status).toBe(405);
    expect((await http(`${server.url}/`, 'GET')).status).toBe(404);

    const scraped = await http(`${server.url}/metrics`, 'GET');
    expect(scraped.status).toBe(200);
    expect(scraped.contentType).toContain('text/plain');
    expect(valueOf(scraped.body, 'firstword_turns_total{ack="played",interrupted="false"}')).toBe(1);
  });

  it('without pushes, /turns does not exist', async () => {
    server = await startMetricsServer({ port: 0, metrics: new LatencyMetrics(), acceptPushes: false });
    expect((await http(`${server.url}/turns`, 'POST', JSON.stringify(SAMPLE))).status).toBe(404);
  });

  it('a job process pushes its turns; the scrape in the main process sees them', async () => {
    const metrics = new LatencyMetrics();
    server = await startMetricsServer({ port: 0, metrics });
    const pusher = createTurnPusher({ port: server.port });
    pusher.push(SAMPLE);
    pusher.push({ ...SAMPLE, ack: undefined, firstSoundMs: undefined, interrupted: true });
    await withTimeout(pusher.close(), 5_000, 'pushes');
    const text = await metrics.text();
    expect(valueOf(text, 'firstword_turns_total{ack="played",interrupted="false"}')).toBe(1);
    expect(valueOf(text, 'firstword_turns_total{ack="off",interrupted="true"}')).toBe(1);
    expect(valueOf(text, 'firstword_caller_wait_seconds_count{until="first_content"}')).toBe(2);
  });

  it('a push to nowhere is dropped without an error reaching the caller', async () => {
    const probe = await startMetricsServer({ port: 0, metrics: new LatencyMetrics() });
    const port = probe.port;
    await probe.close();
    const pusher = createTurnPusher({ port, timeoutMs: 500 });
    expect(() => pusher.push(SAMPLE)).not.toThrow();
    await withTimeout(pusher.close(), 5_000, 'failed push settled');
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  const hasInterface = requireForSuite('metrics on every interface', external ? undefined : 'no non-loopback IPv4 interface on this machine');

  it.skipIf(!hasInterface)('bound to every interface, it serves scrapes from the network but refuses its pushes', async () => {
    server = await startMetricsServer({ port: 0, host: '0.0.0.0', metrics: new LatencyMetrics() });
    const url = `http://${external}:${server.port}`;
    expect((await http(`${url}/metrics`, 'GET')).status).toBe(200);
    expect((await http(`${url}/turns`, 'POST', JSON.stringify(SAMPLE))).status).toBe(403);
  });
});
