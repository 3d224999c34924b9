/**
 * Every call starts a job process, and every job process imports @livekit/agents. patches/ makes
 * that import leave out what a self-hosted call never uses — the OpenTelemetry SDK and OTLP
 * exporters (only LiveKit Cloud observability needs them) and sharp (only an image sent to a
 * model) — and load each on first use instead. These tests hold the import lean and the first
 * uses working.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { llm } from '@livekit/agents';
import { VideoBufferType, VideoFrame } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';

const fixtures = path.join(import.meta.dirname, 'fixtures');
const runFixture = (file: string): unknown =>
  JSON.parse(execFileSync(process.execPath, [path.join(fixtures, file)], { encoding: 'utf8', timeout: 30_000 }));

/** Loaded on first use, never by the import. */
const LAZY = [
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/resources',
  '@opentelemetry/core',
  '@opentelemetry/otlp-exporter-base',
  '@opentelemetry/otlp-transformer',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/exporter-metrics-otlp-proto',
  'form-data',
  'sharp',
];

describe("a job process's import of the agents framework", () => {
  it('loads the media stack but none of the Cloud telemetry SDK or the image encoder', () => {
    const loaded = runFixture('framework-import.mjs') as string[];
    // The listing sees CommonJS packages at all: the native media bindings are among them.
    expect(loaded).toContain('@livekit/rtc-node');
    expect(loaded.filter((name) => LAZY.includes(name))).toEqual([]);
  });

  it('still sets up LiveKit Cloud tracing on first use, and its exporter delivers a span', () => {
    const received = runFixture('cloud-tracer.mjs') as { path: string; bytes: number }[];
    const traces = received.filter((r) => r.path === '/observability/traces/otlp/v0');
    expect(traces).toHaveLength(1);
    expect(traces[0]!.bytes).toBeGreaterThan(0);
  });

  it('still encodes a video frame for a model, loading sharp when first asked', async () => {
    const [width, height] = [4, 2];
    const frame = new VideoFrame(new Uint8Array(width * height * 4).fill(200), width, height, VideoBufferType.RGBA);
    const image = await llm.serializeImage({ type: 'image_content', id: 'frame', image: frame, inferenceDetail: 'auto', _cache: {} });
    expect(image.mimeType).toBe('image/png');
    const png = Buffer.from(image.base64Data!, 'base64');
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(width);
  });
});
