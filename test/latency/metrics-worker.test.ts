/**
 * The worker's wiring of the budget: the main process's endpoint (startWorkerMetrics) and a job
 * process's budget pushing to it (attachJobTurnBudget), here in one process over loopback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config/index.js';
import type { MetricsServer } from '../../src/latency/metrics-server.js';
import { attachJobTurnBudget, startWorkerMetrics } from '../../src/latency/worker.js';
import { type AckSession, startAckSession, turnsReported } from '../ack/harness.js';
import { withTimeout } from '../helpers/async.js';
import { testConfig } from '../helpers/config.js';

function withMetricsPort(config: AppConfig, port: number | undefined): AppConfig {
  return { ...config, metrics: { ...config.metrics, port } };
}

async function scrape(server: MetricsServer): Promise<string> {
  const res = await withTimeout(fetch(`${server.url}/metrics`), 5_000, 'scrape');
  return res.text();
}

describe('worker turn metrics', () => {
  let s: AckSession | undefined;
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await s?.close();
    await server?.close();
    s = server = undefined;
  });

  it('has no endpoint without METRICS_PORT', async () => {
    expect(await startWorkerMetrics(testConfig())).toBeUndefined();
  });

  it('refuses a METRICS_HOST that is neither loopback nor every interface', async () => {
    expect(() => startWorkerMetrics(withMetricsPort(testConfig({ METRICS_HOST: '192.0.2.1' }), 0))).toThrow(/METRICS_HOST/);
  });

  it("a job's turns reach the main process's histograms", async () => {
    server = await startWorkerMetrics(withMetricsPort(testConfig(), 0));
    expect(server!.host).toBe('127.0.0.1');
    const question = 'What time is it?';
    s = await startAckSession({
      mode: 'always',
      playout: 'instant',
      responses: [{ input: question, content: 'Nine in the morning.' }],
      utterances: [{ transcript: question }],
    });
    const job = attachJobTurnBudget(s.session, {
      agent: s.agent,
      tts: s.engine,
      config: withMetricsPort(testConfig(), server!.port),
    });
    s.microphone.pushSilence(100);
    await withTimeout(turnsReported(job.budget, 1), 10_000, 'turn reported');
    await withTimeout(job.close(), 5_000, 'pushes sent');

    const text = await scrape(server!);
    expect(text).toContain('firstword_turns_total{ack="played",interrupted="false"} 1');
    expect(text).toMatch(/firstword_caller_wait_seconds_count\{until="first_content"\} 1/);
    expect(text).toMatch(/firstword_turn_stage_seconds_count\{stage="tts_first_byte"\} 1/);
  });
});
