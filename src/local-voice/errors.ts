/** Why the local voice could not start or keep running. */
export type LocalVoiceErrorCode = 'VOICE_NOT_INSTALLED' | 'PORT_IN_USE' | 'NOT_LOOPBACK' | 'INVALID_OPTIONS' | 'VOICE_FAILED';

export const ESPEAK_PACKAGE = '@echogarden/espeak-ng-emscripten';

/**
 * An error meant to be shown to a person as-is: the message says what happened and what to do,
 * so command-line entry points print `message` and exit instead of dumping a stack.
 */
export class LocalVoiceError extends Error {
  readonly code: LocalVoiceErrorCode;

  constructor(code: LocalVoiceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalVoiceError';
    this.code = code;
  }
}

export function voiceNotInstalledError(cause?: unknown): LocalVoiceError {
  return new LocalVoiceError(
    'VOICE_NOT_INSTALLED',
    `The local voice needs the optional package ${ESPEAK_PACKAGE} (eSpeak-NG, GPL-3.0), which is not ` +
      `installed. Install it with \`npm i --include=optional\` (or \`npm ci --include=optional\`), ` +
      `or set provider keys (RESEMBLE_API_KEY or CARTESIA_API_KEY) to use a hosted voice instead.`,
    { cause },
  );
}

export function portInUseError(host: string, port: number, cause?: unknown): LocalVoiceError {
  return new LocalVoiceError(
    'PORT_IN_USE',
    `The local voice server cannot listen on ${host}:${port}: the port is already in use. ` +
      `Stop whatever holds it, or choose another port (0 picks a free one).`,
    { cause },
  );
}
