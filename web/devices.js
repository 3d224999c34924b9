// @ts-check
/**
 * The microphone: the mute toggle's state, the input-device list, and what to tell people when
 * there is no microphone or no permission to use it (the text box keeps working either way).
 *
 * The mute button is a toggle (`aria-pressed="true"` = muted, or no microphone yet: pressing it
 * then tries to start the microphone again). `#mic-status` carries `data-mic`:
 *   disconnected | starting | on | muted | unavailable
 *
 * `micView`, `deviceOptions` and `micErrorMessage` are pure; `renderMic` and `renderDevices`
 * write them into the page.
 */

/**
 * @typedef {'disconnected' | 'starting' | 'on' | 'muted' | 'unavailable'} MicState
 * @typedef {{ state: MicState, pressed: boolean, buttonDisabled: boolean, status: string }} MicView
 * @typedef {{ deviceId: string, label: string, kind?: string, groupId?: string }} DeviceLike
 * @typedef {{ value: string, label: string }} DeviceOption
 * @typedef {{ options: DeviceOption[], selected: string | null }} DeviceList
 */

/**
 * @param {{ connected: boolean, starting?: boolean, enabled: boolean, problem?: string | null }} inputs
 * @returns {MicView}
 */
export function micView({ connected, starting = false, enabled, problem = null }) {
  if (!connected) return { state: 'disconnected', pressed: false, buttonDisabled: true, status: 'Microphone: not connected.' };
  if (starting) return { state: 'starting', pressed: false, buttonDisabled: true, status: 'Microphone: starting…' };
  if (problem) return { state: 'unavailable', pressed: true, buttonDisabled: false, status: 'Microphone: unavailable.' };
  if (enabled) return { state: 'on', pressed: false, buttonDisabled: false, status: 'Microphone: on, the agent hears you.' };
  return { state: 'muted', pressed: true, buttonDisabled: false, status: 'Microphone: muted.' };
}

/**
 * The `<select>` options for audio inputs. Entries without an id (what browsers list before
 * microphone permission is granted) are left out; unnamed ones get a number; the selection is the
 * active device if listed, else the browser's "default", else the first.
 *
 * @param {readonly DeviceLike[]} devices
 * @param {string | null | undefined} activeId
 * @returns {DeviceList}
 */
export function deviceOptions(devices, activeId) {
  /** @type {DeviceOption[]} */
  const options = [];
  const seen = new Set();
  for (const device of devices) {
    if (device.kind !== undefined && device.kind !== 'audioinput') continue;
    if (!device.deviceId || seen.has(device.deviceId)) continue;
    seen.add(device.deviceId);
    options.push({ value: device.deviceId, label: device.label.trim() || `Microphone ${options.length + 1}` });
  }
  const has = (/** @type {string | null | undefined} */ id) => id != null && seen.has(id);
  const selected = has(activeId) ? /** @type {string} */ (activeId) : has('default') ? 'default' : (options[0]?.value ?? null);
  return { options, selected };
}

const TYPE_INSTEAD = 'You can still type to the agent below.';

/**
 * A clear sentence for a failed `getUserMedia` / `setMicrophoneEnabled(true)`.
 *
 * @param {unknown} error
 * @param {{ secureContext?: boolean }} [page]
 */
export function micErrorMessage(error, { secureContext = true } = {}) {
  const name = error instanceof Error || (typeof error === 'object' && error !== null && 'name' in error)
    ? String(/** @type {{ name: unknown }} */ (error).name)
    : '';
  const message = error instanceof Error ? error.message : String(error);
  if (!secureContext) {
    return `The microphone needs a secure page: open this page over https:// or on localhost. ${TYPE_INSTEAD}`;
  }
  switch (name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
    case 'SecurityError':
      return (
        'Microphone permission was denied. Allow the microphone for this page in the browser\'s site ' +
        `settings, then press Mute to try again. ${TYPE_INSTEAD}`
      );
    case 'NotFoundError':
    case 'DevicesNotFoundError':
    case 'OverconstrainedError':
      return `No microphone was found. Connect one, then press Mute to try again. ${TYPE_INSTEAD}`;
    case 'NotReadableError':
    case 'TrackStartError':
    case 'AbortError':
      return (
        'The microphone could not be started; another application may be using it. Close it, then ' +
        `press Mute to try again. ${TYPE_INSTEAD}`
      );
    default:
      return `The microphone could not be started: ${message}. ${TYPE_INSTEAD}`;
  }
}

/**
 * @param {{ button: HTMLButtonElement, status: HTMLElement, error: HTMLElement }} ui
 * @param {MicView} view
 * @param {string | null} problem
 */
export function renderMic(ui, view, problem) {
  ui.button.setAttribute('aria-pressed', String(view.pressed));
  ui.button.disabled = view.buttonDisabled;
  ui.button.dataset.mic = view.state;
  ui.status.dataset.mic = view.state;
  ui.status.textContent = view.status;
  ui.error.hidden = problem === null;
  ui.error.textContent = problem ?? '';
}

/**
 * @param {HTMLSelectElement} select
 * @param {DeviceList} list
 * @param {{ enabled: boolean, placeholder: string }} how
 */
export function renderDevices(select, list, how) {
  const doc = select.ownerDocument;
  const options = list.options.map((device) => {
    const option = doc.createElement('option');
    option.value = device.value;
    option.textContent = device.label;
    return option;
  });
  if (options.length === 0) {
    const option = doc.createElement('option');
    option.value = '';
    option.textContent = how.placeholder;
    options.push(option);
  }
  select.replaceChildren(...options);
  select.value = list.selected ?? '';
  select.disabled = !how.enabled || list.options.length === 0;
  select.dataset.count = String(list.options.length);
}

/**
 * @typedef {{
 *   localParticipant: {
 *     readonly isMicrophoneEnabled: boolean,
 *     setMicrophoneEnabled(enabled: boolean): Promise<unknown>,
 *   },
 *   getActiveDevice(kind: MediaDeviceKind): string | undefined,
 *   switchActiveDevice(kind: MediaDeviceKind, deviceId: string): Promise<boolean>,
 * }} MicRoom
 * @typedef {{ button: HTMLButtonElement, select: HTMLSelectElement, status: HTMLElement, error: HTMLElement }} MicUi
 */

/**
 * The microphone controls of one page: the mute toggle (which starts the microphone again after
 * a failure), the device `<select>`, and the status and problem lines.
 *
 * @param {MicUi} ui
 * @param {{ listDevices(): Promise<readonly DeviceLike[]>, secureContext: boolean }} deps
 *   `listDevices`: `Room.getLocalDevices('audioinput', false)` (no permission prompt of its own)
 */
export function createMicrophone(ui, { listDevices, secureContext }) {
  /** @type {MicRoom | null} */
  let room = null;
  let connected = false;
  let starting = false;
  let published = false;
  /** @type {string | null} */
  let problem = null;

  const render = () => {
    const enabled = room?.localParticipant.isMicrophoneEnabled ?? false;
    renderMic(ui, micView({ connected, starting, enabled, problem }), connected ? problem : null);
  };

  const refreshDevices = async () => {
    const current = room;
    if (!current || !connected) {
      renderDevices(ui.select, { options: [], selected: null }, { enabled: false, placeholder: 'Connect to choose a microphone' });
      return;
    }
    /** @type {readonly DeviceLike[]} */
    let devices = [];
    try {
      devices = await listDevices();
    } catch {
      // no device list (no mediaDevices on an insecure page): the placeholder says so
    }
    if (current !== room) return;
    const placeholder = problem ? 'No microphone available' : 'Default microphone';
    renderDevices(ui.select, deviceOptions(devices, current.getActiveDevice('audioinput')), { enabled: true, placeholder });
  };

  /** @param {unknown} error */
  const fail = (error) => {
    problem = micErrorMessage(error, { secureContext });
    render();
  };

  const start = async () => {
    const current = room;
    if (!current) return;
    starting = true;
    render();
    try {
      await current.localParticipant.setMicrophoneEnabled(true);
      published = true;
      problem = null;
    } catch (error) {
      problem = micErrorMessage(error, { secureContext });
    } finally {
      starting = false;
    }
    if (current !== room) return;
    render();
    await refreshDevices();
  };

  const toggle = async () => {
    const current = room;
    if (!current) return;
    if (problem !== null || !published) return start();
    try {
      await current.localParticipant.setMicrophoneEnabled(!current.localParticipant.isMicrophoneEnabled);
    } catch (error) {
      problem = micErrorMessage(error, { secureContext });
    }
    render();
  };

  /** @param {string} deviceId */
  const choose = async (deviceId) => {
    const current = room;
    if (!current || !deviceId) return;
    try {
      if (!(await current.switchActiveDevice('audioinput', deviceId))) {
        throw new Error('the browser kept the previous microphone');
      }
      problem = null;
    } catch (error) {
      problem = micErrorMessage(error, { secureContext });
    }
    render();
    await refreshDevices();
  };

  ui.button.addEventListener('click', () => void toggle());
  ui.select.addEventListener('change', () => void choose(ui.select.value));

  return {
    get problem() {
      return problem;
    },
    get state() {
      return ui.status.dataset.mic ?? 'disconnected';
    },
    /**
     * A new room (or none): forgets the last one's state; `start()` once it is connected.
     *
     * @param {MicRoom | null} next
     */
    use(next) {
      room = next;
      published = false;
      problem = null;
      starting = next !== null; // until start() has tried, the microphone is "starting"
    },
    /** @param {boolean} isConnected */
    setConnected(isConnected) {
      connected = isConnected;
      render();
      void refreshDevices();
    },
    start,
    fail,
    render,
    refreshDevices,
  };
}
