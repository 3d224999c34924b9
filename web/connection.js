// @ts-check
/**
 * Getting into the room and saying clearly why not: the page's options from its URL, the token
 * request to this page's server, and messages for a failed connection or a dropped one.
 * All pure (`fetchToken` takes the `fetch` to use).
 */

/**
 * @typedef {{
 *   name: string | null,
 *   autoconnect: boolean,
 *   debug: boolean,
 *   agentTimeoutMs: number,
 * }} PageOptions
 * @typedef {{ token: string, url: string, agentName: string | null }} Grant
 * @typedef {'busy' | 'unauthorized' | 'rate_limited' | 'other'} RefusalKind
 */

/**
 * `?name=…&autoconnect=1`, plus `debug=1` (the test hook) and `agentTimeout=<s>` (how long to
 * wait for the agent before saying it is missing; default 15). The room and identity are the
 * server's to choose.
 *
 * @param {string} search `location.search`
 * @param {number} defaultAgentTimeoutMs
 * @returns {PageOptions}
 */
export function readPageOptions(search, defaultAgentTimeoutMs) {
  const params = new URLSearchParams(search);
  const seconds = Number(params.get('agentTimeout'));
  return {
    name: params.get('name'),
    autoconnect: params.get('autoconnect') === '1',
    debug: params.get('debug') === '1',
    agentTimeoutMs: params.has('agentTimeout') && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : defaultAgentTimeoutMs,
  };
}

/** @param {unknown} error */
export function errorText(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The sign-in token a deployer's app hands the page in the URL fragment (`#access_token=…`), which
 * browsers never send to a server nor put in a Referer; null without one.
 *
 * @param {string} hash `location.hash`
 * @returns {string | null}
 */
export function readAccessToken(hash) {
  return new URLSearchParams(hash.replace(/^#/, '')).get('access_token');
}

/** A refused token request, with what kind of refusal it was (the page shows "busy" as its own state). */
export class TokenRefused extends Error {
  /**
   * @param {string} message
   * @param {RefusalKind} kind
   */
  constructor(message, kind) {
    super(message);
    this.name = 'TokenRefused';
    this.kind = kind;
  }
}

/** @param {string} code the `error` field of the server's answer */
function refusalKind(code) {
  return code === 'busy' || code === 'unauthorized' || code === 'rate_limited' ? code : 'other';
}

/**
 * Asks this page's server for a join token. The server chooses the room and the identity (and
 * remembers them in an HttpOnly cookie); the page sends only a display name.
 *
 * @param {string | null} name
 * @param {{ accessToken?: string | null, fetchImpl?: typeof fetch }} [options]
 * @returns {Promise<Grant>}
 */
export async function fetchToken(name, { accessToken = null, fetchImpl = fetch } = {}) {
  let response;
  try {
    response = await fetchImpl('/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
      body: JSON.stringify(name ? { name } : {}),
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new Error(`Could not reach this page's server for a token (${errorText(error)}). Is npm run web still running?`);
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const reason = body.message ?? (response.statusText || `HTTP ${response.status}`);
    const kind = refusalKind(typeof body.error === 'string' ? body.error : '');
    if (kind === 'busy') throw new TokenRefused(reason, kind);
    if (kind === 'unauthorized') throw new TokenRefused(`Sign in first: ${reason}`, kind);
    throw new TokenRefused(`The token request was refused: ${reason}`, kind);
  }
  if (typeof body.token !== 'string' || typeof body.url !== 'string') {
    throw new Error("This page's server answered the token request without a token and URL.");
  }
  return { token: body.token, url: body.url, agentName: typeof body.agentName === 'string' ? body.agentName : null };
}

/** livekit-client's `ConnectionErrorReason.NotAllowed`. */
const NOT_ALLOWED = 0;

/**
 * Why `room.connect()` failed, for people.
 *
 * @param {unknown} error
 * @param {string} url
 */
export function connectFailureMessage(error, url) {
  const details = /** @type {{ name?: unknown, reason?: unknown, status?: unknown }} */ (
    typeof error === 'object' && error !== null ? error : {}
  );
  if (details.name === 'ConnectionError' && details.reason === NOT_ALLOWED) {
    const status = typeof details.status === 'number' ? ` (HTTP ${details.status})` : '';
    return (
      `LiveKit at ${url} refused the token${status}: ${errorText(error)}\n` +
      "The page server's LIVEKIT_API_KEY and LIVEKIT_API_SECRET must be a key pair of that LiveKit " +
      "server, and this computer's clock must be right."
    );
  }
  return (
    `Could not connect to LiveKit at ${url}: ${errorText(error)}\n` +
    'Check that the LiveKit server is running and reachable from this browser ' +
    '(LIVEKIT_URL, or WEB_LIVEKIT_URL when browsers use a different address).'
  );
}

/**
 * What to say when the room disconnects without the user asking (null when they did).
 *
 * @param {string | undefined} reasonName a `DisconnectReason` name (`DisconnectReason[reason]`)
 * @param {string} identity
 * @returns {string | null}
 */
export function disconnectMessage(reasonName, identity) {
  const again = 'Press Connect to join again.';
  switch (reasonName) {
    case 'CLIENT_INITIATED':
      return null;
    case 'DUPLICATE_IDENTITY':
      return `This call was opened again in another tab or window of this browser (as "${identity}"), so LiveKit disconnected this page. Press Connect to take it back.`;
    case 'PARTICIPANT_REMOVED':
      return `You were removed from the room. ${again}`;
    case 'ROOM_DELETED':
    case 'ROOM_CLOSED':
      return `The room was closed. ${again}`;
    case 'SERVER_SHUTDOWN':
      return `The LiveKit server shut down. ${again}`;
    default: {
      const why = reasonName && reasonName !== 'UNKNOWN_REASON' ? ` (${reasonName})` : '';
      return `The connection to LiveKit dropped${why} and could not be restored. Check the network, then press Connect to join again.`;
    }
  }
}
