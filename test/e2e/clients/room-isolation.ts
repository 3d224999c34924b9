/**
 * What a stranger can do against the real stack's page server and livekit-server, as two browser
 * sessions (two cookie jars) and an intruder would:
 *   1. session A asks /token, joins its room with rtc-node, and the agent joins it;
 *   2. session B asks /token — with no cookie, with A's room and identity in the body, with a cookie
 *      it forged to name A's room — and never gets A's room;
 *   3. tokens for A's room that B could come by — B's own token edited to name A's room, one
 *      signed with a guessed secret, an expired one — are refused by livekit-server;
 *   4. a third participant holding a valid token for A's room is refused by the server (the room
 *      admits one caller), while A stays connected with its agent;
 *   5. with the worker at AGENT_MAX_CALLS (A's and B's calls), session C gets 503 busy.
 * Every room it made is deleted at the end. Prints `{"e2e":"room-isolation","ok":true,…}`.
 */
import { ConnectionState, type RemoteParticipant, Room, RoomEvent, dispose } from '@livekit/rtc-node';
import { SignJWT } from 'jose';
import { AccessToken, RoomServiceClient } from 'livekit-server-sdk';
import { AGENT_STATE, isAgent } from './agent.js';
import { need, parseArgs, runClient } from './common.js';

const args = parseArgs();
const timeoutMs = Number(args['timeout-ms'] ?? 90_000);
const web = need('STACK_WEB_URL');
const livekitUrl = need('LIVEKIT_URL');
const apiKey = need('LIVEKIT_API_KEY');
const apiSecret = need('LIVEKIT_API_SECRET');

interface Grant {
  status: number;
  body: Record<string, unknown>;
  cookie?: string;
}

/** One browser session's request to /token (its cookie jar is the `cookie` it passes back). */
async function askToken(body: unknown, cookie?: string): Promise<Grant> {
  const response = await fetch(new URL('/token', web), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  const setCookie = response.headers.get('set-cookie');
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, cookie: setCookie?.split(';')[0] };
}

/** Tries to join with a token; returns the server's refusal, or leaves at once if it let us in. */
async function tryJoin(token: string): Promise<{ joined: boolean; error?: string }> {
  const room = new Room();
  try {
    await room.connect(livekitUrl, token, { autoSubscribe: false, dynacast: false });
    const joined = room.connectionState === ConnectionState.CONN_CONNECTED;
    await room.disconnect();
    return { joined };
  } catch (error) {
    // The server echoes the token it refused; the reason is what matters.
    return { joined: false, error: String((error as Error).message ?? error).replace(/invalid token: [\w.-]+/, 'invalid token: …') };
  }
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

const made = new Set<string>();
const rooms = new RoomServiceClient(livekitUrl, apiKey, apiSecret);
let callerRoom: Room | undefined;

runClient(
  'room-isolation',
  timeoutMs,
  async () => {
    // 1. session A: its room, its token, the agent
    const a = await askToken({});
    if (a.status !== 200) throw new Error(`session A: HTTP ${a.status} ${JSON.stringify(a.body)}`);
    const roomA = String(a.body.room);
    made.add(roomA);
    const joined = new Room();
    callerRoom = joined;
    let found: (identity: string) => void = () => {};
    const agentReady = new Promise<string>((resolve) => (found = resolve));
    const look = (p: RemoteParticipant) => {
      if (isAgent(p) && p.attributes[AGENT_STATE] !== undefined) found(p.identity);
    };
    joined.on(RoomEvent.ParticipantConnected, look);
    joined.on(RoomEvent.ParticipantAttributesChanged, (_c, p) => {
      if (p !== joined.localParticipant) look(p as RemoteParticipant);
    });
    await joined.connect(livekitUrl, String(a.body.token), { autoSubscribe: false, dynacast: false });
    for (const p of joined.remoteParticipants.values()) look(p);
    const agent = await Promise.race([
      agentReady,
      new Promise<string>((_, reject) => setTimeout(() => reject(new Error('no agent in A\'s room within 45 s')), 45_000)),
    ]);

    // 2. session B's requests
    const b = await askToken({});
    made.add(String(b.body.room));
    const bNamesA = await askToken({ room: roomA, identity: a.body.identity });
    const [, signatureB] = decodeURIComponent(b.cookie!.split('=')[1]!).split('.');
    const forgedCookie = `firstword_session=${b64([roomA, a.body.identity, Math.floor(Date.now() / 1000) + 3600])}.${signatureB}`;
    const bForged = await askToken({}, forgedCookie);
    if (bForged.body.room) made.add(String(bForged.body.room));
    const bAgain = await askToken({}, b.cookie);

    // 3. tokens for A's room: B's own edited, a guessed secret, an expired one
    const tokenB = String(b.body.token);
    const [headerB, , sigB] = tokenB.split('.');
    const editedClaims = { ...claimsOf(tokenB), video: { ...(claimsOf(tokenB).video as object), room: roomA } };
    const edited = await tryJoin(`${headerB}.${b64(editedClaims)}.${sigB}`);
    const now = Math.floor(Date.now() / 1000);
    const intruderClaims = { video: { roomJoin: true, room: roomA }, sub: 'intruder', iss: apiKey };
    const guessed = await tryJoin(
      await new SignJWT(intruderClaims).setProtectedHeader({ alg: 'HS256' }).setNotBefore(now - 60).setExpirationTime(now + 600).sign(new TextEncoder().encode('secret-a-stranger-guessed')),
    );
    const expired = await tryJoin(
      await new SignJWT(intruderClaims).setProtectedHeader({ alg: 'HS256' }).setNotBefore(now - 900).setExpirationTime(now - 300).sign(new TextEncoder().encode(apiSecret)),
    );

    // 4. a third participant with a valid token for A's room
    const third = new AccessToken(apiKey, apiSecret, { identity: 'third-participant', ttl: 120 });
    third.addGrant({ roomJoin: true, room: roomA, canSubscribe: true });
    const thirdJoin = await tryJoin(await third.toJwt());
    const participantsOfA = (await rooms.listParticipants(roomA)).map((p) => p.identity).sort();
    const aStillConnected = joined.connectionState === ConnectionState.CONN_CONNECTED;

    // 5. session C while A's and B's calls fill the worker
    const c = await askToken({});
    if (c.body.room) made.add(String(c.body.room));

    return {
      a: { status: a.status, room: roomA, identity: a.body.identity, cookie: a.cookie?.replace(/=.*/, '=…'), setCookie: a.cookie !== undefined, agent },
      b: { status: b.status, room: b.body.room, identity: b.body.identity },
      bNamesA: { status: bNamesA.status, error: bNamesA.body.error, message: bNamesA.body.message, room: bNamesA.body.room ?? null },
      bForged: { status: bForged.status, room: bForged.body.room ?? null },
      bAgain: { status: bAgain.status, room: bAgain.body.room ?? null },
      edited,
      guessed,
      expired,
      third: thirdJoin,
      participantsOfA,
      aStillConnected,
      c: { status: c.status, error: c.body.error ?? null, message: c.body.message ?? null },
    };
  },
  async () => {
    await callerRoom?.disconnect().catch(() => {});
    await Promise.all([...made].map((name) => rooms.deleteRoom(name).catch(() => {})));
    await dispose();
  },
);
