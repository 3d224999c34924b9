/**
 * Joins `--room` as `--identity`, subscribes to the first audio track of `--from` (any remote
 * participant when unset) and reads it on an AudioStream until `--frames` 10 ms frames had an RMS
 * above `--threshold`. Frames flow even when the sender is silent, so energy, not arrival, is
 * the proof. Prints `{"e2e":"audio-receiver","ok":true,"energeticFrames":…,"maxRms":…,…}`.
 */
import { AudioStream, type RemoteTrack, Room, RoomEvent, TrackKind, dispose } from '@livekit/rtc-node';
import { joinToken, need, parseArgs, rms, runClient } from './common.js';
import { iceCandidates } from './rtc.js';

const args = parseArgs();
const threshold = Number(args.threshold ?? 1000);
const wanted = Number(args.frames ?? 50);
const timeoutMs = Number(args['timeout-ms'] ?? 30_000);

runClient('audio-receiver', timeoutMs, async () => {
  const roomName = args.room ?? 'e2e-smoke';
  const room = new Room();
  const joinedAt = Date.now();
  const subscribed = new Promise<{ track: RemoteTrack; from: string }>((resolve) => {
    room.on(RoomEvent.TrackSubscribed, (track, _publication, participant) => {
      if (track.kind !== TrackKind.KIND_AUDIO) return;
      if (args.from && participant.identity !== args.from) return;
      resolve({ track, from: participant.identity });
    });
  });
  await room.connect(need('LIVEKIT_URL'), await joinToken(roomName, args.identity ?? 'receiver'), {
    autoSubscribe: true,
    dynacast: false,
  });
  const { track, from } = await subscribed;
  const subscribedMs = Date.now() - joinedAt;

  let frames = 0;
  let energeticFrames = 0;
  let maxRms = 0;
  let firstEnergyMs: number | undefined;
  for await (const frame of new AudioStream(track, { sampleRate: 48_000, numChannels: 1 })) {
    frames++;
    const level = rms(frame.data);
    maxRms = Math.max(maxRms, level);
    if (level < threshold) continue;
    firstEnergyMs ??= Date.now() - joinedAt;
    if (++energeticFrames >= wanted) break;
  }
  const candidates = await iceCandidates(room);
  await room.disconnect();
  return { from, frames, energeticFrames, maxRms: Math.round(maxRms), subscribedMs, firstEnergyMs, candidates };
}, dispose);
