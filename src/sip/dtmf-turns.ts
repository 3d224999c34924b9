/**
 * Wires a caller's key presses into the conversation: the room's `dtmfReceived` events from that
 * caller go through a {@link DtmfCollector}; each finished sequence is one user turn. The first key
 * of a sequence cuts an interruptible reply, as a key press cuts a phone menu's prompt (the
 * greeting is not interruptible and plays on; the keys are answered after it).
 */
import { type DtmfCollectorOptions, DtmfCollector, dtmfKey, dtmfTurnText } from './dtmf.js';

/** The room events used (rtc-node's `Room` satisfies it). */
export interface DtmfRoom {
  on(event: 'dtmfReceived', listener: (code: number, digit: string, participant: { identity: string }) => void): unknown;
  off(event: 'dtmfReceived', listener: (code: number, digit: string, participant: { identity: string }) => void): unknown;
}

/** The session methods used (`voice.AgentSession` satisfies it). */
export interface DtmfSession {
  readonly agentState: string;
  interrupt(): unknown;
  generateReply(options: { userInput: string }): unknown;
}

export interface DtmfLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface DtmfTurnOptions extends Pick<DtmfCollectorOptions, 'pauseMs' | 'maxDigits' | 'setTimer' | 'clearTimer'> {
  /** Only this participant's keys count (the SIP caller the session is linked to). */
  callerIdentity: string;
  logger?: DtmfLogger;
}

/** Starts listening; the returned function stops (pending keys are dropped). */
export function attachDtmfTurns(room: DtmfRoom, session: DtmfSession, options: DtmfTurnOptions): () => void {
  const { callerIdentity, logger } = options;
  const collector = new DtmfCollector({
    ...options,
    onSequence: (keys, reason) => {
      // How many, never which: these are PINs and account numbers.
      logger?.info({ keys: keys.length, reason }, 'caller pressed keys');
      try {
        session.generateReply({ userInput: dtmfTurnText(keys) });
      } catch (error) {
        logger?.warn({ error: (error as Error).message }, 'key presses not answered');
      }
    },
  });
  const onDtmf = (code: number, digit: string, participant: { identity: string }): void => {
    if (participant.identity !== callerIdentity) return;
    if (dtmfKey(code, digit) === undefined) {
      logger?.info({}, 'ignored a key event that names no key');
      return;
    }
    // Before the key is collected: a `#` finishes the sequence at once, and its reply must not be
    // among the queued speeches an interruption cancels.
    if (collector.pending === 0 && session.agentState === 'speaking') {
      try {
        session.interrupt();
      } catch {
        // A speech that does not allow interruptions (the greeting) plays on.
      }
    }
    collector.push(code, digit);
  };
  room.on('dtmfReceived', onDtmf);
  return () => {
    room.off('dtmfReceived', onDtmf);
    collector.close();
  };
}
