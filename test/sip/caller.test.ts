import { ParticipantKind } from '@livekit/rtc-node';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import {
  describeCaller,
  greetingFor,
  isSipParticipant,
  maskIdentity,
  maskPhoneNumber,
  DEFAULT_GREETINGS,
} from '../../src/sip/index.js';

type Env = Record<string, string>;
const readSipCallEnv = (env: Env) => loadConfig(env, { mode: 'demo' }).sip.call;
const readSipSetupEnv = (env: Env) => {
  const config = loadConfig(env, { mode: 'sip-setup' });
  return { ...config.sip.setup, livekit: config.livekit, agentName: config.agentName };
};

const sipCaller = {
  identity: 'sip_+14155550123',
  kind: ParticipantKind.SIP,
  attributes: { 'sip.callID': 'SCL_abc', 'sip.phoneNumber': '+14155550123', 'sip.trunkPhoneNumber': '+14155550100' },
};
const browserUser = { identity: 'alice', kind: ParticipantKind.STANDARD, attributes: {} };

describe('maskPhoneNumber', () => {
  it.each([
    ['+14155550123', '+*******0123'],
    ['+821012345678', '+********5678'],
    ['+1 (415) 555-0123', '+* (***) ***-0123'],
    ['sip:+14155550123@pstn.example.com', '+*******0123'],
    ['55501', '***01'],
    ['1234', '****'],
  ])('%s → %s', (input, expected) => {
    expect(maskPhoneNumber(input)).toBe(expected);
  });

  it('never returns the digits it hides', () => {
    const masked = maskPhoneNumber('+821098765432');
    expect(masked).not.toContain('98765');
    expect(masked.endsWith('5432')).toBe(true);
  });

  it.each([undefined, null, '', 'anonymous'])('has a placeholder for %s', (input) => {
    expect(maskPhoneNumber(input)).toBe('(unknown)');
  });
});

describe('isSipParticipant', () => {
  it('recognises the SIP participant kind', () => {
    expect(isSipParticipant(sipCaller)).toBe(true);
    expect(isSipParticipant({ identity: 'x', kind: ParticipantKind.SIP })).toBe(true);
  });

  it('recognises a caller by its sip.callID attribute when the kind is missing', () => {
    expect(isSipParticipant({ identity: 'x', attributes: { 'sip.callID': 'SCL_1' } })).toBe(true);
  });

  it('rejects browser users, agents and nothing', () => {
    expect(isSipParticipant(browserUser)).toBe(false);
    expect(isSipParticipant({ identity: 'agent', kind: ParticipantKind.AGENT })).toBe(false);
    expect(isSipParticipant(undefined)).toBe(false);
  });
});

describe('greetingFor', () => {
  it('greets in the session language, region tags included', () => {
    expect(greetingFor('ko')).toBe(DEFAULT_GREETINGS.ko);
    expect(greetingFor('ko-KR')).toBe(DEFAULT_GREETINGS.ko);
    expect(greetingFor('en-US')).toBe(DEFAULT_GREETINGS.en);
  });

  it('falls back to English for an unknown language and lets an override win', () => {
    expect(greetingFor('xx')).toBe(DEFAULT_GREETINGS.en);
    expect(greetingFor(undefined)).toBe(DEFAULT_GREETINGS.en);
    expect(greetingFor('ko', '  Hello from the override.  ')).toBe('Hello from the override.');
  });

  it('opens with a short first clause so the chunker can release it alone', () => {
    for (const text of Object.values(DEFAULT_GREETINGS)) {
      const firstClause = text.split(/[,，]/)[0]!;
      expect(firstClause.length).toBeLessThanOrEqual(8);
    }
  });
});

describe('describeCaller', () => {
  it('gives a SIP caller telephony options, a greeting and masked log fields', () => {
    const caller = describeCaller(sipCaller, { language: 'ko' });

    expect(caller.channel).toBe('sip');
    expect(caller.telephony?.sampleRate).toBe(16000);
    expect(caller.telephony?.startOptions).toEqual({
      inputOptions: { audioSampleRate: 16000, participantIdentity: 'sip_+14155550123' },
      outputOptions: { audioSampleRate: 16000 },
    });
    expect(caller.greeting).toBe(DEFAULT_GREETINGS.ko);
    expect(caller.logFields).toEqual({
      'caller.channel': 'sip',
      'caller.identity': 'sip_+*******0123',
      'caller.number': '+*******0123',
    });
    expect(JSON.stringify(caller.logFields)).not.toContain('5550123');
  });

  it('honours SIP_SAMPLE_RATE, SIP_LANGUAGE and SIP_GREETING', () => {
    const korean = describeCaller(sipCaller, { sip: readSipCallEnv({ SIP_SAMPLE_RATE: '8000', SIP_LANGUAGE: 'ko-KR' }) });
    expect(korean.telephony?.sampleRate).toBe(8000);
    expect(korean.telephony?.startOptions.outputOptions.audioSampleRate).toBe(8000);
    expect(korean.greeting).toBe(DEFAULT_GREETINGS.ko);

    const custom = describeCaller(sipCaller, { sip: readSipCallEnv({ SIP_GREETING: 'Acme, hello!' }) });
    expect(custom.greeting).toBe('Acme, hello!');
  });

  it('leaves browser users alone: no telephony options, no greeting', () => {
    const caller = describeCaller(browserUser);
    expect(caller).toEqual({ channel: 'web', logFields: { 'caller.channel': 'web', 'caller.identity': 'alice' } });
  });

  it('masks numbers embedded in identities', () => {
    expect(maskIdentity('sip_+821012345678')).toBe('sip_+********5678');
    expect(maskIdentity('alice')).toBe('alice');
  });
});

describe('SIP env', () => {
  it('defaults the call options', () => {
    expect(readSipCallEnv({})).toEqual({ sampleRate: 16000, language: 'en', greeting: undefined });
    expect(readSipCallEnv({ SIP_SAMPLE_RATE: '' })).toEqual({ sampleRate: 16000, language: 'en', greeting: undefined });
  });

  it('rejects a sample rate a phone line cannot carry and a malformed language', () => {
    expect(() => readSipCallEnv({ SIP_SAMPLE_RATE: '44100' })).toThrow(/SIP_SAMPLE_RATE must be one of 8000, 16000, 24000/);
    expect(() => readSipCallEnv({ SIP_LANGUAGE: 'korean please' })).toThrow(/SIP_LANGUAGE/);
  });

  it('parses the setup variables with defaults', () => {
    const env = readSipSetupEnv({
      LIVEKIT_URL: 'wss://proj.livekit.cloud',
      LIVEKIT_API_KEY: 'k',
      LIVEKIT_API_SECRET: 's',
      AGENT_NAME: 'firstword',
      SIP_NUMBERS: '+14155550100,+821012345678 ,',
    });
    expect(env.numbers).toEqual(['+14155550100', '+821012345678']);
    expect(env).toMatchObject({
      trunkName: 'firstword-inbound',
      dispatchRuleName: 'firstword-dispatch',
      roomPrefix: 'call-',
      auth: undefined,
    });
  });

  it('lists every setup problem in one error, auth pairing included', () => {
    let error: unknown;
    try {
      readSipSetupEnv({ SIP_NUMBERS: '4155550100', SIP_AUTH_USERNAME: 'u' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['LIVEKIT_URL', 'LIVEKIT_API_KEY', 'LIVEKIT_API_SECRET', 'AGENT_NAME', 'SIP_NUMBERS', 'SIP_AUTH_PASSWORD']) {
      expect(problems).toContain(name);
    }
  });
});
