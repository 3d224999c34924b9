/**
 * What a process run INSIDE the stack's namespace (`npm run stack -- exec`, a drill's caller, a
 * benchmark's driver) reads of the stack: its variables (`stackEnv` in ./state.ts), and the
 * server API built from them.
 */
import { RoomServiceClient } from 'livekit-server-sdk';

export function stackVariable(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through the stack (npm run stack -- exec)`);
  return value;
}

/** The Twirp room API of the stack's one URL. */
export function stackRoomService(options?: { requestTimeout?: number }): RoomServiceClient {
  return new RoomServiceClient(stackVariable('LIVEKIT_URL').replace(/^ws/, 'http'), stackVariable('LIVEKIT_API_KEY'), stackVariable('LIVEKIT_API_SECRET'), options);
}
