/**
 * Joins `--room` as `--identity` and reads `--from`'s microphone through the framework's own room
 * input (RoomIO, as an AgentSession's does), with `--frame-ms` as its `audioFrameSizeMs` (absent:
 * the framework's default), until `--frames` frames carried energy. Prints how long the frames
 * were: `{"e2e":"room-input-frames","ok":true,"frameMs":{"20":…},…}`.
 */
import { initializeLogger, voice } from '@livekit/agents';
import { Room, dispose } from '@livekit/rtc-node';
import { joinToken, need, parseArgs, rms, runClient } from './common.js';

const args = parseArgs();
const wanted = Number(args.frames ?? 25);
const frameMs = args['frame-ms'] === undefined ? undefined : Number(args['frame-ms']);
const timeoutMs = Number(args['timeout-ms'] ?? 30_000);

initializeLogger({ pretty: false, level: 'warn' });

runClient('room-input-frames', timeoutMs, async () => {
  const room = new Room();
  await room.connect(need('LIVEKIT_URL'), await joinToken(args.room ?? 'e2e-frames', args.identity ?? 'frames'), { autoSubscribe: true, dynacast: false });
  const session = new voice.AgentSession({});
  const io = new voice.RoomIO({
    agentSession: session,
    room,
    inputOptions: { participantIdentity: args.from ?? 'tone', textEnabled: false, ...(frameMs === undefined ? {} : { audioFrameSizeMs: frameMs }) },
    outputOptions: { audioEnabled: false, transcriptionEnabled: false },
  });
  io.start();
  const audio = session.input.audio;
  if (!audio) throw new Error('RoomIO set no audio input on the session');
  const reader = audio.stream.getReader();
  const lengths: Record<string, number> = {};
  let energetic = 0;
  while (energetic < wanted) {
    const { done, value } = await reader.read();
    if (done) throw new Error('the room input ended');
    const ms = Math.round((value.samplesPerChannel / value.sampleRate) * 1000);
    lengths[ms] = (lengths[ms] ?? 0) + 1;
    if (rms(value.data) > 1000) energetic++;
  }
  await io.close();
  await room.disconnect();
  return { frameMs: lengths };
}, dispose);
