/**
 * Joins `--room` as `--identity` and publishes a 440 Hz tone as a microphone track in 10 ms
 * frames, for `--seconds` once `--wait-for` (another identity) is in the room, so the listener
 * never misses the start. Prints `{"e2e":"tone-publisher","ok":true,"framesSent":…,"candidates":[…]}`.
 *
 *   npm run stack -- exec npx tsx test/e2e/clients/tone-publisher.ts --room r1 --identity pub
 */
import {
  AudioFrame,
  AudioSource,
  LocalAudioTrack,
  Room,
  RoomEvent,
  dispose,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { joinToken, need, parseArgs, runClient } from './common.js';
import { iceCandidates } from './rtc.js';

const args = parseArgs();
const SAMPLE_RATE = 48_000;
const FRAME = SAMPLE_RATE / 100;
const seconds = Number(args.seconds ?? 6);
const timeoutMs = Number(args['timeout-ms'] ?? 30_000);

function toneFrame(index: number, frequency = 440, amplitude = 0.3): AudioFrame {
  const data = new Int16Array(FRAME);
  for (let i = 0; i < FRAME; i++) {
    const t = (index * FRAME + i) / SAMPLE_RATE;
    data[i] = Math.round(Math.sin(2 * Math.PI * frequency * t) * amplitude * 32767);
  }
  return new AudioFrame(data, SAMPLE_RATE, 1, FRAME);
}

async function waitForParticipant(room: Room, identity: string): Promise<void> {
  if (room.remoteParticipants.has(identity)) return;
  await new Promise<void>((resolve) => {
    const onJoin = (participant: { identity: string }) => {
      if (participant.identity !== identity) return;
      room.off(RoomEvent.ParticipantConnected, onJoin);
      resolve();
    };
    room.on(RoomEvent.ParticipantConnected, onJoin);
  });
}

runClient('tone-publisher', timeoutMs, async () => {
  const roomName = args.room ?? 'e2e-smoke';
  const room = new Room();
  const startedAt = Date.now();
  await room.connect(need('LIVEKIT_URL'), await joinToken(roomName, args.identity ?? 'publisher'), {
    autoSubscribe: false,
    dynacast: false,
  });
  const source = new AudioSource(SAMPLE_RATE, 1);
  const track = LocalAudioTrack.createAudioTrack('tone', source);
  await room.localParticipant!.publishTrack(track, new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
  const publishedMs = Date.now() - startedAt;
  if (args['wait-for']) await waitForParticipant(room, args['wait-for']);
  const peerMs = Date.now() - startedAt;

  let framesSent = 0;
  // captureFrame paces itself to real time once the source's 1 s queue is full.
  for (; framesSent < seconds * 100; framesSent++) await source.captureFrame(toneFrame(framesSent));
  await source.waitForPlayout();
  const candidates = await iceCandidates(room);
  await room.disconnect();
  return { framesSent, publishedMs, peerMs, candidates };
}, dispose);
