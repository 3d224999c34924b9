/** bench:turn's `--stt` profiles: what each runs the plugin and the local server with. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_STT_PROFILES, parseSttProfile, parseSttProfiles } from '../../bench/turn/stt-profiles.js';

describe('bench:turn --stt', () => {
  it('server-vad: gpt-4o-transcribe, the final after the server commit; live:LAG/FINAL: gpt-realtime-whisper with both timings', () => {
    expect(parseSttProfile('server-vad')).toMatchObject({ model: 'gpt-4o-transcribe', server: { transcriptionDelayMs: 150, bindTranscripts: 'speech' } });
    expect(parseSttProfile('server-vad:800').server.transcriptionDelayMs).toBe(800);
    expect(parseSttProfile('live:300/1600')).toMatchObject({ name: 'live:300/1600', model: 'gpt-realtime-whisper', server: { deltaLagMs: 300, finalAfterCommitMs: 1600 } });
  });

  it('the default sweep, and refusals that name the expected form', () => {
    expect(parseSttProfiles(DEFAULT_STT_PROFILES.join(',')).map((p) => p.name)).toEqual([
      'server-vad', 'live:300/150', 'live:300/800', 'live:300/1600', 'live:100/150', 'live:600/150',
    ]);
    expect(() => parseSttProfile('live:300')).toThrow(/live:300\/150/);
    expect(() => parseSttProfile('live:x/150')).toThrow(/whole milliseconds/);
    expect(() => parseSttProfile('deepgram')).toThrow(/unknown profile/);
    expect(() => parseSttProfiles('')).toThrow(/at least one/);
  });
});
