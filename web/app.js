// @ts-check
/**
 * The test page: asks our server for a token, joins the LiveKit room, publishes the microphone,
 * plays the agent, and shows the connection, the agent's state and voice level, the live
 * transcript (spoken and typed), and each turn's time to first audio. This file only connects
 * livekit-client's events to the modules beside it, whose logic is pure and unit-tested.
 * Plain ES modules: livekit-client's ESM build is served by our server from node_modules.
 */
import { DisconnectReason, ParticipantEvent, Room, RoomEvent, Track } from './livekit.js';
import { AGENT_JOIN_TIMEOUT_MS, AGENT_STATE_ATTRIBUTE, createAgentTracker, isAgentParticipant, renderAgentState } from './agent-state.js';
import { CHAT_TOPIC, bindChat, createChatLines, setChatEnabled } from './chat.js';
import { TokenRefused, connectFailureMessage, disconnectMessage, errorText, fetchToken, readAccessToken, readPageOptions } from './connection.js';
import { installDebugHook } from './debug.js';
import { createMicrophone } from './devices.js';
import { createLevelMeter } from './level-meter.js';
import { TRANSCRIPTION_TOPIC, createTranscript, createTranscriptView, describeTranscription, readTranscription } from './transcript.js';
import { createTurnTimer } from './turn-timer.js';

/** @typedef {import('livekit-client').RemoteParticipant} RemoteParticipant */
/** @typedef {import('livekit-client').RemoteTrack} RemoteTrack */
/** @typedef {'idle' | 'connecting' | 'connected' | 'reconnecting' | 'disconnected' | 'busy' | 'error'} PageState */

/**
 * @template {HTMLElement} T
 * @param {string} id
 */
const $ = (id) => /** @type {T} */ (document.getElementById(id));
const ui = {
  form: /** @type {HTMLFormElement} */ ($('join')),
  name: /** @type {HTMLInputElement} */ ($('name')),
  connect: /** @type {HTMLButtonElement} */ ($('connect')),
  disconnect: /** @type {HTMLButtonElement} */ ($('disconnect')),
  status: $('status'),
  error: $('error'),
  enableAudio: /** @type {HTMLButtonElement} */ ($('enable-audio')),
  agentState: $('agent-state'),
  transcript: /** @type {HTMLOListElement} */ ($('transcript')),
  chat: { form: /** @type {HTMLFormElement} */ ($('chat')), input: /** @type {HTMLTextAreaElement} */ ($('chat-input')), send: /** @type {HTMLButtonElement} */ ($('chat-send')) },
  turns: $('turns'),
};

const options = readPageOptions(location.search, AGENT_JOIN_TIMEOUT_MS);
// A deployer's sign-in token, if the page was opened with one; kept in memory, off the URL bar.
const accessToken = readAccessToken(location.hash);
if (accessToken) history.replaceState(null, '', location.pathname + location.search);
// The agent's level: the meter beside the agent, and the turn timer's first agent sound — an early
// acknowledgement plays before the agent's state says "speaking", and the SFU's speaking flag lags.
const meter = createLevelMeter(/** @type {HTMLMeterElement} */ ($('agent-level')), window, {
  onLevel: (level) => {
    recordTurn(session.timer.agentLevel(level, performance.now()));
  },
});
// The user's own level: shown beside the microphone, and the turn timer's end of speech.
const micMeter = createLevelMeter(/** @type {HTMLMeterElement} */ ($('mic-level')), window, {
  onLevel: (level) => session.timer.userLevel(level, performance.now()),
});
/** @type {MediaStreamTrack | null} the microphone track `micMeter` analyses */
let micMedia = null;
const transcript = createTranscript();
const transcriptView = createTranscriptView(ui.transcript);
const mic = createMicrophone(
  { button: $('mic'), select: $('mic-device'), status: $('mic-status'), error: $('mic-error') },
  { listDevices: () => Room.getLocalDevices('audioinput', false), secureContext: window.isSecureContext },
);

/**
 * Everything about one connection; replaced on each Connect.
 *
 * @param {Room | undefined} room
 * @param {string | null} agentName
 */
function createSession(room, agentName) {
  return {
    room,
    /** connect() succeeded: a later Disconnected is a dropped connection, not a failed join */
    joined: false,
    /** @type {RemoteTrack | null} the agent's audio the level meter follows */
    agentAudio: null,
    agents: createAgentTracker({ agentName, timeoutMs: options.agentTimeoutMs, onChange: showAgent, onAgent: followAgentAudio }),
    timer: createTurnTimer(),
    chat: createChatLines(),
    /** @type {{ turn: number, ms: number }[]} */
    turns: [],
  };
}
let session = createSession(undefined, null);
/** What the error box shows: agent problems come and go with the agent, others stay. */
let errorKind = /** @type {'agent' | 'other' | null} */ (null);

// ---- what the page shows ------------------------------------------------------------------

/**
 * @param {PageState} state
 * @param {string} text
 */
function setStatus(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
  const busy = state === 'connecting' || state === 'connected' || state === 'reconnecting';
  ui.connect.disabled = busy;
  ui.disconnect.disabled = !busy;
  setChatEnabled(ui.chat, state === 'connected');
  mic.setConnected(state === 'connected' || state === 'reconnecting');
  session.agents.connection(busy ? state : 'disconnected');
}

/**
 * @param {string | null} message
 * @param {'agent' | 'other'} [kind]
 */
function showError(message, kind = 'other') {
  errorKind = message === null ? null : kind;
  ui.error.hidden = message === null;
  ui.error.textContent = message ?? '';
}

function showAgent() {
  renderAgentState(ui.agentState, session.agents.view);
  const problem = session.agents.problem;
  if (problem) showError(problem, 'agent');
  else if (errorKind === 'agent') showError(null);
}

/** @param {{ turn: number, ms: number } | null} measurement */
function recordTurn(measurement) {
  if (!measurement) return;
  session.turns.push(measurement);
  const item = document.createElement('li');
  item.dataset.turn = String(measurement.turn);
  item.dataset.ms = String(measurement.ms);
  item.textContent = `Turn ${measurement.turn}: ${measurement.ms} ms`;
  ui.turns.append(item);
}

/** @param {import('./transcript.js').TranscriptUpdate} update */
function applyTranscript(update) {
  const entry = transcript.apply(update);
  if (entry) transcriptView.show(entry);
}

// ---- the agent's audio --------------------------------------------------------------------

/** @param {RemoteParticipant | null} agent */
function followAgentAudio(agent) {
  session.agentAudio = null;
  meter.detach();
  for (const publication of agent?.audioTrackPublications.values() ?? []) {
    if (publication.track) listenToAgent(publication.track);
  }
}

/**
 * The meter follows the agent's voice (published as its microphone); another audio track of the
 * agent (background audio) only while there is no voice track.
 *
 * @param {RemoteTrack} track
 */
function listenToAgent(track) {
  if (session.agentAudio && session.agentAudio !== track && track.source !== Track.Source.Microphone) return;
  session.agentAudio = track;
  meter.attach(track.mediaStreamTrack);
}

/** @param {RemoteParticipant} participant */
function timeAgentSpeech(participant) {
  participant.on(ParticipantEvent.IsSpeakingChanged, (speaking) => {
    if (isAgentParticipant(participant)) recordTurn(session.timer.agentSpeaking(speaking, performance.now()));
  });
}

/** The microphone meter follows the published microphone (a device switch replaces its track). */
function followMicrophone() {
  const published = session.room?.localParticipant.getTrackPublication(Track.Source.Microphone)?.track?.mediaStreamTrack;
  const media = published && published.readyState === 'live' ? published : null;
  if (media === micMedia) return;
  micMedia = media;
  if (media) micMeter.attach(media);
  else micMeter.detach();
}

// ---- the room -----------------------------------------------------------------------------

/** Rooms the user asked to leave: their Disconnected event is not a dropped connection. */
const leaving = new WeakSet();
/** Counts Connect and Disconnect presses: a connect() that was overtaken stops. */
let attempt = 0;

/** @param {Room} current */
function wireRoom(current) {
  const live = () => current === session.room;
  /** @param {number | undefined} reason */
  const reasonName = (reason) => (reason === undefined ? undefined : DisconnectReason[reason]);

  current.on(RoomEvent.ConnectionStateChanged, (state) => {
    if (live() && state === 'reconnecting') setStatus('reconnecting', 'Connection lost, reconnecting…');
  });
  current.on(RoomEvent.Reconnected, () => {
    if (live()) setStatus('connected', `Connected to room "${current.name}".`);
  });
  current.on(RoomEvent.Disconnected, (reason) => {
    if (!live() || !session.joined) return; // a failed connect() says why itself
    const message = leaving.has(current) ? null : disconnectMessage(reasonName(reason), current.localParticipant.identity);
    setStatus('disconnected', message ? 'Connection lost.' : 'Disconnected.');
    followMicrophone();
    if (message) showError(message);
  });
  current.on(RoomEvent.AudioPlaybackStatusChanged, () => {
    ui.enableAudio.hidden = current.canPlaybackAudio;
  });

  current.on(RoomEvent.TrackSubscribed, (track, _publication, participant) => {
    if (track.kind !== Track.Kind.Audio) return;
    document.body.append(track.attach());
    if (!live()) return;
    if (participant === session.agents.agent) listenToAgent(track);
    else session.agents.seen(participant); // adopting the agent follows its subscribed audio
  });
  current.on(RoomEvent.TrackUnsubscribed, (track) => {
    for (const element of track.detach()) element.remove();
    if (track === session.agentAudio) followAgentAudio(session.agents.agent);
  });
  current.on(RoomEvent.ParticipantConnected, (participant) => {
    timeAgentSpeech(participant);
    if (live()) session.agents.seen(participant);
  });
  current.on(RoomEvent.ParticipantDisconnected, (participant, reason) => {
    if (live()) session.agents.left(participant, current.remoteParticipants.values(), reasonName(reason));
  });
  current.on(RoomEvent.ParticipantAttributesChanged, (changed, participant) => {
    if (!live() || participant === current.localParticipant) return;
    const remote = /** @type {RemoteParticipant} */ (participant);
    session.agents.attributesChanged(remote);
    const state = changed[AGENT_STATE_ATTRIBUTE];
    if (remote === session.agents.agent && state) {
      recordTurn(session.timer.agentSpeaking(state === 'speaking', performance.now()));
    }
  });

  current.on(RoomEvent.MediaDevicesChanged, () => void mic.refreshDevices());
  current.on(RoomEvent.ActiveDeviceChanged, (kind) => {
    if (kind !== 'audioinput') return;
    void mic.refreshDevices();
    if (live()) followMicrophone();
  });
  current.on(RoomEvent.MediaDevicesError, (error, kind) => {
    if (live() && (kind === undefined || kind === 'audioinput')) mic.fail(error);
  });
  for (const event of [RoomEvent.LocalTrackPublished, RoomEvent.LocalTrackUnpublished, RoomEvent.TrackMuted, RoomEvent.TrackUnmuted]) {
    current.on(event, () => {
      if (!live()) return;
      mic.render();
      followMicrophone();
    });
  }
  current.localParticipant.on(ParticipantEvent.IsSpeakingChanged, (speaking) => {
    session.timer.userSpeaking(speaking, performance.now());
  });

  current.registerTextStreamHandler(TRANSCRIPTION_TOPIC, (reader, participantInfo) => {
    const local = current.localParticipant;
    const stream = describeTranscription(reader.info, participantInfo.identity, {
      localIdentity: local.identity,
      localTrackIds: local.trackPublications.keys(),
      agentIdentities: [...current.remoteParticipants.values()].filter(isAgentParticipant).map((p) => p.identity),
    });
    readTranscription(reader, stream, applyTranscript).catch((error) => {
      console.warn('transcription stream failed', error);
    });
  });
}

async function connect() {
  const mine = ++attempt;
  showError(null);
  meter.prepare(); // in the click, so the browser lets the audio contexts run
  micMeter.prepare();
  setStatus('connecting', 'Requesting a token…');

  /** @type {import('./connection.js').Grant} */
  let grant;
  try {
    grant = await fetchToken(ui.name.value.trim() || null, { accessToken });
  } catch (error) {
    if (mine !== attempt) return;
    const busy = error instanceof TokenRefused && error.kind === 'busy';
    setStatus(busy ? 'busy' : 'error', busy ? 'All agents are busy.' : 'Not connected.');
    showError(errorText(error));
    return;
  }
  if (mine !== attempt) return; // Disconnect pressed while the token was on its way

  const current = new Room({ adaptiveStream: true, dynacast: true });
  session = createSession(current, grant.agentName);
  mic.use(current);
  transcript.clear();
  transcriptView.clear();
  ui.turns.replaceChildren();
  wireRoom(current);
  setStatus('connecting', `Connecting to ${grant.url}…`);
  try {
    await current.connect(grant.url, grant.token);
  } catch (error) {
    if (current !== session.room || leaving.has(current)) return; // Disconnect pressed meanwhile
    session.room = undefined;
    mic.use(null);
    followMicrophone();
    setStatus('error', 'Connection failed.');
    showError(connectFailureMessage(error, grant.url));
    return;
  }
  session.joined = true;
  setStatus('connected', `Connected to room "${current.name}". Speak when you are ready.`);
  for (const participant of current.remoteParticipants.values()) timeAgentSpeech(participant);
  session.agents.joined(current.remoteParticipants.values());
  ui.enableAudio.hidden = current.canPlaybackAudio;
  await mic.start();
}

async function disconnect() {
  attempt += 1;
  const current = session.room;
  if (current) leaving.add(current);
  await current?.disconnect();
  session.room = undefined;
  mic.use(null);
  followMicrophone();
  setStatus('disconnected', 'Disconnected.');
}

/** @param {string} text */
function sendChat(text) {
  const current = session.room;
  if (!current) return;
  const line = session.chat.line(text);
  applyTranscript(line);
  // a typed turn is timed from its sending, as a spoken one is from the end of speech
  session.timer.userTyped(performance.now());
  /** @param {'sent' | 'failed'} delivery */
  const mark = (delivery) => {
    const entry = transcript.setDelivery(line.id, delivery);
    if (entry) transcriptView.show(entry);
  };
  current.localParticipant.sendText(text, { topic: CHAT_TOPIC }).then(
    () => mark('sent'),
    (error) => {
      mark('failed');
      showError(`Your message was not sent: ${errorText(error)}`);
    },
  );
}

// ---- start --------------------------------------------------------------------------------

if (options.name) ui.name.value = options.name;

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void connect();
});
ui.disconnect.addEventListener('click', () => void disconnect());
ui.enableAudio.addEventListener('click', () => {
  meter.prepare();
  micMeter.prepare();
  void session.room?.startAudio().then(() => (ui.enableAudio.hidden = true));
});
// an autoconnected page starts without a click; the first one lets the level meter run
document.addEventListener(
  'pointerdown',
  () => {
    meter.prepare();
    micMeter.prepare();
  },
  { once: true },
);
bindChat(ui.chat, sendChat);

if (options.debug) {
  installDebugHook(window, {
    room: () => session.room,
    agentTrack: () => /** @type {import('livekit-client').RemoteAudioTrack | null} */ (session.agentAudio),
    state: () => ({
      connection: ui.status.dataset.state,
      status: ui.status.textContent,
      error: ui.error.hidden ? null : ui.error.textContent,
      agent: { identity: session.agents.agent?.identity ?? null, state: ui.agentState.dataset.agentState, label: ui.agentState.textContent },
      mic: { state: mic.state, problem: mic.problem },
      level: meter.level,
      peak: meter.peak,
      micLevel: micMeter.level,
      audioContext: meter.contextState,
      canPlaybackAudio: session.room?.canPlaybackAudio ?? null,
      transcript: transcript.entries(),
      turns: [...session.turns],
    }),
  });
}

setStatus('idle', 'Not connected.');
document.body.dataset.page = 'ready'; // the module ran: tests wait for this
if (options.autoconnect) void connect();
