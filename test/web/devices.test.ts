import { describe, expect, it } from 'vitest';
import { deviceOptions, micErrorMessage, micView } from '../../web/devices.js';

const named = (name: string, message = 'browser text') => Object.assign(new Error(message), { name });

describe('device list', () => {
  it('lists audio inputs once each, numbering unnamed ones', () => {
    const list = deviceOptions(
      [
        { deviceId: 'default', label: 'Default - Built-in Microphone', kind: 'audioinput' },
        { deviceId: 'usb', label: '', kind: 'audioinput' },
        { deviceId: 'usb', label: 'USB duplicate', kind: 'audioinput' },
        { deviceId: 'speakers', label: 'Speakers', kind: 'audiooutput' },
        { deviceId: 'cam', label: 'Camera', kind: 'videoinput' },
      ],
      undefined,
    );
    expect(list.options).toEqual([
      { value: 'default', label: 'Default - Built-in Microphone' },
      { value: 'usb', label: 'Microphone 2' },
    ]);
  });

  it('selects the active device, else the default, else the first', () => {
    const devices = [
      { deviceId: 'a', label: 'A' },
      { deviceId: 'default', label: 'Default' },
      { deviceId: 'b', label: 'B' },
    ];
    expect(deviceOptions(devices, 'b').selected).toBe('b');
    expect(deviceOptions(devices, 'gone').selected).toBe('default');
    expect(deviceOptions(devices, undefined).selected).toBe('default');
    expect(deviceOptions(devices.filter((d) => d.deviceId !== 'default'), null).selected).toBe('a');
  });

  it('shows nothing for the anonymous entries browsers list before permission', () => {
    expect(deviceOptions([{ deviceId: '', label: '', kind: 'audioinput' }], undefined)).toEqual({ options: [], selected: null });
    expect(deviceOptions([], 'default')).toEqual({ options: [], selected: null });
  });
});

describe('microphone problems', () => {
  it('explains a denied permission, no device and a busy device, and keeps typing open', () => {
    expect(micErrorMessage(named('NotAllowedError'))).toMatch(/^Microphone permission was denied\./);
    expect(micErrorMessage(named('NotFoundError'))).toMatch(/^No microphone was found\./);
    expect(micErrorMessage(named('OverconstrainedError'))).toMatch(/^No microphone was found\./);
    expect(micErrorMessage(named('NotReadableError'))).toMatch(/another application may be using it/);
    for (const name of ['NotAllowedError', 'NotFoundError', 'NotReadableError', 'TypeError']) {
      expect(micErrorMessage(named(name))).toContain('You can still type to the agent below.');
    }
  });

  it('recognises DOMException-like objects and passes other messages on', () => {
    expect(micErrorMessage({ name: 'NotAllowedError', message: 'Permission denied' })).toMatch(/permission was denied/);
    expect(micErrorMessage(new Error('weird failure'))).toMatch(/^The microphone could not be started: weird failure\./);
    expect(micErrorMessage('plain string')).toMatch(/could not be started: plain string\./);
  });

  it('says an insecure page is the problem, whatever the browser threw', () => {
    expect(micErrorMessage(new TypeError("Cannot read properties of undefined (reading 'getUserMedia')"), { secureContext: false })).toMatch(
      /^The microphone needs a secure page: open this page over https:\/\/ or on localhost\./,
    );
  });
});

describe('mute toggle', () => {
  it('is disabled and not pressed before connecting', () => {
    expect(micView({ connected: false, enabled: false })).toEqual({
      state: 'disconnected',
      pressed: false,
      buttonDisabled: true,
      status: 'Microphone: not connected.',
    });
  });

  it('is pressed while muted or unavailable (pressing it then starts the microphone)', () => {
    expect(micView({ connected: true, enabled: true })).toMatchObject({ state: 'on', pressed: false, buttonDisabled: false });
    expect(micView({ connected: true, enabled: false })).toMatchObject({ state: 'muted', pressed: true, buttonDisabled: false });
    expect(micView({ connected: true, enabled: false, problem: 'No microphone was found.' })).toMatchObject({
      state: 'unavailable',
      pressed: true,
      buttonDisabled: false,
    });
    expect(micView({ connected: true, starting: true, enabled: false })).toMatchObject({ state: 'starting', buttonDisabled: true });
  });
});
