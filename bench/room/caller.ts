/**
 * One rtc-node caller of a bench, inside the stack's namespace: joins `room` with a token that
 * dispatches `agentName`, publishes a paced microphone (mic.ts) and, once the agent publishes its
 * audio, listens with an Ear (ear.ts). Ready when the agent says it is `listening`. Shared by
 * `npm run bench:room` and `npm run bench:capacity`.
 */
import {
  AudioSource,
  LocalAudioTrack,
  ParticipantKind,
  type RemoteParticipant,
  type RemoteTrack,
  Room,
  RoomEvent,
  TrackKind,
  TrackPublishOptions,
  TrackSource,
} from '@livekit/rtc-node';
import { AccessToken, RoomAgentDispatch, RoomConfiguration } from 'livekit-server-sdk';
import { stackRoomService, stackVariable } from '../../scripts/stack/in-namespace.js';
import { listsAudioOf } from '../../src/recovery/speaking-after-reconnect.js';
import { Ear } from './ear.js';
import { Mic } from './mic.js';
import type { Caller } from './turn.js';


async function token(room: string, agentName: string, identity: string): Promise<string> {
  const at = new AccessToken(stackVariable('LIVEKIT_API_KEY'), stackVariable('LIVEKIT_API_SECRET'), { identity, ttl: 7200 });
  at.addGrant({ roomJoin: true, room, canPublish: true, canSubscribe: true, canPublishData: true });
  // The first join creates the room and dispatches the named worker to it.
  at.roomConfig = new RoomConfiguration({ agents: [new RoomAgentDispatch({ agentName })] });
  return at.toJwt();
}

export interface JoinedCaller extends Caller {
  room: Room;
  /** Date.now() when the connect began and when the agent was listening. */
  joinStartedAt: number;
  listeningAt: number;
  /** Stops the mic and the ear, leaves the room. */
  leave(): Promise<void>;
  /**
   * Whether the server carries the microphone (it lists a track once its media arrives; only then
   * can the agent subscribe to it). After a full reconnect rtc-node republishes the track itself,
   * but under load that publication sometimes never carries media (the server logs "publish time
   * out", and the agent hears nothing): a microphone the server has not listed within `withinMs`
   * is published again, as a client would, up to `MIC_PUBLISH_ATTEMPTS` times (a publication
   * after a rebuilt connection may itself time out: "track publication timed out, no response
   * received from the server").
   */
  microphoneOnServer(withinMs: number): Promise<{ listed: boolean; republished: number; errors: string[] }>;
}

/** How many times a caller publishes its microphone again when the server does not carry it. */
const MIC_PUBLISH_ATTEMPTS = 3;

/** `label` names the caller in errors. Throws when the agent is not listening by `deadline` (Date.now() ms). */
export async function joinCaller(label: string, roomName: string, agentName: string, deadline: number, identity = 'caller'): Promise<JoinedCaller> {
  const joinStartedAt = Date.now();
  const room = new Room();
  let agent: RemoteParticipant | undefined;
  let ear: Ear | undefined;
  const track = new Promise<RemoteTrack>((resolve) => {
    room.on(RoomEvent.TrackSubscribed, (t, _pub, participant) => {
      if (t.kind !== TrackKind.KIND_AUDIO || participant.kind !== ParticipantKind.AGENT) return;
      agent = participant;
      // A later agent track (the agent back after a reconnect): the ear moves to it.
      ear?.follow(t);
      resolve(t);
    });
    // The agent listened to left (a second agent leaving the call to the first): back to an
    // agent still in the room.
    room.on(RoomEvent.ParticipantDisconnected, (participant) => {
      if (participant.identity !== agent?.identity) return;
      for (const other of room.remoteParticipants.values()) {
        if (other.kind !== ParticipantKind.AGENT) continue;
        const audio = [...other.trackPublications.values()].find((p) => p.kind === TrackKind.KIND_AUDIO && p.track)?.track;
        if (!audio) continue;
        agent = other;
        ear?.follow(audio);
        return;
      }
    });
  });
  await room.connect(stackVariable('LIVEKIT_URL'), await token(roomName, agentName, identity), { autoSubscribe: true, dynacast: false });
  // The Mic paces itself with a lead of its own (see mic.ts); the SDK's default queue holds it.
  const source = new AudioSource(48_000, 1);
  const mic = new Mic(source);
  const publishMic = () =>
    room.localParticipant!.publishTrack(LocalAudioTrack.createAudioTrack('caller', source), new TrackPublishOptions({ source: TrackSource.SOURCE_MICROPHONE }));
  // The server lists a track once its media arrives, and only then can the agent subscribe to it
  // (the product's own check after a reconnect, src/recovery/speaking-after-reconnect.ts). A
  // resumed connection keeps its track listed; a rebuilt one lists the republished track or not.
  const rooms = stackRoomService({ requestTimeout: 2 });
  const listedWithin = async (ms: number) => {
    for (const until = Date.now() + ms; ; await new Promise((resolve) => setTimeout(resolve, 250))) {
      const listed = await rooms.listParticipants(roomName).then((people) => listsAudioOf(people, identity), () => false);
      if (listed || Date.now() >= until) return listed;
    }
  };
  const leaveEarly = async () => {
    await mic.stop();
    await room.disconnect();
  };
  await publishMic();
  mic.start();
  const agentTrack = await Promise.race([track, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), deadline - Date.now()))]);
  if (!agentTrack) {
    await leaveEarly();
    throw new Error(`${label}: the agent (${agentName}) published no audio track in time`);
  }
  ear = new Ear(agentTrack);
  const agentState = () => agent?.attributes['lk.agent.state'];
  // The session is up once the agent reports a state; the first turn must not race its start.
  const listening = await ear.until(() => (agentState() === 'listening' ? true : undefined), deadline);
  if (!listening) {
    ear.close();
    await leaveEarly();
    throw new Error(`${label}: agent state is ${agentState()}, not listening`);
  }
  return {
    room,
    mic,
    ear,
    agentState,
    joinStartedAt,
    listeningAt: Date.now(),
    async leave() {
      ear.close();
      await leaveEarly();
    },
    async microphoneOnServer(withinMs) {
      if (await listedWithin(withinMs)) return { listed: true, republished: 0, errors: [] };
      const errors: string[] = [];
      for (let attempt = 1; attempt <= MIC_PUBLISH_ATTEMPTS; attempt++) {
        try {
          for (const publication of [...room.localParticipant!.trackPublications.values()]) {
            if (publication.sid) await room.localParticipant!.unpublishTrack(publication.sid);
          }
          await publishMic();
        } catch (error) {
          errors.push(String(error));
          continue;
        }
        if (await listedWithin(withinMs)) return { listed: true, republished: attempt, errors };
      }
      return { listed: false, republished: MIC_PUBLISH_ATTEMPTS, errors };
    },
  };
}
