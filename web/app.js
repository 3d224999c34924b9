/**
 * The test page: asks our server for a token, joins the LiveKit room, publishes the
 * microphone, plays the agent, and shows connection state, the live transcript and each
 * turn's time to first audio. Plain ES module: livekit-client's ESM build is served by
 * our server from node_modules, no bundler.
 */
import { ParticipantEvent, Room, RoomEvent, Track } from '/vendor/livekit-client.esm.mjs';
import { createTurnTimer } from '/turn-timer.js';

const TRANSCRIPTION_TOPIC = 'lk.transcription';
const AGENT_STATE_ATTRIBUTE = 'lk.agent.state';
const SEGMENT_ATTRIBUTE = 'lk.segment_id';
const FINAL_ATTRIBUTE = 'lk.transcription_final';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const ui = {
  form: /** @type {HTMLFormElement} */ ($('join')),
  room: /** @type {HTMLInputElement} */ ($('room')),
  identity: /** @type {HTMLInputElement} */ ($('identity')),
  connect: /** @type {HTMLButtonElement} */ ($('connect')),
  disconnect: /** @type {HTMLButtonElement} */ ($('disconnect')),
  status: $('status'),
  error: $('error'),
  enableAudio: /** @type {HTMLButtonElement} */ ($('enable-audio')),
  transcript: $('transcript'),
  turns: $('turns'),
};

/** @type {Room | undefined} */
let room;
let timer = createTurnTimer();
/** @type {Map<string, HTMLLIElement>} */
const segments = new Map();

/**
 * @param {'idle' | 'connecting' | 'connected' | 'reconnecting' | 'disconnected' | 'error'} state
 * @param {string} text
 */
function setStatus(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
  const busy = state === 'connecting' || state === 'connected' || state === 'reconnecting';
  ui.connect.disabled = busy;
  ui.disconnect.disabled = !busy;
}

/** @param {string | null} message */
function showError(message) {
  ui.error.hidden = message === null;
  ui.error.textContent = message ?? '';
}

const randomSuffix = () => Math.random().toString(36).slice(2, 8);

function initialiseForm() {
  const params = new URLSearchParams(location.search);
  ui.room.value = params.get('room') ?? `firstword-${randomSuffix()}`;
  ui.identity.value = params.get('identity') ?? `guest-${randomSuffix()}`;
  return params.get('autoconnect') === '1';
}

/**
 * @param {string} room
 * @param {string} identity
 * @returns {Promise<{ token: string, url: string }>}
 */
async function fetchToken(room, identity) {
  let response;
  try {
    response = await fetch('/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ room, identity }),
    });
  } catch (error) {
    throw new Error(`Could not reach this page's server for a token (${errorText(error)}).`);
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(`The token request was refused: ${body.message ?? response.statusText}`);
  }
  return body;
}

/** @param {unknown} error */
function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * @param {string} speaker
 * @param {string} segmentId
 * @param {string} text
 * @param {{ append: boolean, final: boolean, agent: boolean }} how
 */
function showTranscript(speaker, segmentId, text, how) {
  let item = segments.get(segmentId);
  if (!item) {
    item = document.createElement('li');
    item.className = how.agent ? 'agent' : 'user';
    const who = document.createElement('span');
    who.className = 'speaker';
    who.textContent = `${speaker}:`;
    item.append(who, document.createElement('span'));
    ui.transcript.append(item);
    segments.set(segmentId, item);
  }
  const body = /** @type {HTMLSpanElement} */ (item.lastElementChild);
  body.textContent = how.append ? body.textContent + text : text;
  item.classList.toggle('interim', !how.final);
}

/** @param {{ turn: number, ms: number } | null} measurement */
function recordTurn(measurement) {
  if (!measurement) return;
  const item = document.createElement('li');
  item.textContent = `Turn ${measurement.turn}: ${measurement.ms} ms`;
  ui.turns.append(item);
}

/** @param {import('livekit-client').RemoteParticipant} participant */
function watchAgentAudio(participant) {
  participant.on(ParticipantEvent.IsSpeakingChanged, (speaking) => {
    if (participant.isAgent) recordTurn(timer.agentSpeaking(speaking, performance.now()));
  });
}

/** @param {Room} current */
function wireRoom(current) {
  current.on(RoomEvent.ConnectionStateChanged, (state) => {
    if (state === 'reconnecting') setStatus('reconnecting', 'Connection lost, reconnecting…');
  });
  current.on(RoomEvent.Reconnected, () => setStatus('connected', `Connected to room "${current.name}".`));
  current.on(RoomEvent.Disconnected, (reason) => {
    if (ui.status.dataset.state !== 'error') setStatus('disconnected', `Disconnected${reason ? ` (${reason})` : ''}.`);
  });
  current.on(RoomEvent.AudioPlaybackStatusChanged, () => {
    ui.enableAudio.hidden = current.canPlaybackAudio;
  });
  current.on(RoomEvent.TrackSubscribed, (track) => {
    if (track.kind === Track.Kind.Audio) document.body.append(track.attach());
  });
  current.on(RoomEvent.TrackUnsubscribed, (track) => {
    for (const element of track.detach()) element.remove();
  });
  current.on(RoomEvent.ParticipantAttributesChanged, (changed, participant) => {
    const state = changed[AGENT_STATE_ATTRIBUTE];
    if (participant.isAgent && state) {
      recordTurn(timer.agentSpeaking(state === 'speaking', performance.now()));
    }
  });
  current.on(RoomEvent.ParticipantConnected, watchAgentAudio);
  current.localParticipant.on(ParticipantEvent.IsSpeakingChanged, (speaking) => {
    timer.userSpeaking(speaking, performance.now());
  });

  current.registerTextStreamHandler(TRANSCRIPTION_TOPIC, async (reader, participantInfo) => {
    const attributes = reader.info.attributes ?? {};
    const segmentId = attributes[SEGMENT_ATTRIBUTE] ?? reader.info.id;
    const mine = participantInfo.identity === current.localParticipant.identity;
    const speaker = mine ? 'You' : 'Agent';
    const final = attributes[FINAL_ATTRIBUTE] === 'true';
    if (mine) {
      // user transcripts arrive whole, one stream per update
      showTranscript(speaker, segmentId, await reader.readAll(), { append: false, final, agent: false });
      return;
    }
    // the agent's text streams in as it is spoken
    for await (const chunk of reader) showTranscript(speaker, segmentId, chunk, { append: true, final: false, agent: true });
    showTranscript(speaker, segmentId, '', { append: true, final: true, agent: true });
  });
}

async function connect() {
  showError(null);
  const roomName = ui.room.value.trim();
  const identity = ui.identity.value.trim();
  setStatus('connecting', 'Requesting a token…');

  /** @type {{ token: string, url: string }} */
  let grant;
  try {
    grant = await fetchToken(roomName, identity);
  } catch (error) {
    setStatus('error', 'Not connected.');
    showError(errorText(error));
    return;
  }

  const current = new Room({ adaptiveStream: true, dynacast: true });
  room = current;
  timer = createTurnTimer();
  segments.clear();
  wireRoom(current);
  setStatus('connecting', `Connecting to ${grant.url}…`);
  try {
    await current.connect(grant.url, grant.token);
  } catch (error) {
    room = undefined;
    setStatus('error', 'Connection failed.');
    showError(
      `Could not connect to LiveKit at ${grant.url}: ${errorText(error)}\n` +
        'Check that the LiveKit server is running and reachable from this browser ' +
        '(LIVEKIT_URL, or WEB_LIVEKIT_URL when browsers use a different address).',
    );
    return;
  }
  setStatus('connected', `Connected to room "${current.name}". Speak when you are ready.`);
  for (const participant of current.remoteParticipants.values()) watchAgentAudio(participant);
  try {
    await current.localParticipant.setMicrophoneEnabled(true);
  } catch (error) {
    showError(`Connected, but the microphone is unavailable: ${errorText(error)}`);
  }
  ui.enableAudio.hidden = current.canPlaybackAudio;
}

async function disconnect() {
  const current = room;
  room = undefined;
  await current?.disconnect();
  setStatus('disconnected', 'Disconnected.');
}

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void connect();
});
ui.disconnect.addEventListener('click', () => void disconnect());
ui.enableAudio.addEventListener('click', () => {
  void room?.startAudio().then(() => (ui.enableAudio.hidden = true));
});

if (initialiseForm()) void connect();
